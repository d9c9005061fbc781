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
