// clretw-sample: writes a .nettrace of a small simulated .NET application,
// built with the generated payload structs and the nettrace writer. The README's
// demo decodes it; --size-mb makes large traces for the memory check.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "clretw/events.h"
#include "clretw/nettrace.h"
#include "common/guarded_main.h"

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;
namespace sp = clretw::dotnet_core_sample_profiler;

// Counts bytes written, so the generator knows the file size as it goes.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* out) : out_(out) {}
  std::uint64_t count = 0;

 protected:
  int overflow(int c) override {
    if (c != EOF) ++count;
    return out_->sputc(static_cast<char>(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count += static_cast<std::uint64_t>(n);
    return out_->sputn(s, n);
  }

 private:
  std::streambuf* out_;
};

class Sample {
 public:
  Sample(std::ostream& out, nettrace::WriterOptions o)
      : w_(out, o), ps_(o.pointer_size), format_(o.format), ts_(o.sync_timestamp) {}
  // Formats before 5 have no way to declare an array field in an event's metadata.
  bool arrays() const noexcept { return format_ >= 5; }

  // One event, encoded from its generated payload struct; metadata is defined on first use.
  template <class E, class P>
  void emit(unsigned version, const P& payload, std::uint64_t thread, std::uint32_t stack = 0) {
    const EventLookup l = clretw::catalog().find(E::provider_guid, E::id, static_cast<std::uint8_t>(version));
    auto [it, fresh] = metadata_.try_emplace({std::string(l.provider->name), E::id, version}, 0);
    if (fresh) {
      nettrace::Metadata m;  // runtime events name no fields: the manifest describes them
      m.provider_name = l.provider->name;
      m.event_id = E::id;
      m.version = static_cast<std::uint8_t>(version);
      m.level = l.event->level;
      m.keywords = l.event->keywords;
      it->second = w_.define(m);
    }
    auto bytes = payload.encode(ps_);
    if (!bytes) throw std::runtime_error(bytes.error().message());
    write(it->second, *bytes, thread, stack);
  }

  // A self-describing EventSource event.
  void emit_event_source(const nettrace::Metadata& m, const std::vector<std::uint8_t>& payload, std::uint64_t thread) {
    auto [it, fresh] = metadata_.try_emplace({m.provider_name, m.event_id, m.version}, 0);
    if (fresh) it->second = w_.define(m);
    write(it->second, payload, thread, 0);
  }

  std::uint32_t stack(std::vector<std::uint64_t> ips) {
    if (ps_ == 4)
      for (auto& ip : ips) ip &= 0xFFFFFFFF;
    return w_.stack(ips);
  }
  void advance(std::int64_t ticks) { ts_ += ticks; }
  // An address as a process of this pointer size has it.
  std::uint64_t ptr(std::uint64_t address) const { return ps_ == 4 ? address & 0xFFFFFFFF : address; }
  void sequence_point() { w_.sequence_point(ts_); }
  void finish() { w_.finish(); }
  std::uint64_t events() const { return events_; }

 private:
  void write(std::uint32_t metadata, const std::vector<std::uint8_t>& payload, std::uint64_t thread, std::uint32_t stack) {
    nettrace::EventSpec e;
    e.metadata_id = metadata;
    e.thread_id = e.capture_thread_id = thread;
    e.processor = static_cast<std::uint32_t>(thread % 4);
    e.timestamp = ts_;
    e.stack_id = stack;
    e.payload = payload;
    e.sorted = (++events_ % 64) == 0;
    w_.event(e);
    ts_ += 137;  // 13.7 us at 10 MHz
  }

  nettrace::Writer w_;
  unsigned ps_;
  unsigned format_;
  std::int64_t ts_;
  std::uint64_t events_ = 0;
  std::map<std::tuple<std::string, std::uint32_t, unsigned>, std::uint32_t> metadata_;
};

constexpr std::uint64_t kMain = 1001, kGc = 1002, kWorker = 1003;

void startup(Sample& s) {
  rt::payload::RuntimeInformationStart info;
  info.ClrInstanceID = 9;
  info.Sku = static_cast<rt::RuntimeSkuMap>(2);
  info.BclMajorVersion = 8;
  info.VMMajorVersion = 8;
  info.VMBuildNumber = 24;
  info.CommandLine = "dotnet Shop.Api.dll --urls http://localhost:5000";
  info.RuntimeDllPath = "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/libcoreclr.so";
  s.emit<rt::RuntimeInformationStart>(0, info, kMain);

  rt::payload::AppDomainLoad_V1 domain;
  domain.AppDomainID = 0x7F3A2C00A000;
  domain.AppDomainFlags = rt::AppDomainFlagsMap::Default | rt::AppDomainFlagsMap::Executable;
  domain.AppDomainName = "clrhost";
  domain.AppDomainIndex = 1;
  domain.ClrInstanceID = 9;
  s.emit<rt::AppDomainLoad>(1, domain, kMain);

  const char* assemblies[] = {"System.Private.CoreLib, Version=8.0.0.0", "Shop.Api, Version=1.4.2.0",
                              "Ünïcödé.Pricing, Version=0.9.0.0"};
  for (std::uint64_t i = 0; i < 3; ++i) {
    rt::payload::AssemblyLoad_V1 a;
    a.AssemblyID = 0x7F3A2C100000 + i * 0x1000;
    a.AppDomainID = domain.AppDomainID;
    a.BindingID = i + 1;
    a.FullyQualifiedAssemblyName = assemblies[i];
    a.ClrInstanceID = 9;
    s.emit<rt::AssemblyLoad>(1, a, kMain);
    rt::payload::ModuleLoad_V2 m;
    m.ModuleID = 0x7F3A2D000000 + i * 0x10000;
    m.AssemblyID = a.AssemblyID;
    m.ModuleILPath = std::string("/app/") + (i == 0 ? "System.Private.CoreLib" : i == 1 ? "Shop.Api" : "Ünïcödé.Pricing") + ".dll";
    m.ClrInstanceID = 9;
    m.ManagedPdbSignature = *Guid::parse("da1bed18-d176-4b24-8ede-57ee529e2308");
    m.ManagedPdbAge = 1;
    m.ManagedPdbBuildPath = m.ModuleILPath.substr(0, m.ModuleILPath.size() - 3) + "pdb";
    s.emit<rt::ModuleLoad>(2, m, kMain);
  }
}

void jit(Sample& s, std::uint64_t id, const char* ns, const char* name, const char* sig) {
  rt::payload::MethodJittingStarted_V1 j;
  j.MethodID = id;
  j.ModuleID = 0x7F3A2D010000;
  j.MethodToken = 0x06000000 + static_cast<std::uint32_t>(id & 0xFFF);
  j.MethodILSize = 42 + static_cast<std::uint32_t>(id % 300);
  j.MethodNamespace = ns;
  j.MethodName = name;
  j.MethodSignature = sig;
  j.ClrInstanceID = 9;
  s.emit<rt::MethodJittingStarted>(1, j, kWorker);
  rt::payload::MethodLoadVerbose_V1 m;
  m.MethodID = id;
  m.ModuleID = j.ModuleID;
  m.MethodStartAddress = 0x7F3A40000000 + (id & 0xFFFF) * 0x40;
  m.MethodSize = 0x1A0;
  m.MethodToken = j.MethodToken;
  m.MethodFlags = static_cast<rt::MethodFlagsMap>(0x8);
  m.MethodNamespace = ns;
  m.MethodName = name;
  m.MethodSignature = sig;
  m.ClrInstanceID = 9;
  s.emit<rt::MethodLoadVerbose>(1, m, kWorker);
}

// One request: a few allocations, sometimes a GC, an exception, lock contention.
void request(Sample& s, std::uint64_t n) {
  static const char* const kTypes[] = {"System.String", "System.Byte[]",
                                       "System.Collections.Generic.Dictionary`2[System.String,System.Int32]",
                                       "Shop.Api.Models.Order", "Ünïcödé.Pricing.Quote"};
  const std::uint32_t stack = (n % 8 == 0) ? s.stack({0x7F3A40001234 + n, 0x7F3A40005678, 0x7F3A2D001000}) : 0;
  for (int k = 0; k < 3; ++k) {
    rt::payload::GCAllocationTick_V3 a;
    a.AllocationAmount = 100'000 + static_cast<std::uint32_t>((n * 7919 + static_cast<std::uint64_t>(k)) % 9000);
    a.AllocationKind = k == 2 && n % 5 == 0 ? static_cast<rt::GCAllocationKindMap>(1) : rt::GCAllocationKindMap{};
    a.ClrInstanceID = 9;
    a.AllocationAmount64 = a.AllocationAmount;
    a.TypeID = s.ptr(0x7F3A41000000 + static_cast<std::uint64_t>(k) * 0x100);
    a.TypeName = kTypes[(n + static_cast<std::uint64_t>(k)) % 5];
    a.Address = s.ptr(0x7F3900000000 + n * 0x20000 + static_cast<std::uint64_t>(k) * 0x100);
    s.emit<rt::GCAllocationTick>(3, a, kWorker, stack);
  }
  if (n % 4 == 3) {
    rt::payload::GCSuspendEEBegin_V1 suspend;
    suspend.Reason = static_cast<rt::GCSuspendEEReasonMap>(1);
    suspend.Count = static_cast<std::uint32_t>(n / 4);
    s.emit<rt::GCSuspendEEBegin>(1, suspend, kGc);
    s.emit<rt::GCSuspendEEEnd>(1, rt::payload::GCSuspendEEEnd_V1{.ClrInstanceID = 9}, kGc);
    rt::payload::GCStart_V2 start;
    start.Count = static_cast<std::uint32_t>(n / 4 + 1);
    start.Depth = n % 16 == 15 ? 2 : 0;
    start.Reason = rt::GCReasonMap::AllocSmall;
    start.ClrInstanceID = 9;
    start.ClientSequenceNumber = n;
    s.emit<rt::GCStart>(2, start, kGc);
    rt::payload::GCHeapStats_V2 heap;
    heap.GenerationSize0 = 0x18 + n * 64;
    heap.TotalPromotedSize0 = 0x2AD90;
    heap.GenerationSize1 = 0x331C8;
    heap.GenerationSize2 = 0x18;
    heap.GenerationSize3 = 0x8CB0;
    heap.PinnedObjectCount = 2;
    heap.SinkBlockCount = 14;
    heap.GCHandleCount = 55;
    heap.ClrInstanceID = 9;
    s.emit<rt::GCHeapStats>(2, heap, kGc);
    rt::payload::GCEnd_V1 end;
    end.Count = start.Count;
    end.Depth = start.Depth;
    end.ClrInstanceID = 9;
    s.emit<rt::GCEnd>(1, end, kGc);
    s.emit<rt::GCRestartEEBegin>(1, rt::payload::GCRestartEEBegin_V1{.ClrInstanceID = 9}, kGc);
    s.emit<rt::GCRestartEEEnd>(1, rt::payload::GCRestartEEEnd_V1{.ClrInstanceID = 9}, kGc);
  }
  if (n % 10 == 6) {
    rt::payload::ExceptionThrown_V1 ex;
    ex.ExceptionType = "System.Collections.Generic.KeyNotFoundException";
    ex.ExceptionMessage = "The given key 'ORD-" + std::to_string(n) + "' was not present in the dictionary.";
    ex.ExceptionEIP = s.ptr(0x7F3A400012F0);
    ex.ExceptionHRESULT = 0x80131577;
    ex.ExceptionFlags = static_cast<rt::ExceptionThrownFlagsMap>(0x10);
    ex.ClrInstanceID = 9;
    s.emit<rt::ExceptionThrown>(1, ex, kWorker, stack);
  }
  if (n % 12 == 11) {
    rt::payload::ContentionStart_V1 c;
    s.emit<rt::Contention>(1, c, kMain);
    s.advance(25'000);  // 2.5 ms waiting for the lock
    s.emit<rt::ContentionStop>(0, c, kMain);
  }
  // The sample profiler's 1 ms samples of the busy thread.
  sp::payload::ThreadSample sample;
  sample.Type = static_cast<sp::ThreadSampleTypeMap>(n % 3 == 0 ? 1 : 2);
  s.emit<sp::ThreadSample>(0, sample, kWorker, stack);

  // The application's own EventSource event: described by its metadata in the trace.
  nettrace::Metadata order;
  order.provider_name = "Shop-Api";
  order.event_id = 1;
  order.event_name = "OrderPlaced";
  order.level = 4;
  order.describes_fields = true;
  order.fields = {{"OrderId", nettrace::TypeCode::Int64, {}, {}, 0}, {"Customer", nettrace::TypeCode::String, {}, {}, 0}};
  if (s.arrays()) order.fields.push_back({"Quantities", nettrace::TypeCode::Array, {{"", nettrace::TypeCode::Int32, {}, {}, 0}}, {}, 0});
  std::vector<std::uint8_t> payload;
  ByteWriter w(payload);
  w.put<std::int64_t>(static_cast<std::int64_t>(10'000 + n));
  put_utf16(w, n % 2 ? "Zoë Müller" : "Ada Lovelace");
  w.put<std::uint16_t>(0);
  if (s.arrays()) {
    w.put<std::uint16_t>(static_cast<std::uint16_t>(1 + n % 3));
    for (std::uint64_t q = 0; q <= n % 3; ++q) w.put<std::int32_t>(static_cast<std::int32_t>(q + 1));
  }
  s.emit_event_source(order, payload, kWorker);
  s.advance(10'000);
}

}  // namespace

int run(int argc, char** argv) {
  std::string output = "sample.nettrace";
  unsigned format = 5, pointer_size = 8;
  double size_mb = 0;
  bool uncompressed = false;
  CLI::App app{"clretw-sample: write a .nettrace of a small simulated .NET application (CLR runtime events, sample-profiler\n"
               "stacks and an EventSource event), encoded with clretw's generated payload structs."};
  app.add_option("-o,--output", output, "Trace file to write")->capture_default_str();
  app.add_option("--format", format, "nettrace format version: 4, 5 or 6; 3 writes a NetPerf file (.NET Core 2.1/2.2)")
      ->check(CLI::IsMember({3u, 4u, 5u, 6u}))
      ->capture_default_str();
  app.add_option("--pointer-size", pointer_size, "Pointer size of the simulated process")->check(CLI::IsMember({4u, 8u}))->capture_default_str();
  app.add_flag("--uncompressed", uncompressed, "Write uncompressed event headers");
  app.add_option("--size-mb", size_mb, "Keep simulating requests until the file is this large (0 to 100000)")
      ->check(CLI::Range(0.0, 100000.0));
  app.footer("Exit status: 0 written; 1 the simulation failed; 2 bad usage or the file cannot be written.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::ofstream file(output, std::ios::binary);
  if (!file) {
    std::cerr << "clretw-sample: --output: cannot write " << output << "\n";
    return 2;
  }
  CountingBuf counting(file.rdbuf());
  std::ostream out(&counting);
  nettrace::WriterOptions o;
  o.format = format;
  o.pointer_size = pointer_size;
  o.compressed = !uncompressed;
  o.process_id = 4242;
  try {
    Sample s(out, o);
    startup(s);
    jit(s, 0x7F3A42000010, "Shop.Api.Controllers.OrdersController", "Place", "instance class Order (class OrderRequest)");
    jit(s, 0x7F3A42000020, "Ünïcödé.Pricing.Engine", "Quote", "class Quote (int32,float64)");
    const std::uint64_t limit = static_cast<std::uint64_t>(size_mb * 1024 * 1024);
    std::uint64_t n = 0;
    do {
      for (int k = 0; k < 100; ++k) request(s, n++);
      s.sequence_point();
      if (!out) {
        std::cerr << "clretw-sample: cannot write " << output << " (disk full?)\n";
        return 2;
      }
    } while (counting.count < limit);
    s.finish();
    out.flush();
    std::printf("clretw-sample: wrote %llu events (%llu requests) to %s, %.1f MB, nettrace V%u, pointer size %u\n",
                static_cast<unsigned long long>(s.events()), static_cast<unsigned long long>(n), output.c_str(),
                static_cast<double>(counting.count) / (1024 * 1024), format, pointer_size);
  } catch (const std::exception& e) {
    std::cerr << "clretw-sample: " << e.what() << "\n";
    return 1;
  }
  return file ? 0 : 2;
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-sample", run, argc, argv); }
