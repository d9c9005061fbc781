// The simulated .NET application of clretw-sample (see simulated_app.h).
#include "sample/simulated_app.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/dotnet_core_sample_profiler.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"

namespace clretw::sample {

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;
namespace rd = clretw::dotnet_runtime_rundown;
namespace sp = clretw::dotnet_core_sample_profiler;

constexpr std::uint64_t kMain = 1001, kGc = 1002, kWorker = 1003, kPool = 1004, kRundown = 1005;
constexpr std::uint16_t kClr = 9;
constexpr std::uint64_t kAppDomain = 0x7F3A2C00A000;

// ---------------------------------------------------------------------------
// The simulated process's code. Addresses are 64-bit; a process of pointer size 4 has their low
// 32 bits (Trace::ptr), and every range here stays distinct there too.

struct Module {
  std::uint64_t id, assembly;
  const char* assembly_name;
  const char* il_path;
  bool load_event;  // a ModuleLoad at startup; otherwise only the rundown's ModuleDCEnd describes it
};
enum : unsigned { kCoreLib, kShopApi, kPricing, kKestrel };
const Module kModules[] = {
    {0x7F3A2D000000, 0x7F3A2C100000, "System.Private.CoreLib, Version=8.0.0.0", "/app/System.Private.CoreLib.dll", true},
    {0x7F3A2D010000, 0x7F3A2C101000, "Shop.Api, Version=1.4.2.0", "/app/Shop.Api.dll", true},
    {0x7F3A2D020000, 0x7F3A2C102000, "Ünïcödé.Pricing, Version=0.9.0.0", "/app/Ünïcödé.Pricing.dll", true},
    {0x7F3A2D030000, 0x7F3A2C103000, "Microsoft.AspNetCore.Server.Kestrel.Core, Version=8.0.0.0",
     "/usr/share/dotnet/shared/Microsoft.AspNetCore.App/8.0.0/Microsoft.AspNetCore.Server.Kestrel.Core.dll", false},
};

// How the trace tells of a method.
enum class Told {
  Rundown,    // loaded before the session: only the rundown's MethodDCEndVerbose
  Jitted,     // MethodJittingStarted + MethodLoadVerbose early in the trace, MethodDCEndVerbose in the rundown
  Plain,      // MethodLoad (no names) early in the trace, MethodUnload before the rundown: never named
  Replaced,   // jitted, then unloaded mid-trace (MethodUnloadVerbose) at kUnloadAt
  Replacing,  // jitted at kReloadAt into the range the replaced method left (MethodLoadVerbose v2)
};

struct Method {
  unsigned module;
  const char* ns;  // MethodNamespace, MethodName, MethodSignature (not written for Told::Plain)
  const char* name;
  const char* sig;
  std::uint64_t id, start;
  std::uint32_t size;
  Told told;
};

enum M : unsigned {
  kStartCallback, kWorkerThreadStart, kDispatch, kExecuteWithThreadLocal, kRunInternal, kFindValue, kThrowKeyNotFound,
  kWaitForSignal, kProcessRequests, kProgramMain, kReportRun, kPlace, kQuote, kSave, kAuditWrite, kLambda1, kLambda2,
  kOrderCtor, kTaxLookup, kMethodCount
};
const Method kMethods[] = {
    // System.Private.CoreLib, ReadyToRun code that ran before the session started.
    {kCoreLib, "System.Threading.Thread", "StartCallback", "instance void  ()", 0x7F3A41C00108, 0x7F3A3C100040, 0x1C0, Told::Rundown},
    {kCoreLib, "System.Threading.PortableThreadPool+WorkerThread", "WorkerThreadStart", "void  ()", 0x7F3A41C00120,
     0x7F3A3C100840, 0x2A0, Told::Rundown},
    {kCoreLib, "System.Threading.ThreadPoolWorkQueue", "Dispatch", "bool  ()", 0x7F3A41C00138, 0x7F3A3C101040, 0x4E0, Told::Rundown},
    {kCoreLib, "System.Threading.Tasks.Task", "ExecuteWithThreadLocal",
     "instance void  (class System.Threading.Tasks.Task&,class System.Threading.Thread)", 0x7F3A41C00150, 0x7F3A3C101840,
     0x2F0, Told::Rundown},
    {kCoreLib, "System.Threading.ExecutionContext", "RunInternal",
     "void  (class System.Threading.ExecutionContext,class System.Threading.ContextCallback,class System.Object)",
     0x7F3A41C00168, 0x7F3A3C102040, 0x180, Told::Rundown},
    {kCoreLib, "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]", "FindValue", "instance !1& (!0)",
     0x7F3A41C00180, 0x7F3A3C102840, 0x3C0, Told::Rundown},
    {kCoreLib, "System.ThrowHelper", "ThrowKeyNotFoundException", "void  (class System.Object)", 0x7F3A41C00198,
     0x7F3A3C103040, 0x60, Told::Rundown},
    {kCoreLib, "System.Threading.LowLevelLifoSemaphore", "WaitForSignal", "instance bool  (int32)", 0x7F3A41C001B0,
     0x7F3A3C103840, 0x1F0, Told::Rundown},
    // Kestrel, jitted before the session started; its module is only in the rundown.
    {kKestrel, "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__238`1[System.__Canon]",
     "MoveNext", "instance void  ()", 0x7F3A41E00210, 0x7F3A3E200040, 0x9A0, Told::Rundown},
    // The application, jitted during the trace.
    {kShopApi, "Shop.Api.Program", "Main", "void  (class System.String[])", 0x7F3A42000040, 0x7F3A40001000, 0xB0, Told::Jitted},
    {kShopApi, "Shop.Api.Background.ReportWorker", "Run", "instance void  ()", 0x7F3A42000058, 0x7F3A40001400, 0x140, Told::Jitted},
    {kShopApi, "Shop.Api.Controllers.OrdersController", "Place", "instance class Order (class OrderRequest)", 0x7F3A42000010,
     0x7F3A40001800, 0x1A0, Told::Jitted},
    {kPricing, "Ünïcödé.Pricing.Engine", "Quote", "class Quote (int32,float64)", 0x7F3A42000020, 0x7F3A40001C00, 0x1A0, Told::Jitted},
    {kShopApi, "Shop.Api.Services.OrderStore", "Save", "instance void  (class Shop.Api.Models.Order)", 0x7F3A42000070,
     0x7F3A40002000, 0x120, Told::Jitted},
    {kShopApi, "Shop.Api.Services.AuditLog+<WriteAsync>d__4", "MoveNext", "instance void  ()", 0x7F3A42000088, 0x7F3A40002400,
     0x210, Told::Jitted},
    // A compiled expression (a dynamic method), collected mid-trace; the next one takes its place.
    {kShopApi, "DynamicClass", "lambda_method1",
     "float64  (class System.Runtime.CompilerServices.Closure,class Shop.Api.Models.Order)", 0x7F3A42000100, 0x7F3A40008000,
     0x180, Told::Replaced},
    {kShopApi, "DynamicClass", "lambda_method2",
     "float64  (class System.Runtime.CompilerServices.Closure,class Shop.Api.Models.Order)", 0x7F3A42000118, 0x7F3A40008000,
     0x140, Told::Replacing},
    // Known by range only (Shop.Api.Models.Order..ctor and Ünïcödé.Pricing.TaxTable.Lookup, but the trace never says so).
    {kShopApi, nullptr, nullptr, nullptr, 0x7F3A420000A0, 0x7F3A40006000, 0x90, Told::Plain},
    {kPricing, nullptr, nullptr, nullptr, 0x7F3A420000B8, 0x7F3A40006400, 0xC8, Told::Plain},
};
static_assert(std::size(kMethods) == kMethodCount);

// Native code: return addresses in libc, the dotnet host and libcoreclr.so, in no method's range.
namespace native {
constexpr std::uint64_t kLibcStartMain = 0x7F3A2B029D90, kStartThread = 0x7F3A2B094AC3, kClone3 = 0x7F3A2B126A3C,
                        kFutexWait = 0x7F3A2B0912F6, kCondTimedWait = 0x7F3A2B091E8A;
constexpr std::uint64_t kDotnetMain = 0x55D0C4A0F6B1;
constexpr std::uint64_t kExecuteAssembly = 0x7F3A2D87C3E5, kRunMain = 0x7F3A2D8C1A77, kKickOffThread = 0x7F3A2D8F2A1D,
                        kCallDescrWorker = 0x7F3A2D9C1E4F, kLifoSemaphoreWait = 0x7F3A2D8A44B0,
                        kAwareLockWait = 0x7F3A2D95E2B7, kMonReliableEnter = 0x7F3A2DA1B7C2, kJitNew = 0x7F3A2DA30511,
                        kIlThrow = 0x7F3A2DA55C30;
}  // namespace native

// When the dynamic method is collected, and when its successor is jitted into its range (request numbers).
constexpr std::uint64_t kUnloadAt = 50, kReloadAt = 54;

// One frame of a call path: a method and a return address in it, or native code (method -1).
struct Frame {
  int method = -1;
  std::uint64_t address = 0;
  friend auto operator<=>(const Frame&, const Frame&) = default;
};

// A call path, root first.
class Path {
 public:
  Path& native(std::uint64_t address) {
    frames_.push_back({-1, address});
    return *this;
  }
  // A frame `offset` bytes into method m: a return address, or for the leaf the instruction being run.
  Path& at(unsigned m, std::uint32_t offset) {
    if (offset == 0 || offset >= kMethods[m].size) throw std::logic_error("a frame outside its method's range");
    frames_.push_back({static_cast<int>(m), kMethods[m].start + offset});
    return *this;
  }
  // The leaf: somewhere in method m, one of four places by `tick`.
  Path& leaf(unsigned m, std::uint64_t tick) {
    const std::uint32_t step = ((kMethods[m].size - 0x20) / 4) & ~1u;
    return at(m, 0x10 + static_cast<std::uint32_t>(tick % 4) * step);
  }
  const std::vector<Frame>& frames() const noexcept { return frames_; }
  bool native_leaf() const noexcept { return !frames_.empty() && frames_.back().method < 0; }

 private:
  std::vector<Frame> frames_;
};

// The module name a symbolizer shows: ModuleILPath's file name without .dll or .exe.
std::string module_name(std::string_view il_path) {
  il_path.remove_prefix(il_path.find_last_of("/\\") + 1);  // npos + 1 == 0: no directory
  for (std::string_view ext : {".dll", ".exe"})
    if (il_path.ends_with(ext)) il_path.remove_suffix(ext.size());
  return std::string(il_path);
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The name of a frame in the expected folded stacks (--expect-folded), the rule a symbolizer follows:
//   a method with names (MethodLoadVerbose, MethodDCEndVerbose): <Module>!<MethodNamespace>.<MethodName><args>,
//     <Module> the file name of its module's ModuleILPath without directory and .dll/.exe, <args> its
//     MethodSignature from the first '(' to the end ("" when there is no '(');
//   a method known only by a plain MethodLoad: <Module>!method 0x<MethodID in lowercase hex>;
//   an address in no method's range: 0x<address in lowercase hex, no padding>.
// `mask` is what the process's pointer size keeps of an address or id.
std::string frame_name(const Frame& f, std::uint64_t mask) {
  if (f.method < 0) return hex(f.address & mask);
  const Method& m = kMethods[f.method];
  std::string out = module_name(kModules[m.module].il_path) + "!";
  if (!m.name) return out + "method " + hex(m.id & mask);
  const std::string_view sig = m.sig;
  const std::size_t paren = sig.find('(');
  return out + m.ns + "." + m.name + std::string(paren == std::string_view::npos ? std::string_view{} : sig.substr(paren));
}

class Trace {
 public:
  Trace(std::ostream& out, nettrace::WriterOptions o, bool keep_truth)
      : w_(out, o), ps_(o.pointer_size), format_(o.format), ts_(o.sync_timestamp), keep_truth_(keep_truth) {}
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

  // The stack of a call path, innermost frame first; a stack written since the last sequence point is named again.
  std::uint32_t stack(const Path& p) {
    std::vector<std::uint64_t> ips;
    ips.reserve(p.frames().size());
    for (auto f = p.frames().rbegin(); f != p.frames().rend(); ++f) ips.push_back(ptr(f->address));
    auto [it, fresh] = stacks_.try_emplace(std::move(ips), 0);
    if (fresh) it->second = w_.stack(it->first);
    return it->second;
  }

  // A sample profiler sample of `thread` running path p.
  void sample(std::uint64_t thread, const Path& p) {
    sp::payload::ThreadSample s;
    s.Type = p.native_leaf() ? sp::ThreadSampleTypeMap::External : sp::ThreadSampleTypeMap::Managed;
    emit<sp::ThreadSample>(0, s, thread, stack(p));
    ++samples_;
    if (keep_truth_) ++truth_[{thread, p.frames()}];
  }

  // The expected folded stacks of every sample written: "Thread (TID);root;...;leaf COUNT" lines, sorted.
  std::vector<std::string> folded() const {
    const std::uint64_t mask = ps_ == 4 ? 0xFFFFFFFF : ~std::uint64_t{0};
    std::map<std::string, std::uint64_t> merged;  // paths that differ only in offsets name the same frames
    for (const auto& [key, count] : truth_) {
      std::string line = "Thread (" + std::to_string(key.first) + ")";
      for (const Frame& f : key.second) line += ";" + frame_name(f, mask);
      merged[line] += count;
    }
    std::vector<std::string> lines;
    for (const auto& [stack, count] : merged) lines.push_back(stack + " " + std::to_string(count));
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  void advance(std::int64_t ticks) { ts_ += ticks; }
  // An address as a process of this pointer size has it.
  std::uint64_t ptr(std::uint64_t address) const { return ps_ == 4 ? address & 0xFFFFFFFF : address; }
  void sequence_point() {
    w_.sequence_point(ts_);
    stacks_.clear();  // stack ids end at a sequence point
  }
  void finish() { w_.finish(); }
  std::uint64_t events() const { return events_; }
  std::uint64_t samples() const { return samples_; }

  // Which dynamic method holds the shared range now: kLambda1, kLambda2, or none (-1) between them.
  int rule = kLambda1;
  std::uint64_t tick = 0;  // sampling ticks so far

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
  bool keep_truth_;
  std::uint64_t events_ = 0, samples_ = 0;
  std::map<std::tuple<std::string, std::uint32_t, unsigned>, std::uint32_t> metadata_;
  std::map<std::vector<std::uint64_t>, std::uint32_t> stacks_;
  std::map<std::pair<std::uint64_t, std::vector<Frame>>, std::uint64_t> truth_;
};

// ---------------------------------------------------------------------------
// The threads' call paths.

// A thread-pool thread, from its native start to the pool's worker loop.
Path pool_thread() {
  Path p;
  p.native(native::kClone3).native(native::kStartThread).native(native::kKickOffThread).native(native::kCallDescrWorker);
  p.at(kStartCallback, 0x2C);
  return p;
}

// kWorker serving a request in Kestrel, down to OrdersController.Place.
Path in_place() {
  Path p = pool_thread();
  p.at(kWorkerThreadStart, 0x8E).at(kDispatch, 0x1B3).at(kProcessRequests, 0x2F1);
  return p;
}

// The main thread, from the process's start to ReportWorker.Run.
Path in_report_worker() {
  Path p;
  p.native(native::kLibcStartMain).native(native::kDotnetMain).native(native::kExecuteAssembly).native(native::kRunMain);
  p.native(native::kCallDescrWorker).at(kProgramMain, 0x45);
  return p;
}

// kWorker's sample: four paths in turn.
Path worker_sample(const Trace& s, std::uint64_t t) {
  Path p = in_place();
  switch (t % 4) {
    case 0:  // pricing by the compiled rule, or Quote itself while there is none
      p.at(kPlace, 0x64);
      if (s.rule >= 0) return p.at(kQuote, 0x3A).leaf(static_cast<unsigned>(s.rule), t / 4);
      return p.leaf(kQuote, t / 4);
    case 1: return p.at(kPlace, 0x64).at(kQuote, 0x77).leaf(kTaxLookup, t / 4);
    case 2: return p.at(kPlace, 0xA2).at(kSave, 0x48).leaf(kFindValue, t / 4);
    default: return p.at(kPlace, 0xA2).at(kSave, 0x90).at(kOrderCtor, 0x22).native(native::kJitNew);  // allocating
  }
}

// kMain's sample: waiting for a lock, or two managed paths in turn.
Path main_sample(const Trace& s, std::uint64_t t, bool waiting) {
  Path p = in_report_worker();
  if (waiting) return p.at(kReportRun, 0x83).native(native::kMonReliableEnter).native(native::kAwareLockWait).native(native::kFutexWait);
  if (t % 2 == 0) return p.at(kReportRun, 0x5C).leaf(kFindValue, t / 2 + 1);
  if (s.rule >= 0) return p.at(kReportRun, 0x71).leaf(static_cast<unsigned>(s.rule), t / 2 + 2);
  return p.leaf(kReportRun, t / 2);
}

// kPool's sample: a task's continuation, or idle in the pool's semaphore.
Path pool_sample(std::uint64_t t) {
  Path p = pool_thread();
  if (t % 3 == 2)
    return p.at(kWorkerThreadStart, 0x4B).at(kWaitForSignal, 0x3A).native(native::kLifoSemaphoreWait).native(native::kCondTimedWait);
  p.at(kWorkerThreadStart, 0x8E).at(kDispatch, 0x1D9).at(kExecuteWithThreadLocal, 0x10C).at(kRunInternal, 0x6B);
  if (t % 3 == 0) return p.leaf(kAuditWrite, t / 3 + 1);
  return p.at(kAuditWrite, 0x5D).leaf(kFindValue, t / 3 + 3);
}

// One sampling tick (1 ms): the sample profiler samples every managed thread.
void tick(Trace& s, bool main_waiting) {
  const std::uint64_t t = s.tick++;
  s.sample(kWorker, worker_sample(s, t));
  s.sample(kMain, main_sample(s, t, main_waiting));
  s.sample(kPool, pool_sample(t));
}

// ---------------------------------------------------------------------------
// Events.

// The application's one domain, as AppDomainLoad tells of it at startup and the rundown's AppDomainDCEnd
// at the end; P is either's V1 struct.
template <class P>
P app_domain(const Trace& s) {
  using Flags = decltype(P::AppDomainFlags);
  P d;
  d.AppDomainID = s.ptr(kAppDomain);
  d.AppDomainFlags = Flags::Default | Flags::Executable;
  d.AppDomainName = "clrhost";
  d.AppDomainIndex = 1;
  d.ClrInstanceID = kClr;
  return d;
}

// Module `index`'s assembly, as AssemblyLoad and the rundown's AssemblyDCEnd tell of it (their V1 structs).
template <class P>
P assembly(const Trace& s, unsigned index) {
  const Module& mod = kModules[index];
  P a;
  a.AssemblyID = s.ptr(mod.assembly);
  a.AppDomainID = s.ptr(kAppDomain);
  a.BindingID = index + 1;
  a.FullyQualifiedAssemblyName = mod.assembly_name;
  a.ClrInstanceID = kClr;
  return a;
}

void startup(Trace& s) {
  rt::payload::RuntimeInformationStart info;
  info.ClrInstanceID = kClr;
  info.Sku = static_cast<rt::RuntimeSkuMap>(2);
  info.BclMajorVersion = 8;
  info.VMMajorVersion = 8;
  info.VMBuildNumber = 24;
  info.CommandLine = "dotnet Shop.Api.dll --urls http://localhost:5000";
  info.RuntimeDllPath = "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/libcoreclr.so";
  s.emit<rt::RuntimeInformationStart>(0, info, kMain);

  s.emit<rt::AppDomainLoad>(1, app_domain<rt::payload::AppDomainLoad_V1>(s), kMain);

  for (unsigned i = 0; i < std::size(kModules); ++i) {
    const Module& mod = kModules[i];
    if (!mod.load_event) continue;
    const auto a = assembly<rt::payload::AssemblyLoad_V1>(s, i);
    s.emit<rt::AssemblyLoad>(1, a, kMain);
    rt::payload::ModuleLoad_V2 m;
    m.ModuleID = s.ptr(mod.id);
    m.AssemblyID = a.AssemblyID;
    m.ModuleILPath = mod.il_path;
    m.ClrInstanceID = kClr;
    m.ManagedPdbSignature = *Guid::parse("da1bed18-d176-4b24-8ede-57ee529e2308");
    m.ManagedPdbAge = 1;
    m.ManagedPdbBuildPath = m.ModuleILPath.substr(0, m.ModuleILPath.size() - 3) + "pdb";
    s.emit<rt::ModuleLoad>(2, m, kMain);
  }
}

std::uint32_t token(std::uint64_t id) { return 0x06000000 + static_cast<std::uint32_t>(id & 0xFFF); }
rt::MethodFlagsMap flags(const Method& m) {
  return static_cast<rt::MethodFlagsMap>(m.told == Told::Replaced || m.told == Told::Replacing ? 0x9 : 0x8);  // (Dynamic,) Jitted
}

// A method's MethodLoadVerbose (or MethodUnloadVerbose) payload; P is the V1 or V2 struct.
template <class P>
P verbose(const Trace& s, const Method& m) {
  P v;
  v.MethodID = s.ptr(m.id);
  v.ModuleID = s.ptr(kModules[m.module].id);
  v.MethodStartAddress = s.ptr(m.start);
  v.MethodSize = m.size;
  v.MethodToken = token(m.id);
  v.MethodFlags = flags(m);
  v.MethodNamespace = m.ns;
  v.MethodName = m.name;
  v.MethodSignature = m.sig;
  v.ClrInstanceID = kClr;
  return v;
}

// The JIT compiles a method: MethodJittingStarted, then MethodLoadVerbose (v1, or v2 with a ReJITID).
void jit(Trace& s, unsigned index, std::uint64_t thread, unsigned version = 1) {
  const Method& m = kMethods[index];
  rt::payload::MethodJittingStarted_V1 j;
  j.MethodID = s.ptr(m.id);
  j.ModuleID = s.ptr(kModules[m.module].id);
  j.MethodToken = token(m.id);
  j.MethodILSize = 42 + static_cast<std::uint32_t>(m.id % 300);
  j.MethodNamespace = m.ns;
  j.MethodName = m.name;
  j.MethodSignature = m.sig;
  j.ClrInstanceID = kClr;
  s.emit<rt::MethodJittingStarted>(1, j, thread);
  if (version == 2)
    s.emit<rt::MethodLoadVerbose>(2, verbose<rt::payload::MethodLoadVerbose_V2>(s, m), thread);
  else
    s.emit<rt::MethodLoadVerbose>(1, verbose<rt::payload::MethodLoadVerbose_V1>(s, m), thread);
}

// A method known by range only: MethodLoad (or MethodUnload), no names.
template <class E>
void plain(Trace& s, unsigned index, std::uint64_t thread) {
  const Method& m = kMethods[index];
  rt::payload::MethodLoad_V1 p;
  p.MethodID = s.ptr(m.id);
  p.ModuleID = s.ptr(kModules[m.module].id);
  p.MethodStartAddress = s.ptr(m.start);
  p.MethodSize = m.size;
  p.MethodToken = token(m.id);
  p.MethodFlags = rt::MethodFlagsMap::Jitted;
  p.ClrInstanceID = kClr;
  s.emit<E>(1, p, thread);
}

// The code the application jits as it starts.
void jit_startup(Trace& s) {
  jit(s, kProgramMain, kMain);
  jit(s, kReportRun, kMain);
  jit(s, kPlace, kWorker);
  jit(s, kQuote, kWorker);
  plain<rt::MethodLoad>(s, kTaxLookup, kWorker);
  jit(s, kSave, kWorker);
  plain<rt::MethodLoad>(s, kOrderCtor, kWorker);
  jit(s, kLambda1, kWorker);
  jit(s, kAuditWrite, kPool);
}

// The end of the session: the methods known by range only go, then the runtime's rundown describes
// every method, module, assembly and domain still alive, as the real runtime does (DCEndInit first,
// each module's methods before the module, DCEndComplete last).
void rundown(Trace& s) {
  plain<rt::MethodUnload>(s, kOrderCtor, kGc);
  plain<rt::MethodUnload>(s, kTaxLookup, kGc);
  s.emit<rd::DCEndInit>(1, rd::payload::DCEndInit_V1{.ClrInstanceID = kClr}, kRundown);
  for (unsigned mi = 0; mi < std::size(kModules); ++mi) {
    const Module& mod = kModules[mi];
    for (unsigned i = 0; i < kMethodCount; ++i) {
      const Method& m = kMethods[i];
      const bool dynamic = m.told == Told::Replaced || m.told == Told::Replacing;
      if (m.module != mi || m.told == Told::Plain || (dynamic && s.rule != static_cast<int>(i))) continue;  // not alive
      rd::payload::MethodDCEndVerbose_V2 v;
      v.MethodID = s.ptr(m.id);
      v.ModuleID = s.ptr(mod.id);
      v.MethodStartAddress = s.ptr(m.start);
      v.MethodSize = m.size;
      v.MethodToken = token(m.id);
      v.MethodFlags = static_cast<rd::MethodFlagsMap>(m.told == Told::Rundown ? 0 : static_cast<std::uint32_t>(flags(m)));
      v.MethodNamespace = m.ns;
      v.MethodName = m.name;
      v.MethodSignature = m.sig;
      v.ClrInstanceID = kClr;
      s.emit<rd::MethodDCEndVerbose>(2, v, kRundown);
    }
    rd::payload::ModuleDCEnd_V2 md;
    md.ModuleID = s.ptr(mod.id);
    md.AssemblyID = s.ptr(mod.assembly);
    md.ModuleFlags = rd::ModuleFlagsMap::Manifest;
    md.ModuleILPath = mod.il_path;
    md.ClrInstanceID = kClr;
    s.emit<rd::ModuleDCEnd>(2, md, kRundown);
    s.emit<rd::AssemblyDCEnd>(1, assembly<rd::payload::AssemblyDCEnd_V1>(s, mi), kRundown);
  }
  s.emit<rd::AppDomainDCEnd>(1, app_domain<rd::payload::AppDomainDCEnd_V1>(s), kRundown);
  s.emit<rd::DCEndComplete>(1, rd::payload::DCEndComplete_V1{.ClrInstanceID = kClr}, kRundown);
}

// One request: a few allocations, sometimes a GC, an exception, lock contention; then a sampling tick.
void request(Trace& s, std::uint64_t n) {
  if (n == kUnloadAt) {  // the compiled rule is collected...
    s.emit<rt::MethodUnloadVerbose>(1, verbose<rt::payload::MethodUnloadVerbose_V1>(s, kMethods[kLambda1]), kGc);
    s.rule = -1;
  } else if (n == kReloadAt) {  // ...and the next one is jitted where it was
    jit(s, kLambda2, kWorker, 2);
    s.rule = kLambda2;
  }
  static const char* const kTypes[] = {"System.String", "System.Byte[]",
                                       "System.Collections.Generic.Dictionary`2[System.String,System.Int32]",
                                       "Shop.Api.Models.Order", "Ünïcödé.Pricing.Quote"};
  for (int k = 0; k < 3; ++k) {
    rt::payload::GCAllocationTick_V3 a;
    a.AllocationAmount = 100'000 + static_cast<std::uint32_t>((n * 7919 + static_cast<std::uint64_t>(k)) % 9000);
    a.AllocationKind = k == 2 && n % 5 == 0 ? static_cast<rt::GCAllocationKindMap>(1) : rt::GCAllocationKindMap{};
    a.ClrInstanceID = kClr;
    a.AllocationAmount64 = a.AllocationAmount;
    a.TypeID = s.ptr(0x7F3A41000000 + static_cast<std::uint64_t>(k) * 0x100);
    a.TypeName = kTypes[(n + static_cast<std::uint64_t>(k)) % 5];
    a.Address = s.ptr(0x7F3900000000 + n * 0x20000 + static_cast<std::uint64_t>(k) * 0x100);
    Path p = in_place();  // the allocation helper, called from three places
    if (k == 0) p.at(kPlace, 0xA2).at(kSave, 0x90).at(kOrderCtor, 0x22);
    else if (k == 1) p.at(kPlace, 0x64).at(kQuote, 0x9C);
    else p.at(kPlace, 0xC8);
    s.emit<rt::GCAllocationTick>(3, a, kWorker, s.stack(p.native(native::kJitNew)));
  }
  if (n % 4 == 3) {
    rt::payload::GCSuspendEEBegin_V1 suspend;
    suspend.Reason = static_cast<rt::GCSuspendEEReasonMap>(1);
    suspend.Count = static_cast<std::uint32_t>(n / 4);
    s.emit<rt::GCSuspendEEBegin>(1, suspend, kGc);
    s.emit<rt::GCSuspendEEEnd>(1, rt::payload::GCSuspendEEEnd_V1{.ClrInstanceID = kClr}, kGc);
    rt::payload::GCStart_V2 start;
    start.Count = static_cast<std::uint32_t>(n / 4 + 1);
    start.Depth = n % 16 == 15 ? 2 : 0;
    start.Reason = rt::GCReasonMap::AllocSmall;
    start.ClrInstanceID = kClr;
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
    heap.ClrInstanceID = kClr;
    s.emit<rt::GCHeapStats>(2, heap, kGc);
    rt::payload::GCEnd_V1 end;
    end.Count = start.Count;
    end.Depth = start.Depth;
    end.ClrInstanceID = kClr;
    s.emit<rt::GCEnd>(1, end, kGc);
    s.emit<rt::GCRestartEEBegin>(1, rt::payload::GCRestartEEBegin_V1{.ClrInstanceID = kClr}, kGc);
    s.emit<rt::GCRestartEEEnd>(1, rt::payload::GCRestartEEEnd_V1{.ClrInstanceID = kClr}, kGc);
  }
  if (n % 10 == 6) {  // the order store's lookup fails; ThrowHelper throws through the runtime
    rt::payload::ExceptionThrown_V1 ex;
    ex.ExceptionType = "System.Collections.Generic.KeyNotFoundException";
    ex.ExceptionMessage = "The given key 'ORD-" + std::to_string(n) + "' was not present in the dictionary.";
    ex.ExceptionEIP = s.ptr(kMethods[kThrowKeyNotFound].start + 0x1A);
    ex.ExceptionHRESULT = 0x80131577;
    ex.ExceptionFlags = static_cast<rt::ExceptionThrownFlagsMap>(0x10);
    ex.ClrInstanceID = kClr;
    Path p = in_place();
    p.at(kPlace, 0x51).at(kSave, 0x30).at(kThrowKeyNotFound, 0x1F).native(native::kIlThrow);
    s.emit<rt::ExceptionThrown>(1, ex, kWorker, s.stack(p));
  }
  if (n % 12 == 11) {  // the main thread waits 2.5 ms for a lock, sampled twice as it waits
    rt::payload::ContentionStart_V1 c;
    Path p = in_report_worker();
    s.emit<rt::Contention>(1, c, kMain, s.stack(p.at(kReportRun, 0x83).native(native::kMonReliableEnter)));
    s.advance(10'000);
    tick(s, true);
    s.advance(10'000);
    tick(s, true);
    s.advance(5'000);
    s.emit<rt::ContentionStop>(0, c, kMain);
  }
  tick(s, false);

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

struct SimulatedApp::State {
  State(std::ostream& out, const nettrace::WriterOptions& o, bool keep_truth) : trace(out, o, keep_truth) {}
  Trace trace;
};

SimulatedApp::SimulatedApp(std::ostream& out, const nettrace::WriterOptions& o, bool keep_truth)
    : state_(std::make_unique<State>(out, o, keep_truth)) {
  startup(state_->trace);
  jit_startup(state_->trace);
}
SimulatedApp::~SimulatedApp() = default;

void SimulatedApp::requests(unsigned n) {
  for (unsigned k = 0; k < n; ++k) request(state_->trace, requests_++);
  state_->trace.sequence_point();
}

void SimulatedApp::finish() {
  rundown(state_->trace);
  state_->trace.finish();
}

std::uint64_t SimulatedApp::events() const { return state_->trace.events(); }
std::uint64_t SimulatedApp::samples() const { return state_->trace.samples(); }
std::vector<std::string> SimulatedApp::folded() const { return state_->trace.folded(); }

}  // namespace clretw::sample
