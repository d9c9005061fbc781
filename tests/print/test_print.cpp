// clretw/print.h on traces written with the nettrace writer (and the shared ETL files): the
// filters, the stats reconciliation line, resolve's first pass, manifests a trace carries (mid-trace,
// loaded or not), progress only on a terminal, damage reported after everything before it.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "clretw/catalog.h"
#include "clretw/dotnet_core_sample_profiler.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/nettrace.h"
#include "clretw/open.h"
#include "clretw/print.h"
#include "metadata.h"

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;
namespace rd = clretw::dotnet_runtime_rundown;
namespace sp = clretw::dotnet_core_sample_profiler;

constexpr std::int64_t kSync = 1'000'000, kPerMs = 10'000;  // the writer's sync time and 10 MHz clock
constexpr std::uint64_t kMethodStart = 0x7F0000001000, kModule = 0x7F0000500000;

// A small trace: per millisecond 1..10 a GC/Start (level 4, keywords GC 0x1) and, at the even
// ones, an EventSource event Shop-Api/OrderPlaced (id 7, level 2, keywords 0x8) with a stack in
// Shop.Orders.Place, a method the trace names only in its rundown, at the end. Then one runtime
// event no catalog knows (id 999) and one GC/Start cut to 2 payload bytes (malformed).
std::string small_trace() {
  std::ostringstream out;
  nettrace::WriterOptions wo;
  wo.block_bytes = 256;  // several event blocks: damage at the end leaves the first ones whole
  nettrace::Writer w(out, wo);
  const nettrace::Metadata gc = clretw::test::clr_gc_start();
  const std::uint32_t gc_id = w.define(gc);
  nettrace::Metadata order =
      clretw::test::event_source_event("Shop-Api", 7, "OrderPlaced", {{"OrderId", nettrace::TypeCode::Int64, {}, {}, 0}});
  order.level = 2;
  order.keywords = 0x8;
  const std::uint32_t order_id = w.define(order);
  nettrace::Metadata unknown = gc;
  unknown.event_id = 999;
  unknown.version = 0;
  const std::uint32_t unknown_id = w.define(unknown);
  nettrace::Metadata rundown;
  rundown.provider_name = "Microsoft-Windows-DotNETRuntimeRundown";
  rundown.event_id = rd::MethodDCEndVerbose::id;
  rundown.version = 2;
  rundown.level = 4;
  const std::uint32_t rundown_id = w.define(rundown);
  const std::uint32_t stack = w.stack({kMethodStart + 0x10, 0x7F0000900000});

  auto event = [&](std::uint32_t metadata, std::int64_t ms, std::vector<std::uint8_t> payload, std::uint32_t stack_id = 0) {
    nettrace::EventSpec e;
    e.metadata_id = metadata;
    e.thread_id = e.capture_thread_id = 11;
    e.timestamp = kSync + ms * kPerMs;
    e.stack_id = stack_id;
    e.payload = std::move(payload);
    w.event(e);
  };
  for (std::uint32_t ms = 1; ms <= 10; ++ms) {
    rt::payload::GCStart_V2 g;
    g.Count = ms;
    event(gc_id, ms, *g.encode(8));
    if (ms % 2 == 0) {
      std::vector<std::uint8_t> p;
      ByteWriter b(p);
      b.put<std::int64_t>(1000 + ms);
      event(order_id, ms, p, stack);
    }
  }
  event(unknown_id, 11, {1, 2, 3});
  event(gc_id, 12, {1, 2});
  rd::payload::MethodDCEndVerbose_V2 m;
  m.MethodID = 0x99;
  m.ModuleID = kModule;
  m.MethodStartAddress = kMethodStart;
  m.MethodSize = 0x100;
  m.MethodNamespace = "Shop.Orders";
  m.MethodName = "Place";
  m.MethodSignature = "void  (int32)";
  event(rundown_id, 13, *m.encode(8));
  w.finish();
  return out.str();
}

// A file in the build's temporary directory, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& name, const std::string& bytes)
      : path((std::filesystem::temp_directory_path() / ("clretw-test-print-" + name)).string()) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::string path;
};

struct Printed {
  int status = -1;
  std::string out, err;
  std::vector<std::string> lines() const {
    std::vector<std::string> v;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }
};

Printed print_file(const std::string& path, PrintOptions o, std::vector<const Catalog*> catalogs = {&clretw::catalog()}) {
  o.progress = false;
  Printed p;
  std::ostringstream out, err;
  EventPrinter printer(std::move(o), std::move(catalogs), out, err);
  p.status = printer.print_file(path);
  p.out = out.str();
  p.err = err.str();
  return p;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A nettrace source that lists a carried manifest after its `at`-th event, as an ETL source does
// when a manifest's last chunk comes.
class CarryingSource final : public TraceSource {
 public:
  CarryingSource(std::unique_ptr<nettrace::Reader> r, std::size_t at, std::vector<CarriedManifest> manifests)
      : inner_(std::move(r)), at_(at), manifests_(std::move(manifests)) {}
  Result<const EventRecord*> next() override {
    auto r = inner_.next();
    if (r && *r && ++n_ == at_)
      for (CarriedManifest& m : manifests_) carry(std::move(m));
    return r;
  }
  double milliseconds(std::int64_t t) const noexcept override { return inner_.milliseconds(t); }
  std::uint64_t position() const noexcept override { return inner_.position(); }
  std::uint64_t size() const noexcept override { return inner_.size(); }
  std::string summary() const override { return inner_.summary(); }
  SourceCounts counts() const override { return inner_.counts(); }

 private:
  NettraceSource inner_;
  std::size_t at_, n_ = 0;
  std::vector<CarriedManifest> manifests_;
};

}  // namespace

TEST_CASE("print: text lines of every event, unknown and malformed ones too") {
  TempFile f("all.nettrace", small_trace());
  const Printed p = print_file(f.path, {});
  CHECK(p.status == 0);
  CHECK(p.err.empty());
  const auto lines = p.lines();
  REQUIRE(lines.size() == 18);  // 10 + 5 + 1 + 1 + the rundown
  CHECK(lines[0].find("Microsoft-Windows-DotNETRuntime/GC/Start (1 v2)") != std::string::npos);
  CHECK(lines[0].find("Count=1 ") != std::string::npos);
  CHECK(count(p.out, "Shop-Api/OrderPlaced (7 v0)") == 5);
  CHECK(count(p.out, "OrderId=1004") == 1);
  CHECK(count(p.out, "[unknown event, 3 payload bytes]") == 1);
  CHECK(count(p.out, "[malformed: ") == 1);
}

TEST_CASE("print: filters - globs, ids, keywords, level, time range, limit") {
  TempFile f("filters.nettrace", small_trace());
  auto lines = [&](PrintOptions o) { return print_file(f.path, std::move(o)).lines().size(); };
  PrintOptions o;
  o.filters = {"*/GC/*"};
  CHECK(lines(o) == 11);  // ten GC/Start and the malformed one
  o.filters = {"Shop-*/Order*", "*/Method/DCStopVerbose"};
  CHECK(lines(o) == 6);
  o.filters = {"*/GC"};  // a glob matches the whole Provider/Name
  CHECK(lines(o) == 0);
  o = {};
  o.ids = {7, 999};
  CHECK(lines(o) == 6);
  o = {};
  o.keywords = 0x8;
  CHECK(lines(o) == 5);
  o.keywords = 0x9;  // any of the bits: all but the rundown
  CHECK(lines(o) == 17);
  o = {};
  o.level = 2;  // this level or more severe
  CHECK(lines(o) == 5);
  o = {};
  o.from = 3;
  o.to = 6;  // both ends included: GC/Start at 3, 4, 5, 6; OrderPlaced at 4 and 6
  CHECK(lines(o) == 6);
  o.filters = {"*/GC/Start"};
  o.limit = 2;
  const Printed p = print_file(f.path, o);
  REQUIRE(p.lines().size() == 2);
  CHECK(p.lines()[1].find("Count=4 ") != std::string::npos);
}

TEST_CASE("print: stats - the table and the reconciliation line") {
  TempFile f("stats.nettrace", small_trace());
  PrintOptions o;
  o.stats = true;
  const Printed p = print_file(f.path, o);
  CHECK(p.status == 0);
  CHECK(p.out.find(f.path + ": nettrace format 5, pointer size 8, pid 4242, ") == 0);
  CHECK(p.out.find("        11  Microsoft-Windows-DotNETRuntime/GC/Start (1 v2, 1 v2 malformed)\n") != std::string::npos);
  CHECK(p.out.find("         5  Shop-Api/OrderPlaced (7 v0)\n") != std::string::npos);
  CHECK(p.out.find("events: 18 in file, 18 counted = 16 decoded + 1 unknown + 1 malformed\n") != std::string::npos);
  CHECK(p.out.find("events with a stack: 5;") != std::string::npos);
  o.filters = {"*/GC/*"};  // the line reconciles what was counted
  CHECK(print_file(f.path, o).out.find("events: 18 in file, 11 counted = 10 decoded + 0 unknown + 1 malformed\n") !=
        std::string::npos);
}

TEST_CASE("print: resolve reads a file twice - frames named by the rundown at its end") {
  TempFile f("resolve.nettrace", small_trace());
  PrintOptions o;
  o.resolve = true;
  o.filters = {"Shop-Api/*"};
  const Printed twice = print_file(f.path, o);
  CHECK(twice.status == 0);
  CHECK(count(twice.out, "frames: ") == 5);
  CHECK(count(twice.out, "Shop.Orders.Place(int32) <- 0x7f0000900000") == 5);
  // One pass (a stream, or print() on a source): the rundown has not come yet when the events print.
  const std::string bytes = small_trace();
  auto reader = nettrace::Reader::open_memory(Bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  REQUIRE(reader);
  NettraceSource source(std::move(*reader));
  std::ostringstream out, err;
  o.progress = false;
  EventPrinter printer(o, {&clretw::catalog()}, out, err);
  CHECK(printer.print(source, "memory") == 0);
  CHECK(count(out.str(), "frames: 0x7f0000001010 <- 0x7f0000900000") == 5);
  // read_methods() is the first pass on its own.
  auto again = open_trace(f.path);
  REQUIRE(again);
  const Symbolizer symbols = read_methods(**again);
  std::string name;
  symbols.append_name(symbols.resolve(4242, kMethodStart + 0x10, kSync), name);
  CHECK(name.find("Shop.Orders.Place") != std::string::npos);
}

TEST_CASE("print: a manifest the trace carries, arriving mid-trace, decodes the events after it") {
  const std::string bytes = small_trace();
  const Bytes b(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  // The built-in catalog stands for the loaded manifest: before it comes the runtime's events are unknown.
  CarriedManifest loaded;
  loaded.provider_guid = rt::provider_guid;
  loaded.provider_name = "Microsoft-Windows-DotNETRuntime";
  loaded.status = CarriedManifest::Status::loaded;
  loaded.catalog = std::shared_ptr<const Catalog>(std::shared_ptr<const Catalog>{}, &clretw::catalog());
  CarriedManifest refused;
  refused.provider_guid = *Guid::parse("11111111-2222-3333-4444-555555555555");
  refused.status = CarriedManifest::Status::failed;
  refused.diagnostics = "the manifest: error: no events\n";
  CarriedManifest unloaded;
  unloaded.provider_guid = *Guid::parse("66666666-2222-3333-4444-555555555555");
  unloaded.provider_name = "Contoso-Things";
  auto reader = nettrace::Reader::open_memory(b);
  REQUIRE(reader);
  CarryingSource source(std::move(*reader), 4, {loaded, refused, unloaded});  // after GC/Start 1, 2 and an order
  std::ostringstream out, err;
  PrintOptions o;
  o.progress = false;
  o.tool = "test";
  o.filters = {"*/GC/*", "*/EventID(1)"};
  EventPrinter printer(o, {}, out, err);
  CHECK(printer.print(source, "the trace") == 0);
  CHECK(source.carried_count() == 3);
  CHECK(source.carried_catalogs().size() == 1);
  CHECK(count(out.str(), "Microsoft-Windows-DotNETRuntime/EventID(1) (1 v2)") == 2);
  CHECK(count(out.str(), "Microsoft-Windows-DotNETRuntime/GC/Start (1 v2)") == 9);  // the 4th event is an order
  CHECK(err.str() ==
        "test: the trace: the manifest of provider 11111111-2222-3333-4444-555555555555 in the trace does not load; its "
        "events stay unknown\nthe manifest: error: no events\n"
        "test: the trace: the manifest of provider Contoso-Things (66666666-2222-3333-4444-555555555555) in the trace "
        "needs clretw's generator to load, which this build leaves out; its events stay unknown\n");
}

namespace {

// Loads nothing, remembering what it was given.
class RecordingLoader final : public ManifestLoader {
 public:
  std::shared_ptr<const Catalog> load(std::string xml, const std::string& what, std::string& diagnostics) const override {
    seen.push_back(what);
    sizes.push_back(xml.size());
    diagnostics += what + ": refused by the test\n";
    return nullptr;
  }
  mutable std::vector<std::string> seen;
  mutable std::vector<std::size_t> sizes;
};

}  // namespace

TEST_CASE("print: an ETL file's EventSource manifests go to the loader; without one, named once, events kept") {
  const std::string etl = std::string(CLRETW_SHARED_DIR) + "/etl/net.4.5.2.x64.etl";
  if (!std::filesystem::exists(etl)) {
    MESSAGE("SKIPPED: " << etl << " not present");
    return;
  }
  PrintOptions o;
  o.stats = true;
  o.tool = "test";
  const Printed none = print_file(etl, o);
  CHECK(none.status == 0);
  CHECK(count(none.err, "needs clretw's generator") == 3);
  CHECK(count(none.err, "provider System.Threading.Tasks.TplEventSource (") == 1);
  CHECK(count(none.err, "provider PerfView (") == 1);
  CHECK(none.out.find("events: 179474 in file, 179474 counted") != std::string::npos);  // none dropped

  RecordingLoader loader;
  OpenOptions oo;
  oo.manifest_loader = &loader;
  auto source = open_trace(etl, oo);
  REQUIRE(source);
  std::ostringstream out, err;
  o.progress = false;
  EventPrinter printer(o, {&clretw::catalog()}, out, err);
  CHECK(printer.print(**source, "etl") == 0);
  REQUIRE(loader.seen.size() == 3);
  CHECK(count(err.str(), "does not load; its events stay unknown\n") == 3);
  CHECK(count(err.str(), ": refused by the test\n") == 3);
  const auto& carried = (*source)->carried_manifests();
  REQUIRE(carried.size() == 3);
  for (std::size_t i = 0; i < carried.size(); ++i) {
    CHECK(carried[i].status == CarriedManifest::Status::failed);
    CHECK(loader.seen[i] == "the manifest of provider " + carried[i].provider_guid.to_string() + " in the trace");
    CHECK(loader.sizes[i] > 1000);
  }
}

TEST_CASE("print: damage ends a trace after everything before it was printed") {
  const std::string bytes = small_trace();
  TempFile whole("whole.nettrace", bytes);
  TempFile cut("cut.nettrace", bytes.substr(0, bytes.size() - 40));
  PrintOptions o;
  o.format = OutputFormat::json;
  const Printed full = print_file(whole.path, o), damaged = print_file(cut.path, o);
  CHECK(full.status == 0);
  CHECK(damaged.status == 1);
  CHECK(damaged.err.find(cut.path + ": ") != std::string::npos);
  REQUIRE(!damaged.out.empty());
  CHECK(full.out.compare(0, damaged.out.size(), damaged.out) == 0);  // a prefix of the whole trace's lines
  CHECK(damaged.out.back() == '\n');
  o.stats = true;
  CHECK(print_file(cut.path, o).out.find(" in file (before the damage), ") != std::string::npos);
  // A file that cannot be opened: 2, and the message with the system's reason (test_open.cpp: every kind).
  const Printed missing = print_file(whole.path + ".missing", o);
  CHECK(missing.status == 2);
  CHECK(missing.err == "clretw: " + whole.path + ".missing: cannot open: " + std::strerror(ENOENT) + "\n");
}

TEST_CASE("print: CSV's header comes once, before the first trace") {
  TempFile f("csv.nettrace", small_trace());
  PrintOptions o;
  o.format = OutputFormat::csv;
  o.progress = false;
  o.limit = 1;
  std::ostringstream out, err;
  EventPrinter printer(o, {&clretw::catalog()}, out, err);
  CHECK(printer.print_file(f.path) == 0);
  CHECK(printer.print_file(f.path) == 0);
  CHECK(out.str().find(std::string(csv_header()) + "\n1.0000,") == 0);
  CHECK(count(out.str(), std::string(csv_header())) == 1);
  CHECK(count(out.str(), "\n") == 3);
}

TEST_CASE("print: progress only when stderr is a terminal") {
#if defined(_WIN32)
  MESSAGE("SKIPPED: POSIX only");
#else
  if (isatty(2)) {
    MESSAGE("SKIPPED: stderr is a terminal here");
    return;
  }
  // A stream (size 0) would show its progress at the first event, were stderr a terminal.
  const std::string bytes = small_trace();
  auto reader = nettrace::Reader::open_memory(Bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  REQUIRE(reader);
  NettraceSource source(std::move(*reader));
  PrintOptions o;
  o.quiet = true;
  CHECK(o.progress);
  std::ostringstream out, err;
  EventPrinter printer(o, {&clretw::catalog()}, out, err);
  CHECK(printer.print(source, "memory") == 0);
  CHECK(out.str().empty());
  CHECK(err.str().empty());
#endif
}

TEST_CASE("print: profiles - folded stacks of the chosen events, named at the end") {
  TempFile f("profile.nettrace", small_trace());
  PrintOptions o;
  o.format = OutputFormat::folded;
  o.ids = {7};  // the orders' stacks as samples
  const Printed p = print_file(f.path, o);
  CHECK(p.status == 0);
  CHECK(p.out == "Thread (11);0x7f0000900000;Shop.Orders.Place(int32) 5\n");
  CHECK(p.err.find("5 events on 1 threads") != std::string::npos);  // chosen events, not CPU samples
  CHECK(output_format_name(OutputFormat::speedscope) == std::string("speedscope"));
  CHECK(parse_output_format("folded") == OutputFormat::folded);
  CHECK(!parse_output_format("xml"));
}
