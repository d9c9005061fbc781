#include "clretw/gen/rules.h"

#include <array>
#include <utility>

namespace clretw::gen {

namespace {

constexpr Rule kRules[] = {
#define CLRETW_RULE(symbol, code, name, severity, summary) {RuleId::symbol, code, name, Severity::severity, summary},
#include "clretw/gen/rules.def"
#undef CLRETW_RULE
};

// Codes that were folded into another rule, so that old --disable and
// --severity arguments keep working.
constexpr std::pair<std::string_view, RuleId> kRetired[] = {
    {"M701", RuleId::unresolved_template},
    {"M702", RuleId::unresolved_extent},
    {"M708", RuleId::duplicate_event},
    {"M709", RuleId::unresolved_map},
};

}  // namespace

std::span<const Rule> rules() noexcept { return kRules; }

const Rule& rule(RuleId id) noexcept { return kRules[static_cast<std::size_t>(id)]; }

const Rule* find_rule(std::string_view key) noexcept {
  for (const Rule& r : kRules)
    if (r.code == key || r.name == key) return &r;
  for (const auto& [code, id] : kRetired)
    if (code == key) return &rule(id);
  return nullptr;
}

Diagnostic& report(Diagnostics& diags, RuleId id, const std::string& file, Loc loc, std::string message) {
  const Rule& r = rule(id);
  return diags.add(r.severity, std::string(r.code), std::string(r.name), file, loc, std::move(message));
}

bool is(const Diagnostic& d, RuleId id) noexcept { return d.code == rule(id).code; }

}  // namespace clretw::gen
