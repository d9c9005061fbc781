// The fix-up overlay.
#include <doctest/doctest.h>

#include "shared_cases.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/schema_builder.h"
#include "reference.h"

using namespace clretw::gen;

TEST_CASE("glob patterns") {
  CHECK(glob_match("Microsoft-Windows-DotNETRuntime*", "Microsoft-Windows-DotNETRuntimeRundown"));
  CHECK(glob_match("Microsoft-Windows-DotNETRuntime*", "Microsoft-Windows-DotNETRuntime"));
  CHECK_FALSE(glob_match("Microsoft-Windows-DotNETRuntime*", "Microsoft-DotNETRuntimeMonoProfiler"));
  CHECK(glob_match("*Rundown", "Microsoft-Windows-DotNETRuntimeRundown"));
  CHECK(glob_match("a*b*c", "aXXbYYc"));
  CHECK_FALSE(glob_match("a*b*c", "aXXbYY"));
}

TEST_CASE("the built-in CLR overlay parses and fixes StackWalk") {
  const FixupSet& set = clr_fixups();
  REQUIRE(set.fixups.size() >= 1);
  CHECK(set.fixups[0].tid == "ClrStackWalk");
  CHECK(!set.fixups[0].reason.empty());

  Diagnostics d;
  auto m = load_manifest(std::string(CLRETW_SOURCE_DIR) + "/manifest/ClrEtwBuiltin.man", d);
  REQUIRE(m);
  REQUIRE(is_clr_manifest(*m));
  apply_fixups(*m, set, d);
  CHECK(d.error_count() == 0);
  std::size_t applied = 0;
  for (const Diagnostic& x : d.items()) {
    if (x.code != "M706" || x.message.find("'ClrStackWalk'") == std::string::npos) continue;
    ++applied;
    CHECK(x.message.find("count '2' -> 'FrameCount'") != std::string::npos);
    REQUIRE(x.related.size() == 1);
    CHECK(x.related[0].message == set.fixups[0].reason);
  }
  CHECK(applied == 4);  // runtime, rundown, stress and private providers
  resolve(*m);
  std::size_t fixed = 0;
  for (const Provider& p : m->providers) {
    const Template* t = p.find_template("ClrStackWalk");
    if (!t) continue;  // the Mono profiler and the sample profiler have no StackWalk
    CHECK(t->fields[4].count_field == 3);
    ++fixed;
  }
  CHECK(fixed == 4);
}

CLRETW_SHARED_CASE("StackWalk is fixed in every provider of the real manifests") {
  const std::string shared = clretw::test::shared_dir_or_skip("../shared/manifests is absent");
  if (shared.empty()) return;
  Diagnostics d;
  auto m = load_manifest(shared + "/manifests/ClrEtwAll.runtime-main.man", d);
  REQUIRE(m);
  apply_fixups(*m, clr_fixups(), d);
  CHECK(d.error_count() == 0);
  // StackWalk in Runtime, Rundown, Stress and Private; padding in GCFitBucketInfo and GCLOHCompact; the 9 fields
  // (a struct and 8 data) .NET Framework's private GCPerHeapHistory (version 2) has and its empty template lacks.
  CHECK(d.items().size() == 6 + 9);
  for (const Provider& p : m->providers) {
    if (p.name != "Microsoft-Windows-DotNETRuntimePrivate") continue;
    const Template* t = p.find_template("GCPerHeapHistory");
    REQUIRE(t);
    REQUIRE(t->fields.size() == 9);
    CHECK(t->fields[0].is_struct);
    CHECK(t->fields[0].count_text == "5");
    CHECK(t->fields[0].members.size() == 10);
    CHECK(t->fields[8].name == "ClrInstanceID");
  }
}

TEST_CASE("a fix-up without a field fills an empty template, and is an error once the template has fields") {
  const std::string man = std::string(CLRETW_TESTS_DIR) + "/manifests/features.man";
  Diagnostics d;
  auto set = load_fixups_text(
      "<fixups>\n  <fixup provider=\"Contoso-*\" template=\"Nested\" reason=\"r\">\n"
      "    <struct name=\"S\" count=\"2\"><data name=\"A\" inType=\"win:UInt32\"/></struct>\n"
      "    <data name=\"B\" inType=\"win:UInt8\"/>\n  </fixup>\n</fixups>",
      "f.xml", d);
  REQUIRE(set);
  CHECK(d.items().empty());
  REQUIRE(set->fixups.size() == 1);
  CHECK(set->fixups[0].insert.size() == 2);
  CHECK(set->fixups[0].insert[0].is_struct);
  // features.man's Nested has fields: the fix-up is refused rather than adding to them.
  auto m = load_manifest(man, d);
  REQUIRE(m);
  apply_fixups(*m, *set, d);
  REQUIRE(d.error_count() == 1);
  CHECK(d.items().back().message.find("no longer empty") != std::string::npos);
  // Emptied, the template is filled: the struct, then the data.
  Diagnostics d2;
  auto m2 = load_manifest(man, d2);
  REQUIRE(m2);
  Template* nested = nullptr;
  for (Provider& p : m2->providers)
    for (Template& t : p.templates)
      if (t.tid == "Nested" && p.name.rfind("Contoso-", 0) == 0) nested = &t;
  REQUIRE(nested);
  nested->fields.clear();
  apply_fixups(*m2, *set, d2);
  CHECK(d2.error_count() == 0);
  REQUIRE(nested->fields.size() == 2);
  CHECK(nested->fields[0].name == "S");
  CHECK(nested->fields[0].members.size() == 1);
  CHECK(nested->fields[1].name == "B");
  // A fix-up without a field that sets attributes (or inserts nothing) is refused when loaded.
  Diagnostics d3;
  load_fixups_text("<fixups><fixup provider=\"P\" template=\"T\" count=\"N\" reason=\"r\"/></fixups>", "g.xml", d3);
  CHECK(d3.error_count() >= 1);
}

TEST_CASE("a fix-up whose template lacks its field is an error; one for a template the manifest lacks is not") {
  Diagnostics d;
  auto set = load_fixups_text(
      "<fixups>\n  <fixup provider=\"Contoso-*\" template=\"Nested\" field=\"Gone\" count=\"N\" reason=\"r\"/>\n"
      "  <fixup provider=\"Contoso-*\" template=\"NotInThisRelease\" field=\"F\" count=\"N\" reason=\"r\"/>\n</fixups>",
      "f.xml", d);
  REQUIRE(set);
  CHECK(d.items().empty());
  auto m = load_manifest(std::string(CLRETW_TESTS_DIR) + "/manifests/features.man", d);
  REQUIRE(m);
  apply_fixups(*m, *set, d);
  REQUIRE(d.error_count() == 1);
  CHECK(d.items()[0].code == "M705");
  CHECK(d.items()[0].file == "f.xml");
  CHECK(d.items()[0].loc.line == 2);
  CHECK(!d.items()[0].hint.empty());
}

TEST_CASE("fix-ups can set types and reach struct members") {
  Diagnostics d;
  auto set = load_fixups_text(
      "<fixups><fixup provider=\"Contoso-*\" template=\"Nested\" field=\"Items.Key\" inType=\"win:UInt32\" "
      "outType=\"win:HexInt32\" reason=\"test\"/></fixups>",
      "f.xml", d);
  REQUIRE(set);
  auto m = load_manifest(std::string(CLRETW_TESTS_DIR) + "/manifests/features.man", d);
  REQUIRE(m);
  apply_fixups(*m, *set, d);
  CHECK(d.error_count() == 0);
  const Field& key = m->providers[0].templates[3].fields[2].members[0];
  CHECK(key.in_type == clretw::InType::UInt32);
  CHECK(key.out_type == clretw::OutType::HexInt32);
}

TEST_CASE("fix-ups insert fields: the padding the runtime writes inside struct elements") {
  Diagnostics d;
  auto set = load_fixups_text(
      "<fixups><fixup provider=\"Contoso-*\" template=\"Nested\" field=\"Items.Key\" reason=\"alignment\">"
      "<data name=\"Padding\" inType=\"win:UInt32\"/></fixup></fixups>",
      "f.xml", d);
  REQUIRE(set);
  REQUIRE(set->fixups.size() == 1);
  CHECK(set->fixups[0].insert.size() == 1);
  auto m = load_manifest(std::string(CLRETW_TESTS_DIR) + "/manifests/features.man", d);
  REQUIRE(m);
  const std::size_t before = m->providers[0].templates[3].fields[2].members.size();
  apply_fixups(*m, *set, d);
  CHECK(d.error_count() == 0);
  const auto& members = m->providers[0].templates[3].fields[2].members;
  REQUIRE(members.size() == before + 1);
  CHECK(members[0].name == "Key");
  CHECK(members[1].name == "Padding");
  CHECK(members[1].in_type == clretw::InType::UInt32);
  bool reported = false;
  for (const Diagnostic& x : d.items()) reported |= x.code == "M706" && x.message.find("'Padding'") != std::string::npos;
  CHECK(reported);
  // Only <data> with a known inType can be inserted.
  Diagnostics bad;
  CHECK(load_fixups_text("<fixups><fixup provider=\"P\" template=\"T\" field=\"F\" reason=\"r\"><data name=\"X\" "
                         "inType=\"win:Int33\"/></fixup></fixups>",
                         "f.xml", bad));
  CHECK(bad.error_count() >= 1);
}

TEST_CASE("malformed fix-up files are located") {
  Diagnostics d;
  CHECK_FALSE(load_fixups_text("<fixups>\n<fixup", "f.xml", d));
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].code == "M001");
  Diagnostics d2;
  auto s = load_fixups_text("<fixups><fixup provider=\"a\" template=\"b\" field=\"c\" reason=\"r\" colour=\"x\"/></fixups>",
                            "g.xml", d2);
  REQUIRE(s);
  CHECK(d2.warning_count() == 1);  // unknown attribute
  CHECK(d2.error_count() == 1);    // sets nothing
}
