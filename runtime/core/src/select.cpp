#include "clretw/select.h"

#include <algorithm>
#include <set>
#include <utility>

namespace clretw {

namespace {

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
std::string lower(std::string_view s) { return ascii_lower(s); }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view short_provider_name(std::string_view provider) noexcept {
  for (std::string_view prefix : {"Microsoft-Windows-", "Microsoft-"})
    if (provider.size() > prefix.size() && provider.substr(0, prefix.size()) == prefix) return provider.substr(prefix.size());
  return provider;
}

std::string_view without_version_suffix(std::string_view symbol) noexcept {
  const std::size_t v = symbol.rfind("_V");
  if (v == std::string_view::npos || v == 0 || v + 2 == symbol.size()) return symbol;
  for (std::size_t i = v + 2; i < symbol.size(); ++i)
    if (symbol[i] < '0' || symbol[i] > '9') return symbol;
  return symbol.substr(0, v);
}

EventPattern::EventPattern(std::string_view text) : text_(text), lower_(lower(text)) {
  // "PROVIDER:NAME" always qualifies; "PROVIDER/NAME" may (GC/Start is task/opcode), and a '*'
  // before the slash is the PROVIDER/NAME glob's ('*/GC/Start'), not a qualifier.
  if (const std::size_t colon = lower_.find(':'); colon != std::string::npos) {
    colon_ = true;
    qualifier_ = lower_.substr(0, colon);
    part_at_ = colon + 1;
  } else if (const std::size_t slash = lower_.find('/'); slash != std::string::npos && slash > 0 &&
                                                          lower_.find('*') > slash) {
    qualifier_ = lower_.substr(0, slash);
    part_at_ = slash + 1;
  }
}

bool EventPattern::qualifies(std::string_view provider) const {
  return !qualifier_.empty() &&
         (glob_match_nocase(qualifier_, provider) || glob_match_nocase(qualifier_, short_provider_name(provider)));
}

bool EventPattern::names_event(std::string_view provider, std::string_view name, std::string_view symbol) const {
  auto answers = [&](std::string_view p) {
    return glob_match_nocase(p, name) ||
           (!symbol.empty() && (glob_match_nocase(p, symbol) || glob_match_nocase(p, without_version_suffix(symbol))));
  };
  const bool in_scope = qualifies(provider);
  if (colon_) return in_scope && answers(std::string_view(lower_).substr(part_at_));
  if (in_scope && answers(std::string_view(lower_).substr(part_at_))) return true;
  if (answers(lower_)) return true;
  std::string key;  // PROVIDER/NAME, as events print
  key.reserve(provider.size() + 1 + name.size());
  key.append(provider).append(1, '/').append(name);
  return glob_match_nocase(lower_, key);
}

bool EventPattern::names_keyword(std::string_view provider, std::string_view keyword) const {
  std::string_view part = lower_;
  if (qualifies(provider)) part.remove_prefix(part_at_);
  else if (colon_) return false;
  if (part.empty() || part.find_first_of("*/") != std::string_view::npos || keyword.size() < part.size()) return false;
  for (std::size_t i = 0; i < part.size(); ++i)
    if (lower(keyword[i]) != part[i]) return false;
  const std::string_view rest = keyword.substr(part.size());
  return rest.empty() || lower(rest) == "keyword";
}

bool EventPattern::selects(const ProviderDesc& p, const EventDesc& e) const {
  if (names_event(p.name, e.name, e.symbol)) return true;
  for (const KeywordDesc& k : p.keywords)
    if ((k.mask & e.keywords) != 0 && names_keyword(p.name, k.name)) return true;
  return false;
}

std::vector<std::string> nearest_names(std::string_view wanted, const std::vector<std::string>& names, std::size_t most) {
  std::string key;
  for (char c : wanted)
    if (c != '*') key += lower(c);
  std::set<std::string_view> seen;
  std::vector<std::pair<std::size_t, std::string_view>> scored;
  for (const std::string& name : names) {
    if (name.empty() || !seen.insert(name).second) continue;
    const std::string l = lower(name);
    if (key.size() >= 3 && l.find(key) != std::string::npos) {
      scored.emplace_back(l.size() - key.size(), name);
      continue;
    }
    const std::size_t d = edit_distance(key, l);
    if (d <= std::max<std::size_t>(2, key.size() / 3)) scored.emplace_back(1000 + d, name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [score, name] : scored)
    if (out.size() < most) out.emplace_back(name);
  return out;
}

}  // namespace clretw
