// The C++ examples of README.md and docs/LIBRARY.md, compiled and run. Each block between an
// "example begins" and an "example ends" marker must appear, byte for byte, as a ```cpp block of the
// document the marker names (tests/docs/test_doc_examples.cpp checks it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The README's program has its own main(); the test binary has doctest's, so the README's is renamed here
// and called by the test below.
#define main readme_main
// --- README.md example begins ---------------------------------------------------------
#include <clretw/dispatch.h>  // Dispatcher
#include <clretw/events.h>    // the built-in decoders of every provider, and their catalog()
#include <clretw/open.h>      // open_trace: .nettrace, .netperf, .etl

#include <cstdio>
#include <string>

namespace rt = clretw::dotnet_runtime;

// Prints each GC's number and reason; returns how many GCs the trace holds, or -1.
int count_gcs(const char* path) {
  clretw::OpenOptions options;
  options.sorted = true;  // nettrace: time order across threads (default: file order); ETL is always time-merged
  auto source = clretw::open_trace(path, options);
  if (!source) return std::fprintf(stderr, "%s\n", source.error().message().c_str()), -1;
  int gcs = 0;
  clretw::Dispatcher dispatch({&clretw::catalog()});
  dispatch.on<rt::GCStart>([&](const rt::GCStartView& gc, const clretw::EventRecord&) {
    std::printf("GC #%u: %s\n", gc.Count(), std::string(rt::to_string(gc.Reason())).c_str());
    ++gcs;
  });
  for (;;) {
    auto next = (*source)->next();
    if (!next) return std::fprintf(stderr, "%s\n", next.error().message().c_str()), -1;  // damaged
    if (!*next) return gcs;                                                               // the end
    dispatch.dispatch(**next);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: count_gcs TRACE\n"), 2;
  const int gcs = count_gcs(argv[1]);
  if (gcs < 0) return 1;
  std::printf("%d GCs\n", gcs);
  return 0;
}
// --- README.md example ends -----------------------------------------------------------
#undef main

// --- docs/LIBRARY.md example begins ---------------------------------------------------
#include <clretw/describe.h>  // EventDescriber, format_event
#include <clretw/dispatch.h>  // Dispatcher
#include <clretw/events.h>    // the built-in decoders (or your generated <clretw/main/events.h>)
#include <clretw/nettrace.h>  // nettrace::Reader

namespace rt = clretw::dotnet_runtime;

// Prints GCs and allocations; every other event as one JSON line.
int summarize(const std::string& path, std::string& out) {
  auto reader = clretw::nettrace::Reader::open_file(path);
  if (!reader) return std::fprintf(stderr, "%s\n", reader.error().message().c_str()), 2;

  clretw::Dispatcher dispatch({&clretw::catalog()});
  dispatch.on<rt::GCStart>([&](const rt::GCStartView& gc, const clretw::EventRecord&) {
    out += "GC #" + std::to_string(gc.Count()) + " gen " + std::to_string(gc.Depth().value_or(0)) + " " +
           std::string(rt::to_string(gc.Reason())) + "\n";
  });
  dispatch.on<rt::GCAllocationTick>([&](const rt::GCAllocationTickView& a, const clretw::EventRecord&) {
    if (auto type = a.TypeName())  // std::optional: TypeName only exists from version 3 on
      out += "allocated " + type->to_utf8() + "\n";
  });
  clretw::EventDescriber describer({&clretw::catalog()});
  dispatch.on_other([&](const clretw::EventRecord& r, clretw::EventLookup) {
    clretw::format_event(r, describer, (*reader)->info().milliseconds(r.timestamp), clretw::LineFormat::json, out);
    out += "\n";
  });
  dispatch.on_malformed([&](const clretw::EventRecord& r, const clretw::Error& e) {
    out += "malformed event " + std::to_string(r.id) + ": " + e.message() + "\n";
  });

  while (true) {
    auto event = (*reader)->next();
    if (!event) return std::fprintf(stderr, "%s\n", event.error().message().c_str()), 1;  // damaged: stop here
    if (!*event) break;                                                                      // end of trace
    dispatch.dispatch(**event);
  }
  return 0;
}

// Encoding: the owning payload structs write exact wire bytes.
std::vector<std::uint8_t> gc_start_payload() {
  rt::payload::GCStart_V2 gc{.Count = 7, .Depth = 2, .Reason = rt::GCReasonMap::Induced};
  return gc.encode(/*pointer_size=*/8).value();
}

// The fastest path, for a version you know: a payload struct's layout view reads in place at
// offsets fixed at generation time, as a hand-written packed struct would (newer versions only
// append fields, so v3's layout reads them too).
std::uint64_t allocated_bytes(const clretw::EventRecord& r) {
  if (r.provider_guid != rt::provider_guid || r.id != rt::GCAllocationTick::id || r.version < 3 || r.pointer_size != 8)
    return 0;
  auto tick = rt::payload::GCAllocationTick_V3::View<8>::verify(r.payload);  // std::nullopt if malformed
  return tick ? tick->AllocationAmount64() : 0;
}
// --- docs/LIBRARY.md example ends -----------------------------------------------------

// --- docs/LIBRARY.md example begins ---------------------------------------------------
#include <clretw/events.h>  // catalog()
#include <clretw/print.h>   // EventPrinter, PrintOptions

// What `clretw-dump --format json --filter '*/GC/*' TRACE` prints, from a program.
int print_gc_events(const std::string& path, std::ostream& out) {
  clretw::PrintOptions options;
  options.format = clretw::OutputFormat::json;
  options.filters = {"*/GC/*"};
  clretw::EventPrinter printer(options, {&clretw::catalog()}, out);
  return printer.print_file(path);  // 0 read to the end, 1 damaged (the error on stderr), 2 cannot open
}
// --- docs/LIBRARY.md example ends -----------------------------------------------------

namespace {

// A trace with one GC, one allocation and one event without a typed handler.
void write_example_trace(const std::string& path) {
  std::ofstream file(path, std::ios::binary);
  clretw::nettrace::Writer w(file);
  clretw::nettrace::Metadata gc, tick, stop;
  gc.provider_name = tick.provider_name = stop.provider_name = "Microsoft-Windows-DotNETRuntime";
  gc.event_id = 1, gc.version = 2;
  tick.event_id = 10, tick.version = 3;
  stop.event_id = 2, stop.version = 1;
  const auto ids = std::vector<std::uint32_t>{w.define(gc), w.define(tick), w.define(stop)};
  rt::payload::GCAllocationTick_V3 a;
  a.TypeName = "System.String";
  rt::payload::GCEnd_V1 end{.Count = 7, .Depth = 2, .ClrInstanceID = 1};
  const std::vector<std::vector<std::uint8_t>> payloads = {gc_start_payload(), *a.encode(8), *end.encode(8)};
  for (std::size_t i = 0; i < 3; ++i) {
    clretw::nettrace::EventSpec e;
    e.metadata_id = ids[i];
    e.timestamp = 1'000'000 + static_cast<std::int64_t>(i) * 10'000;
    e.payload = payloads[i];
    w.event(e);
  }
}

}  // namespace

TEST_CASE("README.md: count_gcs counts the GCs of a trace, and its main says how it went") {
  const std::string path = "readme-count-gcs.nettrace";
  write_example_trace(path);
  CHECK(count_gcs(path.c_str()) == 1);
  CHECK(count_gcs("no-such-trace.nettrace") == -1);
  char program[] = "count_gcs", trace[] = "readme-count-gcs.nettrace", missing[] = "no-such-trace.nettrace";
  char* good[] = {program, trace, nullptr};
  char* bad[] = {program, missing, nullptr};
  char* usage[] = {program, nullptr};
  CHECK(readme_main(2, good) == 0);
  CHECK(readme_main(2, bad) == 1);
  CHECK(readme_main(1, usage) == 2);
  std::remove(path.c_str());
}

TEST_CASE("docs/LIBRARY.md: summarize prints GCs, allocations and every other event") {
  const std::string path = "readme-example.nettrace";
  write_example_trace(path);
  std::string out;
  CHECK(summarize(path, out) == 0);
  CHECK(out.find("GC #7 gen 2 Induced\n") == 0);
  CHECK(out.find("allocated System.String\n") != std::string::npos);
  CHECK(out.find("\"name\":\"GC/Stop\"") != std::string::npos);
  CHECK(out.find("\"fields\":{\"Count\":7,\"Depth\":2,\"ClrInstanceID\":1}") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("docs/LIBRARY.md: print_gc_events prints the GC events as clretw-dump does") {
  const std::string path = "readme-print.nettrace";
  write_example_trace(path);
  std::ostringstream out;
  CHECK(print_gc_events(path, out) == 0);
  const std::string json = out.str();
  CHECK(std::count(json.begin(), json.end(), '\n') == 3);  // GC/Start, GC/AllocationTick, GC/Stop
  CHECK(json.find("{\"provider\":\"Microsoft-Windows-DotNETRuntime\",\"id\":1,\"version\":2,\"name\":\"GC/Start\"") == 0);
  CHECK(json.find("\"TypeName\":\"System.String\"") != std::string::npos);
  std::ostringstream none;
  CHECK(print_gc_events("no-such-trace.nettrace", none) == 2);
  std::remove(path.c_str());
}

TEST_CASE("docs/LIBRARY.md: allocated_bytes reads a GCAllocationTick through its layout view") {
  rt::payload::GCAllocationTick_V3 a;
  a.AllocationAmount64 = 123456789012;
  a.TypeName = "System.Byte[]";
  const std::vector<std::uint8_t> bytes = *a.encode(8);
  clretw::EventRecord r;
  r.provider_guid = rt::provider_guid;
  r.id = rt::GCAllocationTick::id;
  r.version = 4;  // a newer version: v3's layout reads its first fields
  r.pointer_size = 8;
  r.payload = bytes;
  CHECK(allocated_bytes(r) == 123456789012);
  r.pointer_size = 4;
  CHECK(allocated_bytes(r) == 0);
  r.pointer_size = 8;
  r.payload = clretw::Bytes(bytes.data(), bytes.size() - 1);  // the Address field cut short
  CHECK(allocated_bytes(r) == 0);
}
