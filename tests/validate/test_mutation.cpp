// Validation never crashes and always says where: the real manifests, mutated.
//
// Each mutant (a deleted attribute, two attribute values swapped, a numeric
// value replaced by garbage, an element duplicated, the file truncated) goes
// through validate_text(), the entry point of `clretw-gen validate`. It must
// end with status 1 or 2 and at least one located diagnostic. A mutant that is
// still valid (status 0: two equal values swapped, an optional attribute
// deleted ...) is counted and skipped; such mutants must stay a small minority.
// Deterministic: a fixed seed per manifest.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "shared_cases.h"
#include "clretw/gen/validate.h"
#include "files.h"
#include "reference.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

struct Attribute {
  std::size_t name, value, value_end;  // offsets: name start, value start (after the quote), closing quote
};

// The attributes (name="value") of the manifest's elements, found lexically.
std::vector<Attribute> attributes(const std::string& text) {
  std::vector<Attribute> out;
  const std::size_t declaration_end = text.compare(0, 5, "<?xml") == 0 ? text.find("?>") : 0;
  for (std::size_t q = text.find("=\"", declaration_end); q != std::string::npos; q = text.find("=\"", q + 2)) {
    std::size_t name = q;
    while (name > 0 && (std::isalnum(static_cast<unsigned char>(text[name - 1])) || text[name - 1] == ':' ||
                        text[name - 1] == '_'))
      --name;
    const std::size_t end = text.find('"', q + 2);
    if (name == q || end == std::string::npos || text.compare(name, 5, "xmlns") == 0) continue;
    out.push_back({name, q + 2, end});
  }
  return out;
}

// Elements that can be duplicated whole: <tag .../> on one line.
std::vector<std::pair<std::size_t, std::size_t>> empty_elements(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t lt = text.find('<'); lt != std::string::npos; lt = text.find('<', lt + 1)) {
    if (lt + 1 >= text.size() || !std::isalpha(static_cast<unsigned char>(text[lt + 1]))) continue;
    const std::size_t gt = text.find('>', lt);
    if (gt == std::string::npos) break;
    if (text[gt - 1] == '/') out.push_back({lt, gt + 1});
  }
  return out;
}

enum class Mutation { delete_attribute, swap_values, garbage_number, duplicate_element, truncate, count };

const char* name(Mutation m) {
  switch (m) {
    case Mutation::delete_attribute: return "delete an attribute";
    case Mutation::swap_values: return "swap two values";
    case Mutation::garbage_number: return "garbage number";
    case Mutation::duplicate_element: return "duplicate an element";
    case Mutation::truncate: return "truncate";
    default: return "?";
  }
}

bool numeric(const std::string& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == 'x'; });
}

std::string mutate(const std::string& text, Mutation m, std::mt19937_64& rng, const std::vector<Attribute>& attrs,
                   const std::vector<Attribute>& numbers, const std::vector<std::pair<std::size_t, std::size_t>>& elems,
                   std::string& what) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::string out = text;
  switch (m) {
    case Mutation::delete_attribute: {
      const Attribute& a = attrs[pick(attrs.size())];
      what = "deleted " + text.substr(a.name, a.value_end + 1 - a.name);
      out.erase(a.name, a.value_end + 1 - a.name);
      break;
    }
    case Mutation::swap_values: {
      const Attribute& a = attrs[pick(attrs.size())];
      const Attribute& b = attrs[pick(attrs.size())];
      const Attribute& first = a.name < b.name ? a : b;
      const Attribute& second = a.name < b.name ? b : a;
      const std::string va = text.substr(first.value, first.value_end - first.value);
      const std::string vb = text.substr(second.value, second.value_end - second.value);
      what = "swapped '" + va + "' and '" + vb + "'";
      out.replace(second.value, vb.size(), va);
      out.replace(first.value, va.size(), vb);
      break;
    }
    case Mutation::garbage_number: {
      static const char* kGarbage[] = {"x1", "-1", "0x", "99999999999999999999999", "1e3", "", "0xFFFFFFFFFFFFFFFFF", " "};
      const Attribute& a = numbers[pick(numbers.size())];
      const std::string g = kGarbage[pick(std::size(kGarbage))];
      what = "value '" + text.substr(a.value, a.value_end - a.value) + "' -> '" + g + "'";
      out.replace(a.value, a.value_end - a.value, g);
      break;
    }
    case Mutation::duplicate_element: {
      const auto [begin, end] = elems[pick(elems.size())];
      what = "duplicated " + text.substr(begin, std::min<std::size_t>(end - begin, 60));
      out.insert(end, text.substr(begin, end - begin));
      break;
    }
    case Mutation::truncate: {
      const std::size_t at = pick(text.size() - 1);
      what = "truncated at " + std::to_string(at);
      out.resize(at);
      break;
    }
    default: break;
  }
  return out;
}

void mutate_manifest(const fs::path& path, int mutants, std::uint64_t seed) {
  const std::string text = slurp(path);
  REQUIRE(!text.empty());
  const auto attrs = attributes(text);
  std::vector<Attribute> numbers;
  for (const Attribute& a : attrs)
    if (numeric(text.substr(a.value, a.value_end - a.value))) numbers.push_back(a);
  const auto elems = empty_elements(text);
  REQUIRE(attrs.size() > 10);
  REQUIRE(numbers.size() > 10);
  REQUIRE(elems.size() > 10);

  std::mt19937_64 rng(seed);
  int still_valid = 0;
  std::map<int, int> statuses;
  for (int i = 0; i < mutants; ++i) {
    const auto m = static_cast<Mutation>(i % static_cast<int>(Mutation::count));
    std::string what;
    const std::string mutant = mutate(text, m, rng, attrs, numbers, elems, what);
    const ValidateResult r = validate_text(mutant, path.filename().string(), {});
    ++statuses[r.status];
    if (r.status == 0) {
      ++still_valid;
      if (std::getenv("CLRETW_SHOW_VALID_MUTANTS")) MESSAGE("still valid: " << name(m) << ": " << what);
      continue;
    }
    CAPTURE(path.filename().string());
    CAPTURE(i);
    CAPTURE(name(m));
    CAPTURE(what);
    CHECK((r.status == 1 || r.status == 2));
    bool located = false;
    for (const Diagnostic& d : r.diags.items())
      if (d.severity != Severity::note && !d.file.empty() && (d.loc.line != 0 || r.status == 2)) located = true;
    CHECK(located);
  }
  MESSAGE(path.filename().string() << ": " << mutants << " mutants, status 1: " << statuses[1] << ", status 2: "
                                   << statuses[2] << ", still valid (skipped): " << still_valid);
  // Most of these delete an optional attribute (symbol, message, level, keywords, outType ...) or swap two
  // values of one kind (win:UInt16 and win:UInt32): the manifest is still valid.
  CHECK(still_valid * 4 < mutants);
}

}  // namespace

TEST_CASE("mutants of the built-in manifest") {
  mutate_manifest(fs::path(CLRETW_SOURCE_DIR) / "manifest" / "ClrEtwBuiltin.man", 300, 1);
}

CLRETW_SHARED_CASE("mutants of the real CLR manifests") {
  const std::string shared = clretw::test::shared_dir_or_skip(CLRETW_SHARED_DIR " is absent; the real ClrEtwAll.man files were not mutated");
  if (shared.empty()) return;
  const std::pair<const char*, int> manifests[] = {
      {"coreclr-1.0", 100}, {"coreclr-2.1", 100}, {"coreclr-3.1", 100}, {"runtime-2020", 100}, {"runtime-main", 400}};
  // CLRETW_MUTANT_SHARE=N: the first 1/N of them (the sanitizer build sets 4, where each validation takes ten
  // times as long and fuzz_manifest explores further; the plain build runs them all).
  const char* share_text = std::getenv("CLRETW_MUTANT_SHARE");
  const int kShare = share_text && std::atoi(share_text) > 0 ? std::atoi(share_text) : 1;
  std::uint64_t seed = 100;
  for (const auto& [name, n] : manifests)
    mutate_manifest(fs::path(shared) / "manifests" / ("ClrEtwAll." + std::string(name) + ".man"), n / kShare, ++seed);
}
