#include <doctest/doctest.h>

#include "clretw/gen/namer.h"

using namespace clretw::gen;

TEST_CASE("provider namespaces") {
  CHECK(provider_namespace("Microsoft-Windows-DotNETRuntime") == "dotnet_runtime");
  CHECK(provider_namespace("Microsoft-Windows-DotNETRuntimeRundown") == "dotnet_runtime_rundown");
  CHECK(provider_namespace("Microsoft-Windows-DotNETRuntimePrivate") == "dotnet_runtime_private");
  CHECK(provider_namespace("Microsoft-DotNETRuntimeMonoProfiler") == "dotnet_runtime_mono_profiler");
  CHECK(provider_namespace("Contoso-Test-Features") == "contoso_test_features");
  CHECK(provider_namespace("HTTPServer2Events") == "http_server_2_events");
  CHECK(provider_namespace("---") == "provider");
}

TEST_CASE("identifiers keep the manifest's spelling where C++ allows") {
  CHECK(identifier("GCStart_V2") == "GCStart_V2");
  CHECK(identifier("DestoryGCHandle") == "DestoryGCHandle");  // typos are kept: users grep for them
  CHECK(identifier("Bcl Version") == "Bcl_Version");
  CHECK(identifier("2Fast") == "n2Fast");
  CHECK(identifier("class") == "class_");
  CHECK(identifier("_Reserved") == "Reserved");
  CHECK(identifier("a__b") == "a_b");
  CHECK(identifier("") == "unnamed");
}

TEST_CASE("map entry enumerators") {
  CHECK(enumerator("AllocSmall") == "AllocSmall");
  CHECK(enumerator("Small object heap") == "Small_object_heap");
  CHECK(enumerator("  ") == "");
}

TEST_CASE("version suffixes") {
  CHECK(strip_version_suffix("GCStart_V2") == "GCStart");
  CHECK(strip_version_suffix("GCStart") == "GCStart");
  CHECK(strip_version_suffix("DCStartCompleteV2") == "DCStartCompleteV2");
  CHECK(strip_version_suffix("A_Vx") == "A_Vx");
}

TEST_CASE("name scopes hand out unique names deterministically") {
  NameScope s({"reserved"});
  CHECK(s.take("reserved", "_") == "reserved_");
  CHECK(s.take("x", "_") == "x");
  CHECK(s.take("x", "_") == "x_");
  CHECK(s.take("x", "_") == "x_2");
}

TEST_CASE("name scopes never form '__'") {
  NameScope s;
  CHECK(s.take("class_", "_") == "class_");
  CHECK(s.take("class_", "_") == "class_2");
  CHECK(s.take("x_", "_Map") == "x_");
  CHECK(s.take("x_", "_Map") == "x_Map");
}

TEST_CASE("identifier() and enumerator() say why a spelling changed") {
  std::string why = "stale";
  CHECK(identifier("GCStart", &why) == "GCStart");
  CHECK(why.empty());
  CHECK(identifier("class", &why) == "class_");
  CHECK(why == "a C++ keyword");
  CHECK(identifier("linux", &why) == "linux_");
  CHECK(why == "a macro of the standard or system headers");
  CHECK(identifier("2Fast", &why) == "n2Fast");
  CHECK(why == "starts with a digit");
  CHECK(identifier("a__b", &why) == "a_b");
  CHECK(why == "a reserved spelling ('__', or '_' and a capital letter)");
  CHECK(identifier("Bcl Version", &why) == "Bcl_Version");
  CHECK(why == "characters not allowed in identifiers");
  CHECK(identifier("Größe", &why) == "Gr_e");
  CHECK(why == "non-ASCII characters");

  CHECK(enumerator("Small object heap", &why) == "Small_object_heap");
  CHECK(why.empty());  // joining words is the convention, not a change
  CHECK(enumerator("Größe", &why) == "Gr_e");
  CHECK(why == "non-ASCII characters dropped");
  CHECK(enumerator("2nd", &why) == "n2nd");
  CHECK(why == "starts with a digit");
  CHECK(enumerator("!!!", &why).empty());
  CHECK(why == "no ASCII letters or digits");

  CHECK(provider_namespace("Microsoft-Windows-DotNETRuntime", &why) == "dotnet_runtime");
  CHECK(why.empty());
  CHECK(provider_namespace("Class", &why) == "class_");
  CHECK(why == "a C++ keyword");
}

TEST_CASE("name scopes log every name that differs from the manifest's spelling") {
  std::vector<Rename> log;
  NameScope keywords({"None"}, "enum Keywords", &log);
  auto origin = [](std::string what) { return NameOrigin{std::move(what), "x.man", Loc{7, 11}, {}, {}}; };

  CHECK(keywords.take_name("Fast", "_", origin("keyword 'Fast'")) == "Fast");
  CHECK(log.empty());

  CHECK(keywords.take_name("None", "_", origin("keyword 'None'")) == "None_");
  REQUIRE(log.size() == 1);
  CHECK(log[0].from == "None");
  CHECK(log[0].to == "None_");
  CHECK(log[0].collision);
  CHECK(log[0].reason == "'None' is used by the generated code in enum Keywords");
  CHECK(log[0].origin.file == "x.man");
  CHECK(log[0].origin.loc.line == 7);

  CHECK(keywords.take_name("class", "_", origin("keyword 'class'")) == "class_");
  REQUIRE(log.size() == 2);
  CHECK_FALSE(log[1].collision);
  CHECK(log[1].reason == "a C++ keyword");

  CHECK(keywords.take_name("class_", "_", origin("keyword 'class_'")) == "class_2");
  REQUIRE(log.size() == 3);
  CHECK(log[2].collision);
  CHECK(log[2].reason == "'class_' is taken by keyword 'class' in enum Keywords");

  // A class cannot be named like one of its members.
  NameScope ns({}, "namespace p", &log);
  const NameScope members({"View", "Payload"}, "the event type");
  CHECK(ns.take("View", "_4", origin("event 4 'View'"), &members) == "View_4");
  REQUIRE(log.size() == 4);
  CHECK(log[3].reason == "'View' is a member of the event type");

  // Derived names (descriptor tables) are reported too, from the name wanted.
  ns.reserve("kMap_Color", "map 'kMap_Color'");
  CHECK(ns.take("kMap_Color", "_", origin("the descriptor of map 'Color'")) == "kMap_Color_");
  REQUIRE(log.size() == 5);
  CHECK(log[4].from == "kMap_Color");
  CHECK(log[4].reason == "'kMap_Color' is taken by map 'kMap_Color' in namespace p");
}
