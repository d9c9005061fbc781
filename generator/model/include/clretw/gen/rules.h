// clretw/gen/rules.h - the registry of diagnostic rules.
//
// Every diagnostic clretw-gen can emit has an entry in rules.def: a symbol
// (RuleId), a stable code, a short name, a default severity and a one-line
// summary. Code reports by symbol, so a mistyped rule does not compile;
// `validate --list-rules` prints the table. The loader, the validator and the
// schema builder share rules: a problem has one code whoever finds it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "clretw/gen/diagnostics.h"

namespace clretw::gen {

enum class RuleId : std::uint16_t {
#define CLRETW_RULE(symbol, code, name, severity, summary) symbol,
#include "clretw/gen/rules.def"
#undef CLRETW_RULE
};

struct Rule {
  RuleId id;
  std::string_view code;
  std::string_view name;
  Severity severity;
  std::string_view summary;
};

// Every rule, in rules.def order.
std::span<const Rule> rules() noexcept;
const Rule& rule(RuleId id) noexcept;
// By code or name; a retired code finds the rule it was folded into. nullptr when unknown.
const Rule* find_rule(std::string_view code_or_name) noexcept;

// Adds a diagnostic of rule `id` at its default severity.
Diagnostic& report(Diagnostics& diags, RuleId id, const std::string& file, Loc loc, std::string message);
// Whether d was reported under rule `id`.
bool is(const Diagnostic& d, RuleId id) noexcept;

}  // namespace clretw::gen
