// The manifest loader: everything kept, problems located.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "shared_cases.h"
#include "clretw/gen/loader.h"
#include "clretw/text.h"
#include "files.h"
#include "reference.h"

using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

const std::string kFeatures = std::string(CLRETW_TESTS_DIR) + "/manifests/features.man";

// A minimal manifest around a provider body.
std::string wrap(const std::string& body) {
  return "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
         "<instrumentation><events>\n"
         "<provider name=\"P\" guid=\"{11111111-2222-3333-4444-555555555555}\">\n" +
         body +
         "\n</provider>\n</events></instrumentation>\n</instrumentationManifest>\n";
}

const Diagnostic* find(const Diagnostics& d, const std::string& code) {
  for (const Diagnostic& x : d.items())
    if (x.code == code) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("features.man loads completely and resolves") {
  Diagnostics d;
  auto m = load_manifest(kFeatures, d);
  REQUIRE(m);
  CHECK(d.items().empty());
  resolve(*m);
  REQUIRE(m->providers.size() == 1);
  const Provider& p = m->providers[0];
  CHECK(p.name == "Contoso-Test-Features");
  CHECK(p.guid.to_string() == "3b2a6f4e-0d1c-4e5f-9a8b-7c6d5e4f3a2b");
  CHECK(p.keywords.size() == 3);
  CHECK(p.keywords[2].mask == 0x800000000000ull);
  CHECK(p.levels.size() == 1);
  CHECK(p.tasks.size() == 2);
  CHECK(p.tasks[0].opcodes.size() == 1);
  CHECK(p.opcodes.size() == 1);
  CHECK(p.maps.size() == 2);
  CHECK(p.maps[1].bitmap);
  CHECK(p.maps[0].entries[2].message == "Deep blue");
  CHECK(p.templates.size() == 7);
  CHECK(p.events.size() == 8);

  const Event& arrays = p.events[2];
  CHECK(arrays.symbol == "ArrayEvent");
  CHECK(arrays.level_value == 16);  // custom level Chatty
  CHECK(arrays.opcode_value == 11);  // the task's own opcode
  CHECK(arrays.task_value == 1);
  CHECK(arrays.keyword_mask == 0x800000000000ull);
  CHECK(p.events[1].keyword_mask == 0x3);
  CHECK(p.events[4].opcode_value == 12);  // provider-wide opcode
  CHECK(p.events[0].message == "I8=%1;%nU8=%2");
  CHECK(p.events[7].template_index == kUnresolved);

  const Template& nested = p.templates[3];
  REQUIRE(nested.fields[2].is_struct);
  CHECK(nested.fields[2].count_field == 0);
  CHECK(nested.fields[2].members[3].count_field == 2);  // sibling inside the struct
  CHECK(p.templates[1].fields[4].length_field == 3);
  CHECK(p.templates[1].fields[2].length_const == 4u);
  CHECK(p.templates[0].fields[1].map == 0);

  // Every node knows where it came from.
  CHECK(p.loc.line == 9);
  CHECK(p.events[0].loc.line == 115);
  CHECK(p.events[0].loc.col == 11);
  CHECK(nested.loc.line == 81);
  CHECK(nested.fields[2].loc.line == 84);
}

TEST_CASE("UTF-16 manifests load like UTF-8 ones") {
  std::string utf8 = slurp(kFeatures);
  utf8.replace(utf8.find("utf-8"), 5, "utf-16");
  std::string utf16 = "\xFF\xFE";
  for (char16_t u : clretw::utf8_to_utf16(utf8)) {
    utf16.push_back(static_cast<char>(u & 0xFF));
    utf16.push_back(static_cast<char>(u >> 8));
  }
  Diagnostics d;
  auto m = load_manifest_text(utf16, "features16.man", d);
  REQUIRE(m);
  CHECK(d.items().empty());
  CHECK(m->providers[0].events.size() == 8);
  CHECK(m->providers[0].events[0].loc.line == 115);
}

TEST_CASE("malformed XML: file:line:col and no model") {
  Diagnostics d;
  auto m = load_manifest(std::string(CLRETW_TESTS_DIR) + "/manifests/bad/malformed.man", d);
  CHECK_FALSE(m);
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].code == "M001");
  CHECK(d.items()[0].loc.line == 7);
  CHECK(format_gcc(d).find("malformed.man:7:") != std::string::npos);
}

TEST_CASE("unreadable file") {
  Diagnostics d;
  CHECK_FALSE(load_manifest("/nonexistent/x.man", d));
  REQUIRE(find(d, "M008"));
}

TEST_CASE("structural problems are reported, not skipped") {
  Diagnostics d;
  auto m = load_manifest_text(wrap("<templates>\n<template tid=\"T\">\n"
                                   "  <data name=\"A\" inType=\"win:Int33\"/>\n"
                                   "  <data name=\"B\" inType=\"win:UInt32\" outType=\"xs:nonsense\" colour=\"red\"/>\n"
                                   "  <frobnicate/>\n"
                                   "  <data inType=\"win:UInt8\"/>\n"
                                   "</template>\n</templates>\n"
                                   "<events><event value=\"x1\" symbol=\"E\"/></events>\n"
                                   "<widgets/>"),
                              "s.man", d);
  REQUIRE(m);
  const Diagnostic* intype = find(d, "M401");
  REQUIRE(intype);
  CHECK(intype->loc.line == 6);
  CHECK(intype->message.find("win:Int33") != std::string::npos);
  REQUIRE(find(d, "M402"));
  REQUIRE(find(d, "M004"));
  CHECK(find(d, "M004")->severity == Severity::warning);
  CHECK(find(d, "M004")->message.find("colour") != std::string::npos);
  const Diagnostic* elem = find(d, "M003");
  REQUIRE(elem);
  CHECK(elem->loc.line == 8);
  CHECK(elem->message.find("frobnicate") != std::string::npos);
  REQUIRE(find(d, "M005"));  // data without name
  REQUIRE(find(d, "M006"));  // event value x1
  CHECK(d.error_count() >= 5);
}

TEST_CASE("a manifest that is not a manifest") {
  Diagnostics d;
  auto m = load_manifest_text("<html><body/></html>", "x.man", d);
  REQUIRE(m);
  REQUIRE(find(d, "M002"));
  CHECK(m->providers.empty());
}

CLRETW_SHARED_CASE("the real ClrEtwAll.man files load with nothing dropped") {
  const std::string shared = clretw::test::shared_dir_or_skip("../shared/manifests is absent");
  if (shared.empty()) return;
  struct Expect {
    const char* file;
    std::size_t providers, events, templates;
  } expect[] = {{"coreclr-1.0", 4, 397, 177}, {"coreclr-2.1", 4, 398, 178}, {"coreclr-3.1", 4, 410, 190},
                {"runtime-2020", 4, 430, 209}, {"runtime-main", 5, 510, 259}};
  for (const Expect& e : expect) {
    CAPTURE(e.file);
    Diagnostics d;
    auto m = load_manifest(shared + "/manifests/ClrEtwAll." + e.file + ".man", d);
    REQUIRE(m);
    CHECK(format_gcc(d) == "");
    resolve(*m);
    std::size_t events = 0, templates = 0, unresolved = 0;
    for (const Provider& p : m->providers) {
      events += p.events.size();
      templates += p.templates.size();
      for (const Event& ev : p.events) unresolved += !ev.template_name.empty() && ev.template_index == kUnresolved;
    }
    CHECK(m->providers.size() == e.providers);
    CHECK(events == e.events);
    CHECK(templates == e.templates);
    CHECK(unresolved == 0);
  }
}
