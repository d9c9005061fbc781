// clretw-gen config: for every event of the built-in manifests (and of the real
// ClrEtwAll.man files when ../shared is present), the setting printed for it,
// read back from its DOTNET_EventPipeConfig form, records it by the enabling
// rule, written out here independently of config.cpp. Then the examples users
// type: keywords, globs, rundown events, names that match nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shared_cases.h"
#include "clretw/gen/config.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/schema_builder.h"
#include "files.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::slurp;

// One PROVIDER:0xKEYWORDS:LEVEL of a DOTNET_EventPipeConfig value.
struct Setting {
  std::string provider;
  std::uint64_t keywords = 0;
  std::uint32_t level = 0;
};

// Reads a DOTNET_EventPipeConfig value as the runtime does: comma-separated
// providers, each NAME:KEYWORDS(hex):LEVEL(decimal).
std::vector<Setting> parse_eventpipe(std::string text) {
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');
  text.pop_back();
  REQUIRE(text.find('\n') == std::string::npos);  // one line
  std::vector<Setting> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const std::size_t a = item.find(':'), b = item.find(':', a + 1);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    REQUIRE(item.find(':', b + 1) == std::string::npos);
    const std::string keywords = item.substr(a + 1, b - a - 1), level = item.substr(b + 1);
    REQUIRE(keywords.rfind("0x", 0) == 0);
    char* end = nullptr;
    Setting s{item.substr(0, a), std::strtoull(keywords.c_str() + 2, &end, 16), 0};
    REQUIRE(*end == '\0');
    s.level = static_cast<std::uint32_t>(std::strtoul(level.c_str(), &end, 10));
    REQUIRE(*end == '\0');
    out.push_back(s);
  }
  return out;
}

// ETW's and EventPipe's rule, and the rundown's: an enumeration event also needs its rundown's keyword.
bool records(const Provider& p, const Event& e, const Setting& s) {
  const bool keyword = e.keyword_mask == 0 || (e.keyword_mask & s.keywords) != 0;
  const bool level = e.level_value == 0 || s.level == 0 || e.level_value <= s.level;
  if (!keyword || !level || e.keyword_mask == 0) return keyword && level;
  const bool start = e.symbol.find("DCStart") != std::string::npos, end = e.symbol.find("DCEnd") != std::string::npos;
  for (const Keyword& k : p.keywords) {
    if ((start && (k.name == "StartRundownKeyword" || k.name == "StartEnumerationKeyword")) ||
        (end && (k.name == "EndRundownKeyword" || k.name == "EndEnumerationKeyword")))
      return (k.mask & s.keywords) != 0;
  }
  return true;
}

bool kernel_logger(const Provider& p) { return p.guid.to_string() == "9e814aad-3204-11d2-9a82-006008a86939"; }

struct Loaded {
  std::vector<LoadedManifest> loaded;
  std::vector<const Manifest*> manifests;
};

std::unique_ptr<Loaded> load_all(const std::vector<EmbeddedText>& texts) {
  auto l = std::make_unique<Loaded>();
  Diagnostics d;
  for (const EmbeddedText& t : texts) {
    auto m = load_text(t.text, t.name, {.schema = false}, d);
    REQUIRE(m);
    l->loaded.push_back(std::move(*m));
    l->manifests.push_back(l->loaded.back().manifest.get());
  }
  CHECK(d.error_count() == 0);
  return l;
}

const Loaded& builtin() {
  static const std::unique_ptr<Loaded> l = load_all(builtin_manifests());
  return *l;
}

ConfigPlan plan(const std::vector<std::string>& names, const Loaded& l = builtin()) {
  std::string error;
  auto p = plan_config(l.manifests, names, error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

std::string eventpipe(const std::vector<std::string>& names) { return format_config(plan(names), ConfigFormat::eventpipe); }

std::string error_for(const std::vector<std::string>& names) {
  std::string error;
  CHECK_FALSE(plan_config(builtin().manifests, names, error));
  return error;
}

const Provider& provider(const std::string& name) {
  for (const Manifest* m : builtin().manifests)
    for (const Provider& p : m->providers)
      if (p.name == name) return p;
  FAIL("no provider " << name);
  throw 0;
}

std::uint64_t mask_of(const Provider& p, const std::string& keyword) {
  for (const Keyword& k : p.keywords)
    if (k.name == keyword) return k.mask;
  FAIL("no keyword " << keyword);
  return 0;
}

// Every property of one provider's plan that must hold whatever was asked.
void check_plan(const ProviderPlan& pp, const Setting& s) {
  const Provider& p = *pp.provider;
  CHECK(s.provider == p.name);
  CHECK(s.keywords == pp.keywords);
  CHECK(s.level == pp.level);
  std::uint64_t chosen = 0;
  for (const Keyword* k : pp.chosen) chosen |= k->mask;
  CHECK(chosen == pp.keywords);  // the mask printed is the OR of the keywords chosen
  std::uint32_t level = 1;
  for (const Event* e : pp.asked) {
    CAPTURE(e->symbol);
    CAPTURE(e->version);
    CHECK(records(p, *e, s));
    level = std::max(level, e->level_value);
  }
  CHECK(pp.level == level);  // no more verbose than the events need
  std::set<std::uint32_t> asked;
  for (const Event* e : pp.asked) asked.insert(e->value);
  for (const Event* e : pp.extra) {
    CHECK_FALSE(asked.count(e->value));
    CHECK(records(p, *e, s));
  }
}

// Each event of `l`, asked for alone (as an event, and by its qualified symbol), is recorded; returns how many were.
std::size_t check_every_event(const Loaded& l) {
  std::size_t checked = 0;
  for (const Manifest* m : l.manifests)
    for (const Provider& p : m->providers)
      for (const Event& e : p.events) {
        CAPTURE(p.name);
        CAPTURE(e.symbol);
        CAPTURE(e.version);
        const std::string name = p.name + ":" + (e.symbol.empty() ? display_name(p, e) : e.symbol);
        if (kernel_logger(p)) {
          std::string error;
          CHECK_FALSE(plan_config(l.manifests, {name}, error));
          CHECK(error.find("kernel logger") != std::string::npos);
          ++checked;
          continue;
        }
        // The event itself.
        ConfigPlan direct;
        direct.providers.push_back(plan_provider(p, {&e}));
        const std::vector<Setting> s = parse_eventpipe(format_config(direct, ConfigFormat::eventpipe));
        REQUIRE(s.size() == 1);
        CHECK(records(p, e, s[0]));
        check_plan(direct.providers[0], s[0]);

        // By name: every event the name means is recorded, this one among them.
        ConfigPlan named = plan({name}, l);
        const std::vector<Setting> ns = parse_eventpipe(format_config(named, ConfigFormat::eventpipe));
        REQUIRE(ns.size() == named.providers.size());
        bool found = false;
        for (std::size_t i = 0; i < ns.size(); ++i) {
          check_plan(named.providers[i], ns[i]);
          for (const Event* a : named.providers[i].asked) found |= a == &e;
        }
        if (!found) {  // the symbol is also a keyword's name (Contention): the display name reaches the event
          bool keyword_note = false;
          for (const std::string& n : named.notes) keyword_note |= n.find("is read as the keyword") != std::string::npos;
          CHECK(keyword_note);
          named = plan({p.name + ":" + display_name(p, e)}, l);
          for (const ProviderPlan& pp : named.providers)
            for (const Event* a : pp.asked) found |= a == &e;
        }
        CHECK(found);
        ++checked;
      }
  return checked;
}

}  // namespace

TEST_CASE("the embedded manifests are manifest/ClrEtwBuiltin.man and manifest/WindowsKernel.man") {
  const std::vector<EmbeddedText> texts = builtin_manifests();
  REQUIRE(texts.size() == 2);
  CHECK(texts[0].name == "ClrEtwBuiltin.man");
  CHECK(texts[1].name == "WindowsKernel.man");
  for (const EmbeddedText& t : texts) CHECK(t.text == slurp(fs::path(CLRETW_SOURCE_DIR) / "manifest" / t.name));
}

TEST_CASE("the enabling rule") {
  CHECK(session_enables(0, 4, 0, 4));             // no keywords: any session
  CHECK(session_enables(0, 4, 0x8000, 5));
  CHECK(session_enables(0x8001, 4, 0x8000, 4));  // one bit in common
  CHECK_FALSE(session_enables(0x1, 4, 0x8000, 5));
  CHECK_FALSE(session_enables(0x1, 5, 0x1, 4));  // too verbose
  CHECK(session_enables(0x1, 0, 0x1, 1));        // LogAlways
  CHECK(session_enables(0x1, 5, 0x1, 0));        // session level 0: every level
}

TEST_CASE("every event of the built-in manifests, asked for alone, is recorded with the setting printed for it") {
  std::size_t events = 0;
  for (const Manifest* m : builtin().manifests)
    for (const Provider& p : m->providers) events += p.events.size();
  CHECK(events > 500);
  CHECK(check_every_event(builtin()) == events);
}

CLRETW_SHARED_CASE("every event of the real ClrEtwAll.man files is recorded with the setting printed for it") {
  const fs::path dir = fs::path(CLRETW_SHARED_DIR) / "manifests";
  if (!fs::exists(dir / "ClrEtwAll.runtime-main.man")) {
    clretw::test::skip(dir.string() + " is absent");
    return;
  }
  for (const char* name : {"coreclr-1.0", "coreclr-2.1", "coreclr-3.1", "runtime-2020", "runtime-main"}) {
    const fs::path path = dir / (std::string("ClrEtwAll.") + name + ".man");
    CAPTURE(path.string());
    const auto l = load_all({{path.filename().string(), slurp(path)}});
    std::size_t events = 0;
    for (const Provider& p : l->manifests[0]->providers) events += p.events.size();
    CHECK(check_every_event(*l) == events);
  }
}

TEST_CASE("keywords by name") {
  const Provider& rt = provider("Microsoft-Windows-DotNETRuntime");
  // GC has verbose events (GC/AllocationTick): the level is 5.
  for (const char* name : {"GC", "gc", "GCKeyword", "gckeyword", "Microsoft-Windows-DotNETRuntime:GC", "DotNETRuntime:GC"})
    CHECK(eventpipe({name}) == "Microsoft-Windows-DotNETRuntime:0x1:5\n");
  const ConfigPlan loader = plan({"Loader"});
  REQUIRE(loader.providers.size() == 1);
  CHECK(loader.providers[0].keywords == mask_of(rt, "LoaderKeyword"));
  // Several keywords: their OR; every event of each is asked for.
  const ConfigPlan both = plan({"GC", "Exception", "Contention"});
  REQUIRE(both.providers.size() == 1);
  CHECK(both.providers[0].keywords ==
        (mask_of(rt, "GCKeyword") | mask_of(rt, "ExceptionKeyword") | mask_of(rt, "ContentionKeyword")));
  for (const Event& e : rt.events)
    if (e.keyword_mask & mask_of(rt, "ExceptionKeyword"))
      CHECK(std::find(both.providers[0].asked.begin(), both.providers[0].asked.end(), &e) != both.providers[0].asked.end());
  // "Contention" is a keyword and an event's symbol: the keyword, with a note.
  bool note = false;
  for (const std::string& n : both.notes) note |= n.find("'Contention' is read as the keyword ContentionKeyword") == 0;
  CHECK(note);
  // A keyword of another provider, qualified.
  const Provider& rd = provider("Microsoft-Windows-DotNETRuntimeRundown");
  CHECK(eventpipe({"DotNETRuntimeRundown:LoaderRundown"}).rfind("Microsoft-Windows-DotNETRuntimeRundown:0x", 0) == 0);
  // Its events are DCStart and DCEnd ones: without StartRundown or EndRundown, none; a note says what they need.
  const ConfigPlan lr = plan({"Microsoft-Windows-DotNETRuntimeRundown:LoaderRundownKeyword"});
  REQUIRE(lr.providers.size() == 1);
  CHECK(lr.providers[0].keywords == mask_of(rd, "LoaderRundownKeyword"));
  CHECK(lr.providers[0].asked.empty());
  CHECK(lr.providers[0].level == 4);
  REQUIRE(lr.notes.size() == 1);
  CHECK(lr.notes[0].find("with StartRundownKeyword or EndRundownKeyword (the rundown that writes them)") != std::string::npos);
  const ConfigPlan end = plan({"DotNETRuntimeRundown:LoaderRundown", "DotNETRuntimeRundown:EndRundown"});
  REQUIRE(end.providers.size() == 1);
  CHECK(end.providers[0].keywords == (mask_of(rd, "LoaderRundownKeyword") | mask_of(rd, "EndRundownKeyword")));
  std::set<std::string> asked;
  for (const Event* e : end.providers[0].asked) asked.insert(display_name(rd, *e));
  CHECK(asked.count("Loader/ModuleDCStop"));
  CHECK(asked.count("Loader/ModuleDCStart") == 0);
  // The runtime's LoaderKeyword: its own events, not the enumeration (DCStart/DCEnd) ones.
  CHECK(eventpipe({"Loader"}) == "Microsoft-Windows-DotNETRuntime:0x8:4\n");
}

TEST_CASE("events by name and glob") {
  const Provider& rt = provider("Microsoft-Windows-DotNETRuntime");
  CHECK(eventpipe({"GC/Start"}) == "Microsoft-Windows-DotNETRuntime:0x1:4\n");
  for (const char* name : {"gc/start", "GCStart", "GCStart_V2", "Microsoft-Windows-DotNETRuntime/GC/Start",
                           "Microsoft-Windows-DotNETRuntime:GC/Start", "*:GC/Start", "DotNETRuntime:gc/START"})
    CHECK(eventpipe({name}) == "Microsoft-Windows-DotNETRuntime:0x1:4\n");
  // GC/AllocationTick is verbose; TraceEvent's name for it is its symbol without the version.
  CHECK(eventpipe({"GC/AllocationTick"}) == "Microsoft-Windows-DotNETRuntime:0x1:5\n");
  CHECK(eventpipe({"GCAllocationTick"}) == "Microsoft-Windows-DotNETRuntime:0x1:5\n");
  // An event name means every version: GCStart_V1 alone is v1; GC/Start is v0, v1 and v2.
  CHECK(plan({"GCStart_V1"}).providers[0].asked.size() == 1);
  CHECK(plan({"GC/Start"}).providers[0].asked.size() == 3);

  // GC/*: the GC events of the runtime provider (the first that has any), at verbose level;
  // the private and rundown providers' GC events are named in a note.
  const ConfigPlan gc = plan({"GC/*"});
  REQUIRE(gc.providers.size() == 1);
  const ProviderPlan& g = gc.providers[0];
  CHECK(g.provider == &rt);
  CHECK(g.level == 5);
  CHECK((g.keywords & mask_of(rt, "GCKeyword")) != 0);
  for (const Event* e : g.asked) CHECK(display_name(rt, *e).rfind("GC/", 0) == 0);
  REQUIRE(!gc.notes.empty());
  CHECK(gc.notes[0].find("also matches in Microsoft-Windows-DotNETRuntimeRundown, Microsoft-Windows-DotNETRuntimePrivate") !=
        std::string::npos);
  // All providers' GC events, qualified with a glob.
  CHECK(plan({"*:GC/*"}).providers.size() == 3);

  // Two events, one provider: the union of what each needs.
  const ConfigPlan two = plan({"GC/Start", "Exception/Start"});
  REQUIRE(two.providers.size() == 1);
  CHECK(two.providers[0].keywords ==
        (mask_of(rt, "GCKeyword") | mask_of(rt, "ExceptionKeyword") | mask_of(rt, "MonitoringKeyword")));
  CHECK(two.providers[0].level == 4);  // Exception/Start v0 is informational, v1 an error
  // Every keyword of an event: Method/LoadVerbose is written for jitted methods under JitKeyword only,
  // though the manifest gives it JitKeyword NGenKeyword (either enabling it).
  CHECK(plan({"Method/LoadVerbose"}).providers[0].keywords == (mask_of(rt, "JitKeyword") | mask_of(rt, "NGenKeyword")));
  // ... unless a keyword named enables it already.
  CHECK(eventpipe({"Jit", "Method/LoadVerbose"}) == "Microsoft-Windows-DotNETRuntime:0x10:5\n");
  // A provider without keywords: the sample profiler.
  CHECK(eventpipe({"Thread/Sample"}) == "Microsoft-DotNETCore-SampleProfiler:0x0:4\n");
}

TEST_CASE("rundown events need their provider and the rundown's keyword") {
  const Provider& rd = provider("Microsoft-Windows-DotNETRuntimeRundown");
  const std::uint64_t loader = mask_of(rd, "LoaderRundownKeyword"), jit = mask_of(rd, "JitRundownKeyword"),
                      ngen = mask_of(rd, "NGenRundownKeyword"), end = mask_of(rd, "EndRundownKeyword"),
                      start = mask_of(rd, "StartRundownKeyword");
  // MethodDCEndVerbose (JitRundownKeyword NGenRundownKeyword), ModuleDCEnd (LoaderRundownKeyword): the end rundown.
  const ConfigPlan p = plan({"MethodDCEndVerbose", "DotNETRuntimeRundown:ModuleDCEnd"});
  REQUIRE(p.providers.size() == 1);
  CHECK(p.providers[0].provider == &rd);
  CHECK((p.providers[0].keywords & (jit | ngen)) != 0);
  CHECK((p.providers[0].keywords & loader) != 0);
  CHECK((p.providers[0].keywords & end) != 0);
  CHECK((p.providers[0].keywords & start) == 0);
  CHECK(format_config(p, ConfigFormat::eventpipe) == "Microsoft-Windows-DotNETRuntimeRundown:0x20000138:4\n");
  CHECK_FALSE(p.providers[0].start_rundown);
  // The start rundown: StartRundownKeyword, and a note that EventPipe records none.
  const ConfigPlan s = plan({"Microsoft-Windows-DotNETRuntimeRundown/Method/DCStartVerbose"});
  REQUIRE(s.providers.size() == 1);
  CHECK((s.providers[0].keywords & start) != 0);
  CHECK(s.providers[0].start_rundown);
  bool note = false;
  for (const std::string& n : s.notes) note |= n.find("does no start rundown") != std::string::npos;
  CHECK(note);
  // The runtime provider's own enumeration events need EndEnumerationKeyword.
  const Provider& rt = provider("Microsoft-Windows-DotNETRuntime");
  const ConfigPlan e = plan({"MethodDCEndVerboseV2"});
  REQUIRE(e.providers.size() == 1);
  CHECK(e.providers[0].provider == &rt);
  CHECK((e.providers[0].keywords & mask_of(rt, "EndEnumerationKeyword")) != 0);
}

TEST_CASE("what else a setting enables") {
  const ConfigPlan p = plan({"GC/Start"});
  const ProviderPlan& pp = p.providers[0];
  CHECK(pp.extra.size() > 10);  // GCKeyword's other events
  const Provider& rt = *pp.provider;
  std::set<std::string> names;
  for (const Event* e : pp.extra) names.insert(display_name(rt, *e));
  CHECK(names.count("GC/Stop"));
  CHECK(names.count("GC/AllocationTick") == 0);  // verbose: not at level 4
  CHECK(names.count("GC/Start") == 0);
  // Noisiest first: by the reference volume, then by level.
  for (std::size_t i = 1; i < pp.extra.size(); ++i) {
    const auto a = reference_volume(rt.name, display_name(rt, *pp.extra[i - 1])).value_or(0);
    const auto b = reference_volume(rt.name, display_name(rt, *pp.extra[i])).value_or(0);
    CHECK(a >= b);
    if (a == b) CHECK(pp.extra[i - 1]->level_value >= pp.extra[i]->level_value);
  }
  CHECK(reference_volume("Microsoft-Windows-DotNETRuntime", "GC/Start").value_or(0) > 0);
  CHECK_FALSE(reference_volume("Microsoft-Windows-DotNETRuntime", "No/Such"));
  // Asking for one version of an event does not count its other versions as other events.
  const ConfigPlan v1 = plan({"GCStart_V1"});
  for (const Event* e : v1.providers[0].extra) CHECK(e->value != 1);
}

TEST_CASE("names that match nothing") {
  const std::string typo = error_for({"GCStrat"});
  CHECK(typo.find("'GCStrat' names no keyword or event") == 0);
  CHECK(typo.find("nearest: GCStart") != std::string::npos);
  const std::string part = error_for({"AllocationTick"});
  CHECK(part.find("GC/AllocationTick") != std::string::npos);
  CHECK(part.find("GCAllocationTick") != std::string::npos);
  CHECK(error_for({"NoSuch/*"}).find("'NoSuch/*' names no keyword or event") == 0);
  CHECK(error_for({"GC/Start", "Nope"}).find("'Nope'") == 0);  // the first that fails
  CHECK(error_for({"NoProvider:GC/Start"}).find("no provider is named 'NoProvider' (the providers: "
                                                "Microsoft-Windows-DotNETRuntime, ") != std::string::npos);
  CHECK(error_for({"DotNETRuntimeRundown:GC/Start"}).find("of Microsoft-Windows-DotNETRuntimeRundown") !=
        std::string::npos);
  CHECK(error_for({"DotNETRuntime:"}).find("no event or keyword name") != std::string::npos);
  // The kernel logger's events: not a provider keywords enable.
  CHECK(error_for({"Process/Start"}).find("Windows kernel logger (Process/Start)") != std::string::npos);
  const ConfigPlan mixed = plan({"*:Thread/*"});  // the kernel's Thread events left out, with a note
  bool note = false;
  for (const std::string& n : mixed.notes) note |= n.find("Windows kernel logger") != std::string::npos;
  CHECK(note);
  for (const ProviderPlan& pp : mixed.providers) CHECK(pp.provider->name != "Windows Kernel");
}

TEST_CASE("each tool's syntax") {
  const ConfigPlan p = plan({"GC/Start", "MethodDCEndVerbose"});
  CHECK(format_config(p, ConfigFormat::eventpipe) ==
        "Microsoft-Windows-DotNETRuntime:0x1:4,Microsoft-Windows-DotNETRuntimeRundown:0x130:4\n");
  CHECK(format_config(p, ConfigFormat::dotnet_trace) ==
        "dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x1:4,Microsoft-Windows-DotNETRuntimeRundown:0x130:4\n");
  CHECK(format_config(p, ConfigFormat::perfview) ==
        "PerfView collect /Providers:Microsoft-Windows-DotNETRuntime:0x1:4,Microsoft-Windows-DotNETRuntimeRundown:0x130:4\n");
  CHECK(format_config(p, ConfigFormat::logman) ==
        "logman start clretw -p \"Microsoft-Windows-DotNETRuntime\" 0x1 0x4 -o clretw.etl -ets\n"
        "logman update trace clretw -p \"Microsoft-Windows-DotNETRuntimeRundown\" 0x130 0x4 -ets\n"
        "logman stop clretw -ets\n");
  CHECK(format_config(p, ConfigFormat::xperf) ==
        "xperf -start clretw -on e13c0d23-ccbc-4e12-931b-d9cc2eee27e4:0x1:4+a669021c-c450-4609-a035-5af59af4df18:0x130:4 "
        "-f clretw.etl\nxperf -stop clretw\n");
  const std::string wpr = format_config(p, ConfigFormat::wpr);
  CHECK(wpr.find("<EventProvider Id=\"Microsoft-Windows-DotNETRuntimeRundown\" Name=\"a669021c-c450-4609-a035-5af59af4df18\" "
                 "Level=\"4\">\n  <Keywords>\n    <Keyword Value=\"0x130\"/>\n  </Keywords>\n</EventProvider>\n") !=
        std::string::npos);
  const std::string all = format_config(p, ConfigFormat::all);
  for (const char* part : {"2 event(s) asked for, of 2 provider(s)", "keywords 0x1 = GCKeyword 0x1; level 4 (Informational)",
                           "keywords 0x130 = JitRundownKeyword 0x10 | NGenRundownKeyword 0x20 | EndRundownKeyword 0x100", "also enables ",
                           "DOTNET_EventPipeConfig=Microsoft-Windows-DotNETRuntime:0x1:4,", "logman update trace",
                           "xperf -start clretw", "<EventProvider Id=", "Notes:\n"})
    CHECK_MESSAGE(all.find(part) != std::string::npos, part);
  for (const char* name : {"all", "eventpipe", "dotnet-trace", "perfview", "logman", "xperf", "wpr"})
    CHECK(parse_config_format(name));
  CHECK_FALSE(parse_config_format("json"));
}

TEST_CASE("run_config: exit status and streams") {
  std::ostringstream out, err;
  CHECK(run_config({{"GC/Start"}, {}, ConfigFormat::eventpipe}, out, err) == 0);
  CHECK(out.str() == "Microsoft-Windows-DotNETRuntime:0x1:4\n");
  CHECK(err.str().empty());
  out.str(""), err.str("");
  CHECK(run_config({{"GC"}, {}, ConfigFormat::eventpipe}, out, err) == 0);  // a note on stderr
  CHECK(err.str().find("clretw-gen config: note: 'GC' is read in Microsoft-Windows-DotNETRuntime") == 0);
  out.str(""), err.str("");
  CHECK(run_config({{"GCStrat"}, {}, ConfigFormat::all}, out, err) == 2);
  CHECK(out.str().empty());
  CHECK(err.str().find("clretw-gen config: 'GCStrat' names no keyword or event") == 0);
  out.str(""), err.str("");
  // --manifest: that manifest instead of the built-in ones.
  const std::string features = std::string(CLRETW_TESTS_DIR) + "/manifests/features.man";
  CHECK(run_config({{"*"}, {features}, ConfigFormat::eventpipe}, out, err) == 0);
  CHECK(out.str().find(':') != std::string::npos);
  CHECK(run_config({{"GC/Start"}, {features}, ConfigFormat::eventpipe}, out, err) == 2);
  out.str(""), err.str("");
  CHECK(run_config({{"GC/Start"}, {"/nonexistent/x.man"}, ConfigFormat::eventpipe}, out, err) == 2);
  CHECK(run_config({{"GC/Start"}, {std::string(CLRETW_TESTS_DIR) + "/manifests/bad/malformed.man"}, ConfigFormat::eventpipe},
                   out, err) == 1);
}
