// Decoding costs, measured in one run so their ratios can be compared:
// generated zero-copy views, owning decode(), the dynamic decoder and the
// formatters on the same payloads; and the trace reader's throughput.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/format.h"
#include "clretw/nettrace.h"
#include "clretw/open.h"
#include "bench_main.h"

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;

std::vector<std::uint8_t> allocation_tick() {
  rt::payload::GCAllocationTick_V3 p;
  p.AllocationAmount = 104096;
  p.AllocationKind = rt::GCAllocationKindMap{};
  p.ClrInstanceID = 3;
  p.AllocationAmount64 = 104096;
  p.TypeID = 0x7FFEA911EA28;
  p.TypeName = "System.Collections.Generic.Dictionary`2[System.String,System.Int32]";
  p.HeapIndex = 0;
  p.Address = 0x19A00017FE8;
  return *p.encode(8);
}

std::vector<std::uint8_t> gc_start() {
  rt::payload::GCStart_V2 p;
  p.Count = 42;
  p.Depth = 1;
  p.Reason = rt::GCReasonMap::Induced;
  p.ClrInstanceID = 3;
  return *p.encode(8);
}

std::vector<std::uint8_t> bulk_type() {
  rt::payload::BulkType p;
  for (int i = 0; i < 10; ++i) {
    rt::templates::BulkType_Values v;
    v.TypeID = 0x7FFE00000000 + static_cast<std::uint64_t>(i);
    v.Name = "System.Collections.Generic.List`1";
    v.TypeParameters = {0x7FFE10000000, 0x7FFE20000000};
    v.TypeParameterCount = 2;
    p.Values.push_back(v);
  }
  p.Count = 10;
  p.ClrInstanceID = 3;
  return *p.encode(8);
}

class NullVisitor final : public FieldVisitor {
 public:
  std::uint64_t n = 0;
  void scalar(const Scalar& s) override { n += s.size; }
};

const std::vector<std::uint8_t> kTick = allocation_tick();
const std::vector<std::uint8_t> kStart = gc_start();
const std::vector<std::uint8_t> kBulk = bulk_type();
const RecordDesc& kTickRecord = *rt::provider.find(10, 3)->payload;
const RecordDesc& kStartRecord = *rt::provider.find(1, 2)->payload;
const RecordDesc& kBulkRecord = *rt::provider.find(15, 0)->payload;

// The owning decode() of a payload, and the dynamic decoder's walk of it: the same code for each payload.
template <class P>
void owning(benchmark::State& state, const std::vector<std::uint8_t>& payload) {
  for (auto _ : state) benchmark::DoNotOptimize(P::decode(payload, 8));
}
void dynamic_visit(benchmark::State& state, const RecordDesc& record, const std::vector<std::uint8_t>& payload) {
  NullVisitor v;
  for (auto _ : state) benchmark::DoNotOptimize(visit_fields(record, payload, 8, v));
}

// --- GCAllocationTick v3: a pointer, a string, fields after both ---------------

void View_AllocationTick(benchmark::State& state) {
  for (auto _ : state) {
    auto v = rt::GCAllocationTickView::verify(kTick, 3, 8);
    std::uint64_t x = *v->AllocationAmount64() + *v->TypeID() + v->TypeName()->size() + *v->HeapIndex() + *v->Address();
    benchmark::DoNotOptimize(x);
  }
}
void Owning_AllocationTick(benchmark::State& state) {
  for (auto _ : state) {
    auto p = rt::payload::GCAllocationTick_V3::decode(kTick, 8);
    benchmark::DoNotOptimize(p->TypeName.size());
  }
}
void Dynamic_Visit_AllocationTick(benchmark::State& state) { dynamic_visit(state, kTickRecord, kTick); }
void Dynamic_Tree_AllocationTick(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(decode_dynamic(kTickRecord, kTick, 8));
}
void Json_AllocationTick(benchmark::State& state) {
  std::string out;
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(format_fields(kTickRecord, kTick, 8, out, Format::json));
  }
}
void Plan_AllocationTick(benchmark::State& state) {  // the same text, by the record's FieldPlan
  const auto plan = FieldPlan::make(kTickRecord, 8, Format::json);
  std::string out;
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(plan->format(kTick, out));
  }
}

// --- GCStart v2: fixed size ------------------------------------------------------

void View_GCStart(benchmark::State& state) {
  for (auto _ : state) {
    auto v = rt::GCStartView::verify(kStart, 2, 8);
    std::uint64_t x = v->Count() + *v->Depth() + static_cast<std::uint32_t>(v->Reason()) + *v->ClientSequenceNumber();
    benchmark::DoNotOptimize(x);
  }
}
void Owning_GCStart(benchmark::State& state) { owning<rt::payload::GCStart_V2>(state, kStart); }
void Dynamic_Visit_GCStart(benchmark::State& state) { dynamic_visit(state, kStartRecord, kStart); }

// --- BulkType: 10 variable-size struct elements ----------------------------------

void View_BulkType(benchmark::State& state) {
  for (auto _ : state) {
    auto v = rt::BulkTypeView::verify(kBulk, 0, 8);
    std::uint64_t x = 0;
    for (auto e : v->Values()) x += e.TypeID() + e.Name().size() + e.TypeParameters().size();
    benchmark::DoNotOptimize(x);
  }
}
void Owning_BulkType(benchmark::State& state) { owning<rt::payload::BulkType>(state, kBulk); }
void Dynamic_Visit_BulkType(benchmark::State& state) { dynamic_visit(state, kBulkRecord, kBulk); }

// --- Trace reading ------------------------------------------------------------------

// A trace of simulated runtime events, built once.
const std::string& trace() {
  static const std::string kTrace = [] {
    std::ostringstream out;
    nettrace::Writer w(out);
    nettrace::Metadata tick, start;
    tick.provider_name = start.provider_name = "Microsoft-Windows-DotNETRuntime";
    tick.event_id = 10, tick.version = 3;
    start.event_id = 1, start.version = 2;
    const std::uint32_t t = w.define(tick), s = w.define(start);
    for (int i = 0; i < 200'000; ++i) {
      nettrace::EventSpec e;
      e.metadata_id = i % 10 ? t : s;
      e.payload = i % 10 ? Bytes(kTick) : Bytes(kStart);
      e.thread_id = e.capture_thread_id = 100 + static_cast<std::uint64_t>(i % 4);
      e.timestamp = 1'000'000 + i * 100;
      w.event(e);
      if (i % 1000 == 999) w.sequence_point(e.timestamp);
    }
    w.finish();
    return out.str();
  }();
  return kTrace;
}

void Reader_Events(benchmark::State& state) {
  const std::string& t = trace();
  std::uint64_t events = 0;
  for (auto _ : state) {
    auto r = nettrace::Reader::open_memory(Bytes(reinterpret_cast<const std::uint8_t*>(t.data()), t.size()));
    while (true) {
      auto e = (*r)->next();
      if (!*e) break;
      ++events;
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
void Reader_Json(benchmark::State& state) {
  const std::string& t = trace();
  EventDescriber describer({&clretw::catalog()});
  std::uint64_t events = 0;
  std::string line;
  for (auto _ : state) {
    auto r = nettrace::Reader::open_memory(Bytes(reinterpret_cast<const std::uint8_t*>(t.data()), t.size()));
    while (true) {
      auto e = (*r)->next();
      if (!*e) break;
      line.clear();
      format_event(**e, describer, 0, LineFormat::json, line);
      ++events;
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

// Every event of a real trace of each format, read from memory through the TraceSource
// interface (the same virtual call per event for all three): events/s side by side.
const std::string& shared_file(const std::string& rel) {
  static std::map<std::string, std::string> files;
  auto it = files.find(rel);
  if (it == files.end()) {
    std::ifstream in(std::string(CLRETW_SHARED_DIR) + "/" + rel, std::ios::binary);
    it = files.emplace(rel, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())).first;
  }
  return it->second;
}
void read_source(benchmark::State& state, const std::string& rel) {
  const std::string& f = shared_file(rel);
  if (f.empty()) {
    state.SkipWithError(("../shared/" + rel + " not present").c_str());
    return;
  }
  const Bytes bytes(reinterpret_cast<const std::uint8_t*>(f.data()), f.size());
  std::uint64_t events = 0;
  for (auto _ : state) {
    std::unique_ptr<TraceSource> source;
    if (detect_format(bytes) == TraceFormat::etl) source = std::move(*etl::Reader::open_memory(bytes));
    else source = std::make_unique<NettraceSource>(std::move(*nettrace::Reader::open_memory(bytes)));
    while (true) {
      auto e = source->next();
      if (!e || !*e) break;
      benchmark::DoNotOptimize((*e)->timestamp);
      ++events;
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
void Read_Nettrace(benchmark::State& state) { read_source(state, "traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"); }
void Read_NetPerf(benchmark::State& state) { read_source(state, "traces/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf"); }
void Read_Etl_Compressed(benchmark::State& state) { read_source(state, "etl/net.4.5.2.x64.etl"); }
void Read_Etl(benchmark::State& state) { read_source(state, "etl/gcevents.etl"); }

struct Entry {
  const char* name;
  void (*run)(benchmark::State&);
  bool milliseconds;
};
const Entry kBenchmarks[] = {
    {"View_AllocationTick", View_AllocationTick, false},
    {"Owning_AllocationTick", Owning_AllocationTick, false},
    {"Dynamic_Visit_AllocationTick", Dynamic_Visit_AllocationTick, false},
    {"Dynamic_Tree_AllocationTick", Dynamic_Tree_AllocationTick, false},
    {"Json_AllocationTick", Json_AllocationTick, false},
    {"Plan_AllocationTick", Plan_AllocationTick, false},
    {"View_GCStart", View_GCStart, false},
    {"Owning_GCStart", Owning_GCStart, false},
    {"Dynamic_Visit_GCStart", Dynamic_Visit_GCStart, false},
    {"View_BulkType", View_BulkType, false},
    {"Owning_BulkType", Owning_BulkType, false},
    {"Dynamic_Visit_BulkType", Dynamic_Visit_BulkType, false},
    {"Reader_Events", Reader_Events, true},
    {"Reader_Json", Reader_Json, true},
    {"Read_Nettrace", Read_Nettrace, true},
    {"Read_NetPerf", Read_NetPerf, true},
    {"Read_Etl_Compressed", Read_Etl_Compressed, true},
    {"Read_Etl", Read_Etl, false},
};

}  // namespace

// Google Benchmark's options, plus --iterations=N: run each benchmark exactly N
// times, with no calibration runs, so that instruction counts taken with
// callgrind divide evenly (bench/callgrind.sh).
int main(int argc, char** argv) {
  std::int64_t iterations = 0;
  if (!clretw_bench::take_iterations("clretw_bench", argc, argv, iterations)) return 2;
  for (const Entry& e : kBenchmarks) {
    auto* b = benchmark::RegisterBenchmark(e.name, e.run);
    if (e.milliseconds) b->Unit(benchmark::kMillisecond);
    if (iterations) b->Iterations(iterations);
  }
  return clretw_bench::run_registered(argc, argv);
}
