#include "clretw/gen/rules.h"

namespace clretw::gen {

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules = {
      // Reading the manifest.
      {"M001", "xml-syntax", Severity::error, "the file is not well-formed XML"},
      {"M002", "not-a-manifest", Severity::error, "the root element is not an instrumentationManifest"},
      {"M003", "unknown-element", Severity::error, "an element the manifest schema does not define here"},
      {"M004", "unknown-attribute", Severity::warning, "an attribute the manifest schema does not define here"},
      {"M005", "missing-attribute", Severity::error, "a required attribute is missing"},
      {"M006", "bad-number", Severity::error, "a numeric attribute is not a number or is out of range"},
      {"M007", "bad-guid", Severity::error, "a GUID attribute is not a GUID"},
      {"M008", "unreadable-file", Severity::error, "the file cannot be read"},
      {"M009", "no-providers", Severity::warning, "the manifest declares no provider"},
      // Types.
      {"M401", "unknown-intype", Severity::error, "inType is not a known type"},
      {"M402", "unknown-outtype", Severity::error, "outType is not a known type"},
      // Generation.
      {"M701", "unresolved-template", Severity::error, "an event names a template that does not exist (cannot generate)"},
      {"M702", "unresolved-extent", Severity::error, "a count or length names no earlier integer field (cannot lay out)"},
      {"M703", "too-many-segments", Severity::error, "a template has more variable-size items than the layout engine supports"},
      {"M704", "name-collision", Severity::warning, "two items map to the same C++ name; one was renamed"},
      {"M705", "fixup-unmatched", Severity::error, "a fix-up matches nothing in the manifest"},
      {"M706", "fixup-applied", Severity::note, "a fix-up changed the manifest"},
      {"M707", "unsupported-array", Severity::error, "a count on a type whose arrays cannot be laid out (Binary, SID)"},
      {"M708", "duplicate-event-version", Severity::error, "an (event value, version) pair is declared twice (cannot generate)"},
      {"M709", "unresolved-map", Severity::warning, "a field names a map that does not exist; its values print as numbers"},
  };
  return kRules;
}

const Rule* find_rule(std::string_view key) {
  for (const Rule& r : rules())
    if (r.code == key || r.name == key) return &r;
  return nullptr;
}

Diagnostic& report(Diagnostics& diags, std::string_view code, const std::string& file, Loc loc, std::string message) {
  const Rule* r = find_rule(code);
  return diags.add(r ? r->severity : Severity::error, std::string(code), r ? std::string(r->name) : std::string(), file,
                   loc, std::move(message));
}

}  // namespace clretw::gen
