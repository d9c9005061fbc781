#include "clretw/gen/report_formats.h"

#include <cstdio>

#include "clretw/gen/rules.h"
#include "clretw/text.h"

#ifndef CLRETW_VERSION
#define CLRETW_VERSION "0"
#endif

namespace clretw::gen {

// Manifest text reaches messages as written; bytes that are not UTF-8 become
// U+FFFD so the document stays valid JSON.
std::string json_string(std::string_view text) {
  std::string out = "\"";
  append_json_escaped(out, valid_utf8(text));
  return out + "\"";
}

namespace {

// A file path as a URI reference: '/' kept, everything outside the unreserved
// set percent-encoded, so "C:\x y.man" and "a b.man" stay valid.
std::string uri(std::string_view path) {
  std::string out;
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/')
      out += c;
    else if (c == '\\')
      out += '/';
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned>(u));
      out += buf;
    }
  }
  return out;
}

// SARIF's levels are named as ours are.
std::string sarif_level(Severity s) { return std::string(severity_name(s)); }

std::string physical_location(const std::string& file, Loc loc) {
  std::string s = "{\"artifactLocation\": {\"uri\": " + json_string(uri(file)) + "}";
  if (loc.line)
    s += ", \"region\": {\"startLine\": " + std::to_string(loc.line) +
         ", \"startColumn\": " + std::to_string(loc.col ? loc.col : 1) + "}";
  return s + "}";
}

}  // namespace

std::string format_json(const Diagnostics& diags, int status) {
  std::string s = "{\n  \"tool\": \"clretw-gen\",\n  \"status\": " + std::to_string(status) +
                  ",\n  \"errors\": " + std::to_string(diags.error_count()) +
                  ",\n  \"warnings\": " + std::to_string(diags.warning_count()) +
                  ",\n  \"accepted\": " + std::to_string(diags.accepted_count()) + ",\n  \"diagnostics\": [";
  bool first = true;
  for (const Diagnostic& d : diags.items()) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "    {\"code\": " + json_string(d.code) + ", \"rule\": " + json_string(d.rule) +
         ", \"severity\": " + json_string(severity_name(d.severity)) + ", \"file\": " + json_string(d.file) +
         ", \"line\": " + std::to_string(d.loc.line) + ", \"column\": " + std::to_string(d.loc.col) +
         ", \"message\": " + json_string(d.message) + ", \"hint\": " + json_string(d.hint) +
         (d.accepted.empty() ? std::string() : ", \"accepted\": " + json_string(d.accepted)) + ", \"related\": [";
    for (std::size_t i = 0; i < d.related.size(); ++i) {
      const Related& r = d.related[i];
      s += (i ? ", " : "") + std::string("{\"file\": ") + json_string(r.file) +
           ", \"line\": " + std::to_string(r.loc.line) + ", \"column\": " + std::to_string(r.loc.col) +
           ", \"message\": " + json_string(r.message) + "}";
    }
    s += "]}";
  }
  s += first ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

std::string format_sarif(const Diagnostics& diags) {
  std::string s =
      "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
      "  \"runs\": [{\n    \"tool\": {\"driver\": {\n      \"name\": \"clretw-gen\",\n      \"version\": " +
      json_string(CLRETW_VERSION) + ",\n      \"rules\": [";
  const auto& all = rules();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Rule& r = all[i];
    s += (i ? ",\n" : "\n") + std::string("        {\"id\": ") + json_string(r.code) +
         ", \"name\": " + json_string(r.name) + ", \"shortDescription\": {\"text\": " + json_string(r.summary) +
         "}, \"defaultConfiguration\": {\"level\": " + json_string(sarif_level(r.severity)) + "}}";
  }
  s += "\n      ]\n    }},\n    \"results\": [";
  bool first = true;
  for (const Diagnostic& d : diags.items()) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "      {";
    if (!d.code.empty()) {
      s += "\"ruleId\": " + json_string(d.code) + ", ";
      for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].code == d.code) s += "\"ruleIndex\": " + std::to_string(i) + ", ";
    }
    std::string text = d.message;
    if (!d.hint.empty()) text += " (hint: " + d.hint + ")";
    s += "\"level\": " + json_string(sarif_level(d.severity)) + ", \"message\": {\"text\": " + json_string(text) +
         "},\n        \"locations\": [{\"physicalLocation\": " + physical_location(d.file, d.loc) + "}]";
    if (!d.related.empty()) {
      s += ",\n        \"relatedLocations\": [";
      for (std::size_t i = 0; i < d.related.size(); ++i) {
        const Related& r = d.related[i];
        s += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) +
             ", \"physicalLocation\": " + physical_location(r.file, r.loc) +
             ", \"message\": {\"text\": " + json_string(r.message) + "}}";
      }
      s += "]";
    }
    if (!d.accepted.empty())  // accepted in the manifest itself: a suppression "in source", with its reason
      s += ",\n        \"suppressions\": [{\"kind\": \"inSource\", \"justification\": " + json_string(d.accepted) + "}]";
    s += "}";
  }
  s += first ? "]\n  }]\n}\n" : "\n    ]\n  }]\n}\n";
  return s;
}

}  // namespace clretw::gen
