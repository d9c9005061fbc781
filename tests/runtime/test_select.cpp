#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "clretw/select.h"

using clretw::EventPattern;

namespace {

// A provider of three events: GC/Start (keyword GC), Method/Load and Method/R2RGetEntryPoint (keyword Jit).
constexpr clretw::KeywordDesc kKeywords[] = {{"GCKeyword", 0x1, {}}, {"JitKeyword", 0x10, {}}, {"NoneKeyword", 0, {}}};
constexpr clretw::EventDesc kEvents[] = {
    {.id = 1, .version = 2, .keywords = 0x1, .symbol = "GCStart_V2", .name = "GC/Start"},
    {.id = 141, .version = 2, .keywords = 0x10, .symbol = "MethodLoad_V2", .name = "Method/Load"},
    {.id = 159, .version = 0, .keywords = 0x10, .symbol = "R2RGetEntryPoint", .name = "Method/R2RGetEntryPoint"},
};
const clretw::ProviderDesc kRuntime{.name = "Microsoft-Windows-DotNETRuntime", .keywords = kKeywords, .events = kEvents};

std::vector<bool> chosen(const char* pattern) {
  const EventPattern p(pattern);
  std::vector<bool> out;
  for (const clretw::EventDesc& e : kEvents) out.push_back(p.selects(kRuntime, e));
  return out;
}

}  // namespace

TEST_CASE("event patterns: display names, symbols, keywords, qualifiers, PROVIDER/NAME globs, any case") {
  using V = std::vector<bool>;
  CHECK(chosen("GC/Start") == V{true, false, false});
  CHECK(chosen("gc/start") == V{true, false, false});
  CHECK(chosen("GC/*") == V{true, false, false});
  CHECK(chosen("GCStart") == V{true, false, false});
  CHECK(chosen("GCStart_V2") == V{true, false, false});
  CHECK(chosen("Method/Load") == V{false, true, false});
  CHECK(chosen("R2RGetEntryPoint") == V{false, false, true});
  CHECK(chosen("Method/*") == V{false, true, true});
  CHECK(chosen("GC") == V{true, false, false});  // the keyword
  CHECK(chosen("jitkeyword") == V{false, true, true});
  CHECK(chosen("None") == V{false, false, false});  // a keyword of no bits chooses nothing
  CHECK(chosen("DotNETRuntime:GC/Start") == V{true, false, false});
  CHECK(chosen("Microsoft-Windows-DotNETRuntime:Method/*") == V{false, true, true});
  CHECK(chosen("*Runtime:GC") == V{true, false, false});
  CHECK(chosen("DotNETRuntimeRundown:GC/Start") == V{false, false, false});
  CHECK(chosen("DotNETRuntime/GC/Start") == V{true, false, false});
  CHECK(chosen("DotNETRuntime/Jit") == V{false, true, true});
  CHECK(chosen("*/GC/Start") == V{true, false, false});
  CHECK(chosen("Microsoft-Windows-DotNETRuntime/Method/*") == V{false, true, true});
  CHECK(chosen("*Runtime/Method/Load*") == V{false, true, false});
  CHECK(chosen("GC/Stop") == V{false, false, false});
}

TEST_CASE("event patterns: events no catalog describes, by the names the trace gives them") {
  const EventPattern work("MyEventSource:Work/*");
  CHECK(work.names_event("MyEventSource", "Work/Start", {}));
  CHECK_FALSE(work.names_event("OtherSource", "Work/Start", {}));
  CHECK(EventPattern("Work/Start").names_event("MyEventSource", "Work/Start", {}));
  CHECK(EventPattern("*/Work/Start").names_event("MyEventSource", "Work/Start", {}));
  CHECK(EventPattern("MyEvent*").names_event("MyEventSource", "Work/Start", {}));  // PROVIDER/NAME
  CHECK_FALSE(EventPattern("Work/Stop").names_event("MyEventSource", "Work/Start", {}));
}

TEST_CASE("event patterns: the part after the qualifier, short provider names, version suffixes") {
  CHECK(EventPattern("DotNETRuntimeRundown:Method/*").unqualified() == "Method/*");
  CHECK(EventPattern("DotNETRuntimeRundown:Method/*").provider_required());
  CHECK_FALSE(EventPattern("GC/Start").provider_required());
  CHECK(clretw::short_provider_name("Microsoft-Windows-DotNETRuntime") == "DotNETRuntime");
  CHECK(clretw::short_provider_name("Microsoft-DotNETCore-SampleProfiler") == "DotNETCore-SampleProfiler");
  CHECK(clretw::short_provider_name("Windows Kernel") == "Windows Kernel");
  CHECK(clretw::without_version_suffix("GCStart_V2") == "GCStart");
  CHECK(clretw::without_version_suffix("GCStart") == "GCStart");
  CHECK(clretw::without_version_suffix("GC_Vx") == "GC_Vx");
  CHECK(clretw::without_version_suffix("_V2") == "_V2");
}

TEST_CASE("nearest names: containing the name first, then a few edits away") {
  const std::vector<std::string> names{"GC/Start", "GC/Stop", "GCStart", "Method/Load", "GC/Start"};
  CHECK(clretw::nearest_names("GC/Strat", names) == std::vector<std::string>{"GC/Start"});
  CHECK(clretw::nearest_names("*start*", names) == std::vector<std::string>{"GCStart", "GC/Start"});
  CHECK(clretw::nearest_names("Nothing/Like/It", names).empty());
}

TEST_CASE("ASCII case: lower case and equality without regard to it") {
  CHECK(clretw::ascii_lower("Microsoft-Windows-DotNETRuntime/GC_V2") == "microsoft-windows-dotnetruntime/gc_v2");
  CHECK(clretw::equal_nocase("Microsoft-Windows-DotNETRuntime", "microsoft-windows-dotnetRUNTIME"));
  CHECK_FALSE(clretw::equal_nocase("Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimeRundown"));
  CHECK_FALSE(clretw::equal_nocase("ab", "ac"));
  CHECK(clretw::equal_nocase("", ""));
  CHECK(clretw::glob_match_nocase("*/gc/*", "Microsoft-Windows-DotNETRuntime/GC/Start"));
  CHECK_FALSE(clretw::glob_match("*/gc/*", "Microsoft-Windows-DotNETRuntime/GC/Start"));
}
