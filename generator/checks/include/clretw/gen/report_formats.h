// clretw/gen/report_formats.h - diagnostics as JSON and as SARIF 2.1.0.
//
// Text output is format_gcc() (diagnostics.h). JSON is one document with the
// counts and an array of diagnostics, for scripts; SARIF 2.1.0 is for code
// scanning tools, which show each result at its file:line:col. Both are
// written by hand: the generator needs no JSON library.
#pragma once

#include <string>
#include <string_view>

#include "clretw/gen/diagnostics.h"

namespace clretw::gen {

// {"tool": "clretw-gen", "status": N, "errors": N, "warnings": N, "diagnostics": [
//   {"code", "rule", "severity", "file", "line", "column", "message", "hint", "related": [
//     {"file", "line", "column", "message"}]}]}
std::string format_json(const Diagnostics& diags, int status);

// A SARIF 2.1.0 log with one run: the driver lists every rule of the registry
// (rules.h); each diagnostic is a result pointing at its rule.
std::string format_sarif(const Diagnostics& diags);

// A JSON string literal, quotes included.
std::string json_string(std::string_view text);

}  // namespace clretw::gen
