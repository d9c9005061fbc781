// The symbolizer and stack profiles on records encoded by the generated payload structs: names from
// loads, rundown and R2R entry points, unloads honoured by time, modules, kernel images, and the
// folded, speedscope and top outputs.
#include <doctest/doctest.h>

#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/dotnet_core_sample_profiler.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/windows_kernel.h"
#include "clretw/profile.h"
#include "clretw/symbolizer.h"
#include "records.h"

namespace {

using namespace clretw;
namespace rt = clretw::dotnet_runtime;
namespace rd = clretw::dotnet_runtime_rundown;
namespace sp = clretw::dotnet_core_sample_profiler;
namespace wk = clretw::windows_kernel;

constexpr std::uint32_t kPid = 4242;

// Records as a trace source hands them out (records.h), of process kPid.
class Records : public test::Records {
 public:
  Records() : test::Records(kPid) {}
  // A CPU sample of `thread` at `t`, stack innermost first.
  const EventRecord& sample(std::int64_t t, std::vector<std::uint64_t> stack, std::uint64_t thread = 7) {
    sp::payload::ThreadSample s;
    s.Type = static_cast<sp::ThreadSampleTypeMap>(2);
    return add<sp::ThreadSample>(0, s, t, thread, std::move(stack));
  }
};

// A method's names and range as MethodLoadVerbose carries them, or (P) the rundown's MethodDCEndVerbose.
template <class P = rt::payload::MethodLoadVerbose_V1>
P verbose(std::uint64_t id, std::uint64_t start, std::uint32_t size, std::string ns, std::string name, std::string sig,
          std::uint64_t module = 0x77) {
  return {.MethodID = id, .ModuleID = module, .MethodStartAddress = start, .MethodSize = size,
          .MethodNamespace = std::move(ns), .MethodName = std::move(name), .MethodSignature = std::move(sig)};
}

rt::payload::ModuleLoad_V2 module(std::uint64_t id, std::string path) {
  rt::payload::ModuleLoad_V2 m;
  m.ModuleID = id;
  m.ModuleILPath = std::move(path);
  return m;
}

std::string name_at(const Symbolizer& s, std::uint64_t address, std::int64_t t) {
  std::string out;
  s.append_name(s.resolve(kPid, address, t), out);
  return out;
}

// Every record through the symbolizer; the samples into a profile; its folded output.
std::string folded(const Records& recs, StackProfile* keep = nullptr) {
  Symbolizer sym;
  StackProfile profile;
  for (const EventRecord& r : recs.all()) {
    sym.observe(r);
    if (is_cpu_sample(r)) profile.add(r, static_cast<double>(r.timestamp) / 10'000.0, sym);
  }
  profile.finish(sym);
  std::ostringstream out;
  profile.write_folded(out);
  if (keep) *keep = std::move(profile);
  return out.str();
}

}  // namespace

TEST_CASE("a jitted method is named from its load, with its module; other addresses are unmanaged") {
  Records recs;
  recs.add<rt::ModuleLoad>(2, module(0x77, "/app/Shop.Api.dll"), 10);
  recs.add<rt::MethodLoadVerbose>(1, verbose(0xA1, 0x1000, 0x100, "Shop.Api.Orders", "Place", "instance void  (class Order,int32)"), 20);
  Symbolizer s;
  for (const EventRecord& r : recs.all()) CHECK(s.observe(r));
  CHECK(name_at(s, 0x1000, 30) == "Shop.Api!Shop.Api.Orders.Place(class Order,int32)");
  CHECK(name_at(s, 0x10FF, 30) == "Shop.Api!Shop.Api.Orders.Place(class Order,int32)");
  CHECK(name_at(s, 0x1100, 30) == "0x1100");  // one past the end
  CHECK(name_at(s, 0xFFF, 30) == "0xfff");
  CHECK(name_at(s, 0x1010, 19) == "0x1010");  // before it was jitted
  CHECK(s.resolve(kPid + 1, 0x1010, 30).kind == Frame::Kind::unmanaged);  // another process
  CHECK(s.counts().jitted == 1);
  CHECK(s.counts().modules == 1);
}

TEST_CASE("names: the signature's parameter list follows the name; module names drop directory and extension") {
  CHECK(method_display_name("System.String", "Concat", "class System.String  (class System.String,class System.String)") ==
        "System.String.Concat(class System.String,class System.String)");
  CHECK(method_display_name("", "Main", "void  ()") == "Main()");
  CHECK(method_display_name("N.T", "M", "") == "N.T.M");
  CHECK(module_display_name("C:\\\\Windows\\\\Microsoft.NET\\\\System.Private.CoreLib.dll") == "System.Private.CoreLib");
  CHECK(module_display_name("/usr/share/dotnet/shared/libcoreclr.so") == "libcoreclr");
  CHECK(module_display_name("System.Xml.ni.DLL") == "System.Xml");
  CHECK(module_display_name("Shop.Api") == "Shop.Api");
}

TEST_CASE("rundown at the end names samples taken before it, and a name-less load gets its name from rundown") {
  Records recs;
  recs.add<rt::ModuleLoad>(2, module(0x77, "/app/Lib.dll"), 1);
  rt::payload::MethodLoad_V1 plain;  // range only (the runtime's non-verbose event)
  plain.MethodID = 0xB2;
  plain.ModuleID = 0x77;
  plain.MethodStartAddress = 0x3000;
  plain.MethodSize = 0x40;
  recs.add<rt::MethodLoad>(1, plain, 5);
  plain.MethodID = 0xB3;
  plain.MethodStartAddress = 0x3100;
  recs.add<rt::MethodLoad>(1, plain, 5);
  recs.sample(100, {0x2010, 0x3010, 0x3110});
  recs.sample(110, {0x2010, 0x3010, 0x3110});
  using DCEnd = rd::payload::MethodDCEndVerbose_V1;
  recs.add<rd::MethodDCEndVerbose>(1, verbose<DCEnd>(0xB1, 0x2000, 0x80, "Lib.Worker", "Spin", "void  ()"), 500);
  recs.add<rd::MethodDCEndVerbose>(1, verbose<DCEnd>(0xB2, 0x3000, 0x40, "Lib.Worker", "Run", "void  ()"), 501);
  StackProfile profile;
  CHECK(folded(recs, &profile) == "Thread (7);Lib!method 0xb3;Lib!Lib.Worker.Run();Lib!Lib.Worker.Spin() 2\n");
  const ProfileSummary& s = profile.summary();
  CHECK(s.samples == 2);
  CHECK(s.frames == 6);
  CHECK(s.method_frames == 6);
  CHECK(s.unique_stacks == 1);
}

TEST_CASE("unloads are honoured by time: reused code is named by what was there when the sample was taken") {
  Records recs;
  recs.add<rt::ModuleLoad>(2, module(0x77, "/app/Plugins.dll"), 1);
  recs.add<rt::MethodLoadVerbose>(1, verbose(0xC1, 0x5000, 0x80, "Plugins.Old", "Run", "void  ()"), 10);
  recs.sample(20, {0x5010});
  rt::payload::MethodUnloadVerbose_V1 un = verbose(0xC1, 0x5000, 0x80, "Plugins.Old", "Run", "void  ()");
  recs.add<rt::MethodUnloadVerbose>(1, un, 30);
  recs.sample(40, {0x5070});  // nothing there now (and the next method there is shorter)
  recs.add<rt::MethodLoadVerbose>(1, verbose(0xC2, 0x5000, 0x60, "Plugins.New", "Go", "void  (int32)"), 50);
  recs.sample(60, {0x5010});
  Symbolizer s;
  for (const EventRecord& r : recs.all()) s.observe(r);
  CHECK(name_at(s, 0x5010, 20) == "Plugins!Plugins.Old.Run()");
  CHECK(name_at(s, 0x5010, 40) == "0x5010");
  CHECK(name_at(s, 0x5010, 60) == "Plugins!Plugins.New.Go(int32)");
  CHECK(name_at(s, 0x5070, 60) == "0x5070");  // the new method is shorter
  CHECK(s.counts().unloads == 1);
  CHECK(s.unload_epoch(kPid) == 1);
  CHECK(folded(recs) ==
        "Thread (7);0x5070 1\n"
        "Thread (7);Plugins!Plugins.New.Go(int32) 1\n"
        "Thread (7);Plugins!Plugins.Old.Run() 1\n");

  SUBCASE("the newer method known only from rundown: before the unload the older still wins") {
    Records r2;
    r2.add<rt::MethodLoadVerbose>(1, verbose(0xC1, 0x5000, 0x80, "Plugins.Old", "Run", "void  ()"), 10);
    r2.add<rt::MethodUnloadVerbose>(1, un, 30);
    using DCEnd = rd::payload::MethodDCEndVerbose_V1;
    r2.add<rd::MethodDCEndVerbose>(1, verbose<DCEnd>(0xC2, 0x5000, 0x60, "Plugins.New", "Go", "void  (int32)", 0), 90);
    Symbolizer s2;
    for (const EventRecord& r : r2.all()) s2.observe(r);
    CHECK(name_at(s2, 0x5010, 20) == "Plugins.Old.Run()");
    CHECK(name_at(s2, 0x5010, 40) == "Plugins.New.Go(int32)");
  }
}

TEST_CASE("R2R entry points name the code up to the next known code, within reach") {
  Records recs;
  rt::payload::R2RGetEntryPoint e;
  e.MethodID = 0xD1;
  e.MethodNamespace = "System.Text.StringBuilder";
  e.MethodName = "Append";
  e.MethodSignature = "class System.Text.StringBuilder  (wchar)";
  e.EntryPoint = 0x9000;
  recs.add<rt::R2RGetEntryPoint>(0, e, 1);
  e.MethodID = 0xD2;
  e.MethodName = "ToString";
  e.MethodSignature = "class System.String  ()";
  e.EntryPoint = 0x9100;
  recs.add<rt::R2RGetEntryPoint>(0, e, 2);
  recs.add<rt::MethodLoadVerbose>(1, verbose(0xD3, 0x9080, 0x10, "J", "Hot", "void  ()"), 3);
  Symbolizer s;
  for (const EventRecord& r : recs.all()) s.observe(r);
  CHECK(name_at(s, 0x9000, 10) == "System.Text.StringBuilder.Append(wchar)");
  CHECK(name_at(s, 0x907F, 10) == "System.Text.StringBuilder.Append(wchar)");
  CHECK(name_at(s, 0x9085, 10) == "J.Hot()");
  CHECK(name_at(s, 0x90A0, 10) == "0x90a0");  // past exact code that ends the entry point's reach
  CHECK(name_at(s, 0x9150, 10) == "System.Text.StringBuilder.ToString()");
  CHECK(name_at(s, 0x9100 + 0x4000, 10) == "0xd100");  // beyond the reach of the last entry point
  CHECK(s.resolve(kPid, 0x9150, 10).method->source == MethodSource::r2r);
  CHECK(s.counts().r2r == 2);
}

TEST_CASE("kernel images name addresses outside methods; their unloads are honoured") {
  Records recs;
  wk::payload::ImageLoad im;
  im.ImageBase = 0x7FF800000000;
  im.ImageSize = 0x200000;
  im.ProcessId = kPid;
  im.FileName = "\\Device\\HarddiskVolume3\\Windows\\System32\\ntdll.dll";
  recs.add<wk::ImageLoad>(3, im, 5);
  recs.add<wk::ImageUnload>(3, im, 50);
  Symbolizer s;
  for (const EventRecord& r : recs.all()) CHECK(s.observe(r));
  CHECK(name_at(s, 0x7FF800001234, 10) == "ntdll!0x7ff800001234");
  CHECK(name_at(s, 0x7FF800001234, 4) == "0x7ff800001234");
  CHECK(name_at(s, 0x7FF800001234, 60) == "0x7ff800001234");
  CHECK(name_at(s, 0x7FF800200000, 10) == "0x7ff800200000");

  // Kernel-mode images are logged under process 0 and serve every process.
  wk::payload::ImageLoad kernel;
  kernel.ImageBase = 0xFFFFF80021400000;
  kernel.ImageSize = 0x800000;
  kernel.ProcessId = 0;
  kernel.FileName = "\\SystemRoot\\system32\\ntoskrnl.exe";
  s.observe(recs.add<wk::ImageLoad>(3, kernel, 1));
  CHECK(name_at(s, 0xFFFFF800216437AB, 10) == "ntoskrnl!0xfffff800216437ab");
}

TEST_CASE("profiles: every sample is counted once; paths merge by name; threads apart; no stack shown") {
  Records recs;
  recs.add<rt::ModuleLoad>(2, module(0x77, "/app/App.dll"), 1);
  recs.add<rt::MethodLoadVerbose>(1, verbose(1, 0x1000, 0x100, "App", "Main", "void  ()"), 2);
  recs.add<rt::MethodLoadVerbose>(1, verbose(2, 0x2000, 0x100, "App", "Work", "void  ()"), 2);
  recs.add<rt::MethodLoadVerbose>(1, verbose(3, 0x3000, 0x100, "App", "Leaf", "int32  (int32)"), 2);
  recs.sample(10, {0x3004, 0x2010, 0x1010});
  recs.sample(11, {0x3008, 0x2010, 0x1010});  // another address in the same methods: the same stack
  recs.sample(12, {0x2020, 0x1010});
  recs.sample(13, {0x3004, 0x2010, 0x1010}, 8);
  recs.sample(14, {});                         // the stack walk failed
  recs.sample(15, {0x2010, 0x2090, 0x1010});   // recursion
  recs.sample(16, {0x3004, 0x2010, 0x1010});
  StackProfile profile;
  const std::string out = folded(recs, &profile);
  CHECK(out ==
        "Thread (7);(no stack) 1\n"
        "Thread (7);App!App.Main();App!App.Work() 1\n"
        "Thread (7);App!App.Main();App!App.Work();App!App.Leaf(int32) 3\n"
        "Thread (7);App!App.Main();App!App.Work();App!App.Work() 1\n"
        "Thread (8);App!App.Main();App!App.Work();App!App.Leaf(int32) 1\n");
  const ProfileSummary& s = profile.summary();
  CHECK(s.samples == 7);
  CHECK(s.threads == 2);
  CHECK(s.without_stack == 1);
  CHECK(s.frames == 3 + 3 + 2 + 3 + 3 + 3);
  CHECK(s.method_frames == s.frames);
  CHECK(s.unique_stacks == 5);
  CHECK(s.unique_frames == 4);  // Main, Work, Leaf, (no stack)

  // Samples are known by the sample profiler's GUID, or by its name (EventPipe derives other GUIDs from it).
  EventRecord by_name = recs.all().back();
  CHECK(is_cpu_sample(by_name));
  by_name.provider_guid = Guid{};
  CHECK(!is_cpu_sample(by_name));
  by_name.provider_name = "Microsoft-DotNETCore-SampleProfiler";
  CHECK(is_cpu_sample(by_name));
  by_name.id = 1;
  CHECK(!is_cpu_sample(by_name));
  CHECK(!is_cpu_sample(recs.all().front()));  // a ModuleLoad

  std::ostringstream top;
  profile.write_top(top, 3);
  const std::string t = top.str();
  // Leaf: 4 exclusive, 4 inclusive; Work: 2 exclusive (one of them recursive), inclusive 6 (the
  // recursive sample once); Main: 0 exclusive, 6 inclusive.
  CHECK(t.find("         4   57.1%          4   57.1%  App!App.Leaf(int32)\n") != std::string::npos);
  CHECK(t.find("         2   28.6%          6   85.7%  App!App.Work()\n") != std::string::npos);
  CHECK(t.find("         1   14.3%          1   14.3%  (no stack)\n") != std::string::npos);
  CHECK(t.find("App.Main") == std::string::npos);  // 3 rows only

  std::ostringstream ss;
  profile.write_speedscope(ss, "t.nettrace", "test");
  const std::string j = ss.str();
  CHECK(j.rfind("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":\"t.nettrace\"", 0) == 0);
  CHECK(j.find("\"activeProfileIndex\":0,") != std::string::npos);  // thread 7, the busiest
  // Frames in order of first use; thread 7's samples root first, runs of equal stacks merged.
  CHECK(j.find("\"frames\":[{\"name\":\"App!App.Main()\"},{\"name\":\"App!App.Work()\"},{\"name\":\"App!App.Leaf(int32)\"},"
               "{\"name\":\"(no stack)\"}]") != std::string::npos);
  CHECK(j.find("{\"type\":\"sampled\",\"name\":\"Thread (7)\",\"unit\":\"milliseconds\",\"startValue\":0.001,"
               "\"endValue\":6.001,\"samples\":[[0,1,2],[0,1],[3],[0,1,1],[0,1,2]],\"weights\":[2,1,1,1,1]}") !=
        std::string::npos);
  CHECK(j.find("{\"type\":\"sampled\",\"name\":\"Thread (8)\"") != std::string::npos);
}
