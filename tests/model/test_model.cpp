// The runtime model (clretw/runtime_model.h) on records encoded by the generated payload structs:
// the GC rules (pauses, suspensions, background GCs, the GC a trace begins inside), heap sizes,
// allocations by type from ticks and samples, JIT tiers and times, exceptions and contention named
// by their stacks; the reports' JSON and CSV; and the shared real traces, whose GC count must be the
// count of their distinct GC/Start events.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "clretw/dispatch.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_private.h"
#include "clretw/open.h"
#include "clretw/report.h"
#include "clretw/runtime_model.h"
#include "records.h"
#include "shared_cases.h"

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;
namespace p = clretw::dotnet_runtime::payload;
namespace pv = clretw::dotnet_runtime_private;

constexpr std::uint32_t kPid = 77;
constexpr std::uint64_t kGcThread = 11;

// Events at times in µs (the model is given ms = t / 1000).
struct Run {
  test::Records recs{kPid};
  RuntimeModel model;
  Symbolizer symbols;

  template <class E, class P>
  void at(double ms, unsigned version, const P& payload, std::uint64_t thread = kGcThread, std::vector<std::uint64_t> stack = {}) {
    const EventRecord& r = recs.add<E>(version, payload, static_cast<std::int64_t>(ms * 1000), thread, std::move(stack));
    symbols.observe(r);
    model.observe(r, ms);
  }
  void suspend(double ms, rt::GCSuspendEEReasonMap reason, std::uint64_t thread = kGcThread) {
    p::GCSuspendEEBegin_V1 s;
    s.Reason = reason;
    at<rt::GCSuspendEEBegin>(ms, 1, s, thread);
  }
  void suspended(double ms, std::uint64_t thread = kGcThread) { at<rt::GCSuspendEEEnd>(ms, 1, p::GCSuspendEEEnd_V1{}, thread); }
  void restarted(double ms, std::uint64_t thread = kGcThread) { at<rt::GCRestartEEEnd>(ms, 1, p::GCRestartEEEnd_V1{}, thread); }
  void start(double ms, std::uint32_t count, std::uint32_t gen, rt::GCTypeMap type, rt::GCReasonMap reason = rt::GCReasonMap::AllocSmall) {
    p::GCStart_V2 g;
    g.Count = count;
    g.Depth = gen;
    g.Type = type;
    g.Reason = reason;
    at<rt::GCStart>(ms, 2, g);
  }
  void end(double ms, std::uint32_t count) {
    p::GCEnd_V1 e;
    e.Count = count;
    at<rt::GCEnd>(ms, 1, e);
  }
  void heap_stats(double ms, std::uint64_t gen0_after, std::uint64_t promoted0) {
    p::GCHeapStats_V2 h;
    h.GenerationSize0 = gen0_after;
    h.GenerationSize1 = 1'000'000;
    h.GenerationSize2 = 2'000'000;
    h.GenerationSize3 = 3'000'000;
    h.GenerationSize4 = 500'000;
    h.TotalPromotedSize0 = promoted0;
    h.TotalPromotedSize1 = 10'000;
    h.PinnedObjectCount = 3;
    at<rt::GCHeapStats>(ms, 2, h);
  }
  void tick(double ms, std::string type, std::uint64_t amount, rt::GCAllocationKindMap kind = rt::GCAllocationKindMap::Small) {
    p::GCAllocationTick_V3 t;
    t.AllocationAmount = static_cast<std::uint32_t>(amount);
    t.AllocationAmount64 = amount;
    t.AllocationKind = kind;
    t.TypeName = std::move(type);
    at<rt::GCAllocationTick>(ms, 3, t, 3);
  }
  // A blocking GC as the runtime writes it: suspend, start, end, heap stats, restart.
  void blocking(double ms, std::uint32_t count, std::uint32_t gen) {
    suspend(ms, rt::GCSuspendEEReasonMap::SuspendForGC);
    suspended(ms + 0.25);
    start(ms + 0.5, count, gen, rt::GCTypeMap::NonConcurrentGC);
    end(ms + 2, count);
    heap_stats(ms + 2.5, 4'000'000, 1'500'000);
    restarted(ms + 3);
  }
};

TEST_CASE("a blocking GC: pause from suspension to restart, suspension, heap sizes after, promoted") {
  Run run;
  run.tick(1, "System.String", 300'000);
  run.blocking(10, 1, 0);
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 1);
  const GcInfo& gc = run.model.gcs()[0];
  CHECK(gc.process_id == kPid);
  CHECK(gc.number == 1);
  CHECK(gc.generation == 0);
  CHECK(gc.type == 0);
  CHECK(gc.reason == 0);
  CHECK(gc.start_ms == doctest::Approx(10.5));
  CHECK(gc.end_ms == doctest::Approx(12));
  CHECK(gc.pause_ms == doctest::Approx(3));
  CHECK(gc.suspend_ms == doctest::Approx(0.25));
  CHECK(gc.complete);
  CHECK(gc.heap_after_mb() == doctest::Approx(10.5));  // 4 + 1 + 2 + 3 + 0.5
  CHECK(gc.promoted_mb() == doctest::Approx(1.51));
  CHECK(gc.pinned_objects == 3);
  CHECK(gc.allocated == 300'000);
  // No PerHeapHistory: the first GC's size before is what was allocated into gen0.
  CHECK(gc.heap_before_mb() == doctest::Approx(0.3));
  const auto sums = run.model.processes();
  REQUIRE(sums.size() == 1);
  CHECK(sums[0].gcs[0] == 1);
  CHECK(sums[0].pause_ms == doctest::Approx(3));
}

TEST_CASE("heap sizes near the 64-bit limit (a damaged trace's) sum without overflow") {
  Run run;
  run.suspend(10, rt::GCSuspendEEReasonMap::SuspendForGC);
  run.start(10.5, 1, 0, rt::GCTypeMap::NonConcurrentGC);
  run.end(12, 1);
  run.heap_stats(12.5, ~std::uint64_t{0}, ~std::uint64_t{0});  // each clamped to INT64_MAX, their sum is not
  run.restarted(13);
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 1);
  CHECK(run.model.gcs()[0].promoted_mb() > 9.2e12);
  CHECK(run.model.gcs()[0].heap_after_mb() > 9.2e12);
}

TEST_CASE("a damaged trace's generation past 2 plots as gen2 in the HTML report") {
  Run run;
  run.suspend(10, rt::GCSuspendEEReasonMap::SuspendForGC);
  run.start(10.5, 1, 0xCCBB0000u, rt::GCTypeMap::NonConcurrentGC);  // negative as an int
  run.end(12, 1);
  run.restarted(13);
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 1);
  std::vector<TraceReport> traces;
  traces.push_back({"damaged.etl", std::move(run.model), ""});
  ReportOptions o;
  o.kinds = *parse_report_kinds("gc");
  o.format = ReportFormat::html;
  std::ostringstream html;
  write_report(html, traces, o);
  CHECK(html.str().find("gen2 blocking") != std::string::npos);  // the pause plot's legend names the bar's kind
}

TEST_CASE("GCs counted as TraceEvent counts them: only inside a suspension, each number once") {
  Run run;
  run.start(1, 5, 0, rt::GCTypeMap::NonConcurrentGC);  // the trace began inside this GC: it is lost
  run.end(2, 5);
  run.restarted(3);
  run.suspend(9, rt::GCSuspendEEReasonMap::SuspendOther);  // not for a GC: no pause is opened
  run.restarted(9.5);
  run.blocking(10, 6, 1);
  run.start(10.6, 6, 1, rt::GCTypeMap::NonConcurrentGC);  // the same GC again (some runtimes write two)
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 1);
  CHECK(run.model.gcs()[0].number == 6);
  CHECK(run.model.gcs()[0].generation == 1);
  CHECK(run.model.gcs()[0].pause_ms == doctest::Approx(3));
}

TEST_CASE("a GC without GC/HeapStats: heap after and promoted unknown (-1), not complete") {
  Run run;
  run.suspend(10, rt::GCSuspendEEReasonMap::SuspendForGC);
  run.suspended(10.1);
  run.start(10.2, 1, 0, rt::GCTypeMap::NonConcurrentGC);
  run.end(11, 1);
  run.restarted(12);
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 1);
  CHECK(run.model.gcs()[0].heap_after_mb() == -1);
  CHECK(run.model.gcs()[0].promoted_mb() == -1);
  CHECK(run.model.gcs()[0].pause_ms == doctest::Approx(2));
  CHECK_FALSE(run.model.gcs()[0].complete);
}

TEST_CASE("a background GC: its initial suspension plus each later GC-prep pause; the gen1 GC it opens with pauses from its start") {
  Run run;
  run.suspend(100, rt::GCSuspendEEReasonMap::SuspendForGC);
  run.suspended(101);
  run.start(102, 2, 2, rt::GCTypeMap::BackgroundGC);
  run.at<pv::BGCBegin>(102.1, 0, pv::payload::BGCBegin{}, 12);  // its phases, from the private provider
  run.start(103, 3, 1, rt::GCTypeMap::NonConcurrentGC);  // the ephemeral GC at the background GC's start
  run.end(104, 3);
  run.heap_stats(104.5, 1'000'000, 200'000);
  run.at<pv::BGC1stNonConEnd>(104.8, 0, pv::payload::BGC1stNonConEnd{}, 12);
  run.restarted(105);
  run.at<pv::BGC1stConEnd>(150, 0, pv::payload::BGC1stConEnd{}, 12);
  // A foreground pause for the background GC's preparation, on another thread.
  run.suspend(200, rt::GCSuspendEEReasonMap::SuspendForGCPrep, 12);
  run.suspended(200.5, 12);
  run.at<pv::BGC2ndNonConBegin>(200.6, 0, pv::payload::BGC2ndNonConBegin{}, 12);
  run.at<pv::BGC2ndNonConEnd>(200.8, 0, pv::payload::BGC2ndNonConEnd{}, 12);
  run.restarted(201, 12);
  run.at<pv::BGC2ndConBegin>(201.5, 0, pv::payload::BGC2ndConBegin{}, 12);
  run.at<pv::BGC2ndConEnd>(240, 0, pv::payload::BGC2ndConEnd{}, 12);
  run.end(250, 2);
  run.heap_stats(251, 2'000'000, 300'000);
  run.model.finish(run.symbols);
  REQUIRE(run.model.gcs().size() == 2);
  const GcInfo& bgc = run.model.gcs()[0];
  const GcInfo& gen1 = run.model.gcs()[1];
  CHECK(bgc.type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC));
  CHECK(bgc.suspend_ms == doctest::Approx(1 + 0.5));
  CHECK(bgc.pause_ms == doctest::Approx(1 + 1));  // 100 -> 101, then 200 -> 201
  CHECK(bgc.bgc_final_pause_ms == doctest::Approx(1));
  CHECK(bgc.complete);
  CHECK(bgc.heap_after_mb() == doctest::Approx(8.5));
  CHECK(bgc.bgc_phases_ms[0] == doctest::Approx(2.7));   // initial mark: BGCBegin -> 1st non-concurrent end
  CHECK(bgc.bgc_phases_ms[1] == doctest::Approx(45.2));  // concurrent mark
  CHECK(bgc.bgc_phases_ms[2] == doctest::Approx(0.2));   // final mark
  CHECK(bgc.bgc_phases_ms[3] == doctest::Approx(38.5));  // concurrent sweep
  CHECK(gen1.bgc_phases_ms[0] == -1);
  CHECK(gen1.generation == 1);
  CHECK(gen1.pause_ms == doctest::Approx(2));  // 103 -> 105
  CHECK(gen1.suspend_ms == 0);
  CHECK(gen1.complete);
  const auto sums = run.model.processes();
  REQUIRE(sums.size() == 1);
  CHECK(sums[0].background_gcs == 1);
  CHECK(sums[0].gcs[1] == 1);
  CHECK(sums[0].gcs[2] == 1);
}

TEST_CASE("allocations by type: ticks weigh their amount, samples what they stand for; samples win when both come") {
  SUBCASE("ticks") {
    Run run;
    run.tick(1, "System.String", 100'000);
    run.tick(2, "System.String", 100'500);
    run.tick(3, "System.Byte[]", 90'000, rt::GCAllocationKindMap::Large);
    run.model.finish(run.symbols);
    const auto rows = run.model.allocations();
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].type == "System.String");
    CHECK(rows[0].bytes == doctest::Approx(200'500));
    CHECK(rows[0].events == 2);
    CHECK(rows[1].large_bytes == doctest::Approx(90'000));
  }
  SUBCASE("samples") {
    Run run;
    run.tick(1, "System.String", 100'000);
    p::AllocationSampled s;
    s.TypeName = "Big[]";
    s.ObjectSize = 1'000'000;  // sampled almost surely: stands for about itself
    run.at<rt::AllocationSampled>(2, 0, s, 3);
    s.TypeName = "Small";
    s.ObjectSize = 24;  // sampled with probability ~24/102400: stands for ~102,400 bytes
    run.at<rt::AllocationSampled>(3, 0, s, 3);
    run.model.finish(run.symbols);
    const auto rows = run.model.allocations();
    REQUIRE(rows.size() == 2);  // the tick is left out: the process has samples
    CHECK(rows[0].type == "Big[]");
    CHECK(rows[0].bytes == doctest::Approx(1'000'000 / (1 - std::exp(-1'000'000 / 102'400.0))));
    CHECK(rows[1].type == "Small");
    CHECK(rows[1].bytes == doctest::Approx(102'412).epsilon(0.001));
  }
}

TEST_CASE("JIT: JittingStarted to Method/Load on the same thread, the tier from MethodFlags, IL size from the start") {
  Run run;
  p::MethodJittingStarted_V1 js;
  js.MethodID = 0x10;
  js.MethodILSize = 42;
  js.MethodNamespace = "App.Worker";
  js.MethodName = "Run";
  js.MethodSignature = "void  ()";
  run.at<rt::MethodJittingStarted>(5, 1, js, 20);
  js.MethodID = 0x11;
  js.MethodName = "Inner";
  js.MethodILSize = 7;
  run.at<rt::MethodJittingStarted>(5.5, 1, js, 21);  // another thread, never loaded
  p::MethodLoadVerbose_V1 load;
  load.MethodID = 0x10;
  load.MethodSize = 300;
  load.MethodFlags = static_cast<rt::MethodFlagsMap>(0x8 | (4u << 7));  // jitted, OptimizedTier1
  load.MethodNamespace = "App.Worker";
  load.MethodName = "Run";
  run.at<rt::MethodLoadVerbose>(7.25, 1, load, 20);
  run.model.finish(run.symbols);
  REQUIRE(run.model.methods().size() == 2);
  const JitMethod& m = run.model.methods()[0];
  CHECK(m.name == "App.Worker.Run()");  // (method_display_name: the arguments of the signature)
  CHECK(m.il_size == 42);
  CHECK(m.native_size == 300);
  CHECK(m.tier == JitTier::tier1);
  CHECK(std::string(jit_tier_name(m.tier)) == "OptimizedTier1");
  CHECK(m.jit_ms == doctest::Approx(2.25));
  CHECK(m.complete);
  CHECK_FALSE(run.model.methods()[1].complete);
  CHECK(run.model.processes()[0].jitted == 1);
}

TEST_CASE("exceptions by type, with the first message and the throwing method past the runtime's dispatch; contention by waiting frame") {
  Run run;
  p::MethodLoadVerbose_V1 load;
  load.MethodStartAddress = 0x5000;
  load.MethodSize = 0x100;
  load.MethodFlags = static_cast<rt::MethodFlagsMap>(0x8);
  load.MethodNamespace = "System.Runtime.EH";
  load.MethodName = "DispatchEx";
  run.at<rt::MethodLoadVerbose>(1, 1, load);
  load.MethodStartAddress = 0x6000;
  load.MethodNamespace = "App.Orders";
  load.MethodName = "Save";
  run.at<rt::MethodLoadVerbose>(1, 1, load);
  load.MethodStartAddress = 0x7000;
  load.MethodNamespace = "System.Threading.Monitor";
  load.MethodName = "Enter";
  run.at<rt::MethodLoadVerbose>(1, 1, load);
  p::ExceptionThrown_V1 e;
  e.ExceptionType = "System.FormatException";
  e.ExceptionMessage = "bad input";
  run.at<rt::ExceptionThrown>(2, 1, e, 5, {0x5010, 0x6010});
  e.ExceptionMessage = "worse input";
  run.at<rt::ExceptionThrown>(3, 1, e, 5, {0x5010, 0x6020});
  e.ExceptionType = "System.IO.IOException";
  run.at<rt::ExceptionThrown>(4, 1, e, 5);
  p::ContentionStart_V2 cs;
  cs.LockID = 0xABC;
  run.at<rt::Contention>(10, 2, cs, 6, {0x7010, 0x6030});
  p::ContentionStop_V1 stop;
  stop.DurationNs = 1'500'000;
  run.at<rt::ContentionStop>(12, 1, stop, 6);
  run.at<rt::Contention>(20, 2, cs, 6, {0x7010, 0x6030});
  run.at<rt::ContentionStop>(20.5, 0, p::ContentionStop{}, 6);  // no duration field: stop - start
  run.model.finish(run.symbols);
  const auto ex = run.model.exceptions();
  REQUIRE(ex.size() == 2);
  CHECK(ex[0].type == "System.FormatException");
  CHECK(ex[0].count == 2);
  CHECK(ex[0].message == "bad input");
  REQUIRE(ex[0].sites.size() == 1);
  CHECK(ex[0].sites[0].frame == "App.Orders.Save");
  CHECK(ex[0].sites[0].count == 2);
  CHECK(ex[1].sites[0].frame == "(no stack)");
  const auto locks = run.model.contention();
  REQUIRE(locks.size() == 1);
  CHECK(locks[0].lock_id == 0xABC);
  CHECK(locks[0].count == 2);
  CHECK(locks[0].total_ms == doctest::Approx(2.0));
  CHECK(locks[0].max_ms == doctest::Approx(1.5));
  CHECK(locks[0].frame == "App.Orders.Save");
}

TEST_CASE("reports: JSON lines carry table, trace and the GC columns; CSV holds one table; a trace without GCs says so") {
  Run run;
  run.blocking(10, 1, 0);
  run.model.finish(run.symbols);
  std::vector<TraceReport> traces;
  traces.push_back({"a.nettrace", std::move(run.model), ""});
  traces.push_back({"empty.nettrace", RuntimeModel{}, ""});
  ReportOptions o;
  o.kinds = *parse_report_kinds("gc");
  o.format = ReportFormat::json;
  std::ostringstream json;
  write_report(json, traces, o);
  const std::string line = json.str();
  for (const char* key : {"\"table\":\"gc\"", "\"trace\":\"a.nettrace\"", "\"pid\":77", "\"gc\":1", "\"generation\":0",
                          "\"type\":\"NonConcurrentGC\"", "\"reason\":\"AllocSmall\"", "\"start_ms\":10.5000",
                          "\"pause_ms\":3.0000", "\"suspend_ms\":0.2500", "\"heap_after_mb\":10.500000",
                          "\"promoted_mb\":1.510000", "\"heap_before_mb\":"})
    CHECK_MESSAGE(line.find(key) != std::string::npos, key);
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  o.format = ReportFormat::csv;
  std::ostringstream csv;
  write_report(csv, traces, o);
  CHECK(csv.str().rfind("trace,pid,gc,generation,type,reason,", 0) == 0);
  o.kinds = *parse_report_kinds("gc,alloc");
  CHECK_THROWS_AS(write_report(csv, traces, o), std::invalid_argument);
  o.format = ReportFormat::text;
  traces.erase(traces.begin());
  std::ostringstream text;
  write_report(text, traces, o);
  CHECK(text.str().find("no GC events in the trace") != std::string::npos);
  CHECK(text.str().find("no allocation events in the trace") != std::string::npos);
  CHECK_FALSE(parse_report_kinds("gc,nope"));
  CHECK(parse_report_kinds("all") == unsigned{kReportAll});
}

TEST_CASE("a figure is not recorded when it is zero and no runtime event carries its keyword at its level; the summary says which keyword") {
  test::Records recs(kPid);
  RuntimeModel model;
  // An event of the runtime provider with these keywords at this level (GC/Start outside a suspension: no GC).
  auto runtime_event = [&](std::uint64_t keywords, std::uint8_t level) {
    p::GCStart_V2 g;
    EventRecord r = recs.add<rt::GCStart>(2, g, 1000);
    r.keywords = keywords;
    r.level = level;
    return r;
  };
  model.observe(runtime_event(0x1, 4), 1);      // GC at informational: GCs recorded (none happened), allocations not
  model.observe(runtime_event(0x10, 5), 2);     // Jit at verbose: methods jitted and JIT time recorded
  model.observe_keywords(runtime_event(0x4000, 4));  // Contention, kept from observe() by a filter: still seen
  // The private provider's keywords are its own: its 0x2000000000 is not CompilationDiagnostic.
  EventRecord priv = runtime_event(0x2000000000, 4);
  priv.provider_guid = pv::provider_guid;
  model.observe(priv, 3);
  // An exception thrown, its event carrying no keyword (as Contention v0 does): a count is recorded whatever the keywords.
  p::ExceptionThrown_V1 e;
  e.ExceptionType = "System.FormatException";
  model.observe(recs.add<rt::ExceptionThrown>(1, e, 4000), 4);
  Symbolizer symbols;
  model.finish(symbols);
  const auto processes = model.processes();
  REQUIRE(processes.size() == 1);
  const ProcessSummary& s = processes[0];
  CHECK(s.recorded(Figure::gcs));
  CHECK_FALSE(s.recorded(Figure::allocations));
  CHECK(s.recorded(Figure::jit_methods));
  CHECK(s.recorded(Figure::jit_time));
  CHECK_FALSE(s.recorded(Figure::r2r_methods));
  CHECK(s.recorded(Figure::exceptions));
  CHECK(s.recorded(Figure::contention));
  CHECK_FALSE(s.recorded(Figure::thread_pool));
  CHECK(figure_keyword_text(Figure::allocations) ==
        "keyword GC (0x1) at level 5 (verbose), or AllocationSampling (0x80000000000) at level 4 (informational)");

  std::vector<TraceReport> traces;
  traces.push_back({"k.nettrace", std::move(model), ""});
  ReportOptions o;
  o.kinds = *parse_report_kinds("summary,threadpool");
  std::ostringstream text;
  write_report(text, traces, o);
  const std::string t = text.str();
  for (const char* line :
       {"  GCs: 0 (gen0 0, gen1 0, gen2 0; 0 background, 0 induced)\n",
        "  allocated: not recorded\n",
        "  JIT: 0 methods in 0.0 ms; precompiled (R2R) methods used: not recorded\n",
        "  exceptions: 1; lock contention: 0 (0.0 ms); thread pool: not recorded\n",
        "  allocations not recorded: the trace has no event of keyword GC (0x1) at level 5 (verbose), or AllocationSampling "
        "(0x80000000000) at level 4 (informational) or a more verbose level; record either for this figure\n",
        "  precompiled (R2R) methods not recorded: the trace has no event of keyword CompilationDiagnostic (0x2000000000) at "
        "level 4 (informational) or a more verbose level; record it for this figure\n",
        "  thread pool not recorded: the trace has no event of keyword Threading (0x10000) at level 4 (informational) or a more "
        "verbose level; record it for this figure\n",
        "no thread pool events in the trace (keyword Threading (0x10000) at level 4 (informational) gives them; the trace has "
        "no event of it: it was not recorded)\n"})
    CHECK_MESSAGE(t.find(line) != std::string::npos, line << "\nnot in:\n" << t);
  CHECK(t.find("GCs not recorded") == std::string::npos);
  CHECK(t.find("exceptions not recorded") == std::string::npos);
  o.kinds = kReportSummary;
  o.format = ReportFormat::json;
  std::ostringstream json;
  write_report(json, traces, o);
  CHECK(json.str().find("\"not_recorded\":\"allocated_mb r2r_methods max_workers\"}") != std::string::npos);
  o.format = ReportFormat::html;
  std::ostringstream html;
  write_report(html, traces, o);
  CHECK(html.str().find("<p class=\"empty\">Not recorded: precompiled (R2R) methods: the trace has no event of keyword "
                        "CompilationDiagnostic (0x2000000000) at level 4 (informational) or a more verbose level; record it "
                        "for this figure.</p>") != std::string::npos);

  // A trace whose runtime events carry no keywords at all says nothing of them: every zero is a zero.
  Run plain;
  plain.blocking(10, 1, 0);
  plain.model.finish(plain.symbols);
  CHECK(plain.model.processes()[0].not_recorded == 0);
}

TEST_CASE("pause percentiles by nearest rank") {
  std::vector<GcInfo> gcs(10);
  for (std::size_t i = 0; i < gcs.size(); ++i) gcs[i].pause_ms = static_cast<double>(10 - i);
  std::vector<const GcInfo*> ptrs;
  for (const GcInfo& g : gcs) ptrs.push_back(&g);
  CHECK(pause_percentile(ptrs, 50) == 5);
  CHECK(pause_percentile(ptrs, 90) == 9);
  CHECK(pause_percentile(ptrs, 99) == 10);
  CHECK(pause_percentile(ptrs, 0) == 1);
  CHECK(pause_percentile({}, 50) == 0);
}

CLRETW_SHARED_CASE("the shared real traces: as many GCs as distinct GC/Start events (process, number), read to the end") {
  {
    for (const char* name : {"traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace", "traces/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf",
                             "traces/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
                             "traces/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace", "etl/gcevents.etl",
                             "etl/net.4.5.2.x64.etl"}) {
      CAPTURE(name);
      const std::filesystem::path path = std::filesystem::path(CLRETW_SHARED_DIR) / name;
      if (!std::filesystem::exists(path)) {
        test::skip(path.string() + " is absent");
        return;
      }
      OpenOptions oo;
      oo.sorted = true;
      oo.keep = &RuntimeModel::wants;
      auto source = open_trace(path.string(), oo);
      REQUIRE(source);
      RuntimeModel model;
      Symbolizer symbols;
      std::set<std::pair<std::uint32_t, std::uint32_t>> starts;
      Dispatcher d{&clretw::catalog()};
      d.on<rt::GCStart>([&](const rt::GCStartView& v, const EventRecord& r) { starts.insert({r.process_id, v.Count()}); });
      for (;;) {
        auto next = (*source)->next();
        REQUIRE(next);
        if (!*next) break;
        symbols.observe(**next);
        model.observe(**next, (*source)->milliseconds((*next)->timestamp));
        d.dispatch(**next);
      }
      model.finish(symbols);
      CHECK(model.gcs().size() == starts.size());
      std::size_t unmatched = 0, negative = 0;
      for (const GcInfo& gc : model.gcs()) {
        unmatched += starts.count({gc.process_id, gc.number}) != 1;
        negative += gc.pause_ms < 0 || gc.suspend_ms < 0;
      }
      CHECK(unmatched == 0);
      CHECK(negative == 0);
    }
  }
}

}  // namespace
