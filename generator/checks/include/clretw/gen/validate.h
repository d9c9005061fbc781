// clretw/gen/validate.h - checks a manifest as written.
//
// validate() runs every rule family of the registry (rules.h, codes M1xx-M6xx)
// on a loaded and resolved manifest; the loader has already reported what it
// found while reading (M0xx, M401, M402). Fix-ups are not applied: the
// manifest is checked as its maintainers wrote it. Diagnostics that conflict
// with another item name both and carry the other's location as `related`.
//
// validate_files() is the whole of `clretw-gen validate` except printing: the
// CLI and the tests go through it, so both see the same diagnostics and exit
// status.
//
// A manifest can accept a warning it knows it has, and say why, in a comment anywhere in the file:
//   <!-- clretw-gen validate accepts M302 opcode-value-10: the runtime's own opcodes use 10 -->
// (the code, the name or both). The file's warnings of that rule are then marked accepted: counted apart,
// not printed unless asked, suppressions in SARIF, never failing --werror. An acceptance of an unknown
// rule, of an error rule or without a reason is an error (M010); one that accepts nothing, a warning (M011).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"

namespace clretw::gen {

// Runs every rule on a resolved manifest (see resolve() in loader.h).
void validate(const Manifest& m, Diagnostics& diags);

// Which rules are off and which are re-graded, by code.
struct RuleOptions {
  std::set<std::string> disabled;
  std::map<std::string, Severity> severity;
  bool werror = false;  // warnings make the exit status 1
};

// Parses "--disable CODE|NAME" and "--severity CODE|NAME=error|warning" values;
// nullopt (and a message in `error`) when a rule or a severity is unknown.
std::optional<RuleOptions> parse_rule_options(const std::vector<std::string>& disable,
                                              const std::vector<std::string>& severity, std::string& error);

// Drops disabled diagnostics and re-grades the others, in place.
void apply_rule_options(Diagnostics& diags, const RuleOptions& options);

struct ValidateResult {
  int status = 0;  // 0 clean, 1 errors (or warnings with werror), 2 some input unreadable
  Diagnostics diags;
};

// Loads, resolves and validates each file; diagnostics are sorted per file.
ValidateResult validate_files(const std::vector<std::string>& paths, const RuleOptions& options);
// The same for one manifest held in memory (`path` names it in diagnostics).
ValidateResult validate_text(const std::string& text, const std::string& path, const RuleOptions& options);

}  // namespace clretw::gen
