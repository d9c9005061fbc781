// clretw/gen/rules.h - the registry of diagnostic codes.
//
// Every diagnostic clretw-gen can emit has an entry here: a stable code, a
// short name, a default severity and a one-line summary. Codes never change
// meaning; `validate --list-rules` prints this table.
//   M0xx  reading the manifest (XML, structure, attributes)
//   M1xx  uniqueness
//   M2xx  references
//   M3xx  value ranges
//   M4xx  types
//   M5xx  maps
//   M6xx  templates and payloads
//   M7xx  generation (layout, naming, fix-ups)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clretw/gen/diagnostics.h"

namespace clretw::gen {

struct Rule {
  std::string_view code;
  std::string_view name;
  Severity severity;
  std::string_view summary;
};

const std::vector<Rule>& rules();
const Rule* find_rule(std::string_view code_or_name);

// Adds a diagnostic for `code` with the rule's name and default severity.
Diagnostic& report(Diagnostics& diags, std::string_view code, const std::string& file, Loc loc, std::string message);

}  // namespace clretw::gen
