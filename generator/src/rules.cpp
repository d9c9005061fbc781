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
      // Uniqueness (per provider unless said otherwise).
      {"M101", "duplicate-provider", Severity::error, "two providers share a name or a GUID"},
      {"M102", "duplicate-keyword-name", Severity::error, "two keywords share a name"},
      {"M103", "duplicate-keyword-mask", Severity::error, "two keywords share a bit"},
      {"M104", "duplicate-task-name", Severity::error, "two tasks share a name"},
      {"M105", "duplicate-task-value", Severity::error, "two tasks share a value"},
      {"M106", "duplicate-opcode-name", Severity::error, "two opcodes of one scope (the provider or one task) share a name"},
      {"M107", "duplicate-opcode-value", Severity::error, "two opcodes of one scope (the provider or one task) share a value"},
      {"M108", "duplicate-level", Severity::error, "two custom levels share a name or a value"},
      {"M109", "duplicate-channel", Severity::error, "two channels share a name, a chid or a value"},
      {"M110", "duplicate-template-id", Severity::error, "two templates share a tid"},
      {"M111", "duplicate-map-name", Severity::error, "two maps share a name"},
      {"M112", "duplicate-event", Severity::error, "two events share a (value, version) pair"},
      {"M113", "duplicate-event-symbol", Severity::error, "two events share a symbol"},
      {"M114", "duplicate-symbol", Severity::error, "a provider, keyword, task, opcode, level or channel symbol is used twice in the manifest"},
      {"M115", "duplicate-field-name", Severity::error, "two fields of one template or struct share a name"},
      {"M116", "duplicate-string-id", Severity::error, "a string id appears twice in one string table"},
      {"M117", "shared-symbol", Severity::warning, "two providers give the same symbol to items of the same kind and value"},
      // References.
      {"M201", "unresolved-template", Severity::error, "an event names a template that does not exist"},
      {"M202", "unresolved-task", Severity::error, "an event names a task that does not exist"},
      {"M203", "unresolved-opcode", Severity::error, "an event names an opcode that is neither standard, provider-wide nor its task's"},
      {"M204", "unresolved-keyword", Severity::error, "an event names a keyword that does not exist"},
      {"M205", "unresolved-level", Severity::error, "an event names a level that is neither standard nor declared"},
      {"M206", "unresolved-channel", Severity::error, "an event names a channel that is not declared"},
      {"M207", "unresolved-map", Severity::error, "a field names a map that does not exist"},
      {"M208", "unresolved-string", Severity::error, "a $(string.X) message names no string of the string table"},
      {"M209", "malformed-message", Severity::error, "a message attribute is not of the form $(string.X)"},
      {"M210", "unresolved-extent", Severity::error, "a count or length names no field of the template or struct"},
      {"M211", "extent-not-earlier", Severity::error, "a count or length names a field that comes after it (or itself)"},
      {"M212", "extent-out-of-scope", Severity::error, "a count or length names a field of another struct or of the enclosing template"},
      {"M213", "extent-not-integer", Severity::error, "a count or length names a field that is not a scalar integer"},
      {"M214", "unused-template", Severity::warning, "no event uses the template"},
      {"M215", "unused-map", Severity::warning, "no field uses the map"},
      // Ranges.
      {"M301", "opcode-out-of-range", Severity::error, "a custom opcode value is outside 11..239 (0..10 and 240..255 are reserved)"},
      {"M302", "opcode-value-10", Severity::warning, "a custom opcode uses 10, which the documentation disagrees on"},
      {"M303", "task-out-of-range", Severity::error, "a task value is outside 1..65534"},
      {"M304", "level-out-of-range", Severity::error, "a custom level value is outside 16..255"},
      {"M305", "keyword-reserved-bits", Severity::error, "a keyword mask uses bits 48..63, which are reserved"},
      {"M306", "keyword-not-one-bit", Severity::error, "a keyword mask is zero or has more than one bit set"},
      {"M307", "too-many-channels", Severity::error, "a provider declares more than 8 channels"},
      {"M308", "channel-out-of-range", Severity::error, "a channel value is outside 16..255"},
      // Types.
      {"M401", "unknown-intype", Severity::error, "inType is not a known type"},
      {"M402", "unknown-outtype", Severity::error, "outType is not a known type"},
      {"M403", "outtype-mismatch", Severity::error, "outType is not a valid rendering of the field's inType"},
      {"M404", "binary-without-length", Severity::error, "a win:Binary field has no length"},
      {"M405", "length-on-fixed-size", Severity::error, "a length on a type whose size is fixed (or on a struct)"},
      {"M406", "map-on-non-integer", Severity::error, "a map on a field that is not win:UInt8, UInt16 or UInt32"},
      {"M407", "zero-count", Severity::warning, "a constant count or length of 0: the item is always empty"},
      // Maps.
      {"M501", "bitmap-not-power-of-two", Severity::warning, "a bitMap entry value has more than one bit set"},
      {"M502", "empty-map", Severity::error, "a valueMap or bitMap has no entries"},
      {"M503", "duplicate-map-value", Severity::error, "two entries of one map share a value"},
      {"M504", "map-entry-without-message", Severity::error, "a map entry has no message, so its value has no name"},
      {"M505", "bitmap-zero-value", Severity::warning, "a bitMap entry has value 0, which names no bit"},
      // Templates and payloads.
      {"M601", "empty-template", Severity::warning, "a template declares no data or struct"},
      {"M602", "payload-exceeds-64k", Severity::error, "the smallest payload of a template is larger than an ETW event can be (64 KB)"},
      {"M603", "empty-struct", Severity::error, "a struct declares no members"},
      {"M604", "version-reorders-fields", Severity::warning, "a newer version of an event does not keep the previous version's fields as a prefix"},
      // Generation.
      {"M701", "unresolved-template", Severity::error, "an event names a template that does not exist (cannot generate)"},
      {"M702", "unresolved-extent", Severity::error, "a count or length names no earlier integer field (cannot lay out)"},
      {"M703", "too-many-segments", Severity::error, "a template has more variable-size items than the layout engine supports"},
      {"M704", "name-collision", Severity::note, "two items map to the same C++ name; one was renamed"},
      {"M705", "fixup-unmatched", Severity::error, "a fix-up matches nothing in the manifest"},
      {"M706", "fixup-applied", Severity::note, "a fix-up changed the manifest"},
      {"M707", "unsupported-array", Severity::error, "a count on a type whose arrays cannot be laid out (Binary, SID)"},
      {"M708", "duplicate-event-version", Severity::error, "an (event value, version) pair is declared twice (cannot generate)"},
      {"M709", "unresolved-map", Severity::warning, "a field names a map that does not exist; its values print as numbers"},
      {"M710", "identifier-changed", Severity::note, "a name is not a usable C++ identifier as spelled; its C++ name differs"},
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
