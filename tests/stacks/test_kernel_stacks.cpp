// KernelStacks on hand-built kernel records: samples joined to their StackWalk events by thread and
// timestamp; compressed stacks (key references, then definitions: KeyDelete, KeyRundown, keys
// reused); a kernel-mode part waiting for the thread to leave the kernel; samples no stack names;
// the sampling interval the trace states; and the shared ETL file's profile counted independently.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "clretw/etl.h"
#include "clretw/catalog.h"
#include "clretw/windows_kernel.h"
#include "clretw/kernel_stacks.h"
#include "records.h"
#include "shared_cases.h"

namespace {

using namespace clretw;
namespace wk = clretw::windows_kernel;

constexpr std::uint32_t kPid = 4242;
constexpr std::uint64_t K0 = 0xFFFFF80000001000, K1 = 0xFFFFF80000002000, K2 = 0xFFFFF80000003000;  // kernel code
constexpr std::uint64_t U0 = 0x7FF600001000, U1 = 0x7FF600002000;                                   // user code
constexpr std::uint64_t kKeyA = 0xFFFFFA8000000100, kKeyB = 0xFFFFFA8000000200;

// Kernel records as the ETL reader hands them out: a sample carries its thread and process; a
// StackWalk event's addresses are its stack.
class Kernel : public test::Records {
 public:
  Kernel() : test::Records(kPid) {}
  EventRecord sample(std::int64_t t, std::uint32_t thread, std::uint32_t pid = kPid) {
    wk::payload::SampledProfile p;
    p.ThreadId = thread;
    EventRecord r = add<wk::SampledProfile>(2, p, t, thread);
    r.process_id = pid;
    return r;
  }
  EventRecord stack(std::int64_t t, std::int64_t of, std::uint32_t thread, std::vector<std::uint64_t> frames,
                    std::uint32_t pid = kPid) {
    wk::payload::StackWalkStack p;
    p.EventTimeStamp = static_cast<std::uint64_t>(of);
    p.StackProcess = pid;
    p.StackThread = thread;
    return add<wk::StackWalkStack>(2, p, t, thread, std::move(frames));
  }
  template <class E>
  EventRecord reference(std::int64_t t, std::int64_t of, std::uint32_t thread, std::uint64_t key, std::uint32_t pid = kPid) {
    wk::payload::StackWalkStackKeyKernel p;
    p.EventTimeStamp = static_cast<std::uint64_t>(of);
    p.StackProcess = pid;
    p.StackThread = thread;
    p.StackKey = key;
    return add<E>(2, p, t, thread);
  }
  template <class E>
  EventRecord definition(std::int64_t t, std::uint64_t key, std::vector<std::uint64_t> frames) {
    wk::payload::StackWalkKeyDelete p;
    p.StackKey = key;
    return add<E>(2, p, t, 0xFFFFFFFF, std::move(frames));
  }
};

// The records through KernelStacks (every kernel sample a sample); the folded profile.
std::string folded(const std::vector<EventRecord>& records, KernelStackCounts* counts = nullptr) {
  Symbolizer sym;
  KernelStacks stacks;
  StackProfile profile;
  for (const EventRecord& r : records) {
    sym.observe(r);
    stacks.observe(r);
    if (is_kernel_cpu_sample(r)) stacks.add(r, static_cast<double>(r.timestamp));
  }
  stacks.finish(profile, sym);
  profile.finish(sym);
  std::ostringstream out;
  profile.write_folded(out);
  if (counts) *counts = stacks.counts();
  return out.str();
}

}  // namespace

TEST_CASE("kernel stacks: key references join their kernel and user parts, defined later, keys reused") {
  Kernel k;
  using KK = wk::StackWalkStackKeyKernel;
  using KU = wk::StackWalkStackKeyUser;
  KernelStackCounts c;
  const std::string out = folded({
      k.sample(100, 7),
      k.reference<KK>(101, 100, 7, kKeyA),
      k.reference<KU>(102, 100, 7, kKeyB),
      k.sample(200, 7),
      k.reference<KK>(201, 200, 7, kKeyA),  // the same kernel part
      k.reference<KU>(202, 200, 7, kKeyB),
      k.definition<wk::StackWalkKeyDelete>(300, kKeyA, {K0, K1}),  // the cache lets kKeyA go
      k.sample(400, 7),
      k.reference<KK>(401, 400, 7, kKeyA),  // kKeyA reused: another part
      k.reference<KU>(402, 400, 7, kKeyB),
      k.definition<wk::StackWalkKeyRundown>(900, kKeyA, {K2, K1}),  // the trace ends: the cached parts
      k.definition<wk::StackWalkKeyRundown>(901, kKeyB, {U0, U1}),
  }, &c);
  // Root first: the user part's outermost frame, ..., the kernel part's innermost.
  CHECK(out ==
        "Thread (7);0x7ff600002000;0x7ff600001000;0xfffff80000002000;0xfffff80000001000 2\n"
        "Thread (7);0x7ff600002000;0x7ff600001000;0xfffff80000002000;0xfffff80000003000 1\n");
  CHECK(c.samples == 3);
  CHECK(c.with_stack == 3);
  CHECK(c.without_stack == 0);
  CHECK(c.kernel_only == 0);
  CHECK(c.undefined == 0);
  CHECK(c.stack_events == 9);
  CHECK(c.unmatched == 0);
}

TEST_CASE("kernel stacks: a kernel-mode sample takes the user part the thread leaves the kernel with") {
  Kernel k;
  KernelStackCounts c;
  const std::string out = folded({
      k.sample(10, 9),
      k.stack(11, 10, 9, {K0, K1}),  // walked in the kernel: the kernel-mode part alone
      k.sample(20, 9),
      k.reference<wk::StackWalkStackKeyKernel>(21, 20, 9, kKeyA),
      // Thread 9 returns to user mode: the user-mode part, logged for another event (a system call's).
      k.reference<wk::StackWalkStackKeyUser>(30, 25, 9, kKeyB),
      k.sample(40, 4, 4),  // a thread of the System process: its kernel-mode stack is whole
      k.stack(41, 40, 4, {K2}, 4),
      k.sample(50, 11),  // a user thread that never leaves the kernel before the end
      k.stack(51, 50, 11, {K2}),
      k.sample(60, 12),  // in user mode: a whole stack, walked from user mode
      k.stack(61, 60, 12, {U0, U1}),
      k.definition<wk::StackWalkKeyDelete>(70, kKeyA, {K2, K1}),
      k.definition<wk::StackWalkKeyRundown>(80, kKeyB, {U1}),
  }, &c);
  CHECK(out ==
        "Process (4) Thread (4);0xfffff80000003000 1\n"
        "Process (4242) Thread (11);0xfffff80000003000 1\n"
        "Process (4242) Thread (12);0x7ff600002000;0x7ff600001000 1\n"
        "Process (4242) Thread (9);0x7ff600002000;0xfffff80000002000;0xfffff80000001000 1\n"
        "Process (4242) Thread (9);0x7ff600002000;0xfffff80000002000;0xfffff80000003000 1\n");
  CHECK(c.samples == 5);
  CHECK(c.with_stack == 5);
  CHECK(c.kernel_only == 1);  // thread 11's
  CHECK(c.unmatched == 1);    // the reference for the event at 25
}

TEST_CASE("kernel stacks: stack events for no sample; samples no stack event names are left out") {
  Kernel k;
  KernelStackCounts c;
  const std::string out = folded({
      k.sample(10, 0, 0),                          // an idle sample: the kernel walks no stack
      k.stack(12, 11, 7, {U0}),                    // a stack for no sample (another event's)
      k.reference<wk::StackWalkStackKeyUser>(13, 10, 8, kKeyA),  // the right time, another thread
      k.sample(20, 7),
      k.stack(21, 20, 7, {U1}),
      k.sample(30, 7),
      k.reference<wk::StackWalkStackKeyUser>(31, 30, 7, kKeyB),  // never defined
      k.definition<wk::StackWalkKeyDelete>(40, 0xFFFFFA80DEAD0000, {U0}),  // a definition nobody waits for
  }, &c);
  // The sample whose only part stays undefined keeps its place, without frames.
  CHECK(out == "Thread (7);(no stack) 1\nThread (7);0x7ff600002000 1\n");
  CHECK(c.samples == 3);
  CHECK(c.with_stack == 2);
  CHECK(c.without_stack == 1);
  CHECK(c.undefined == 1);
  CHECK(c.unmatched == 2);
}

TEST_CASE("kernel stacks: one key waited for as a kernel and a user part: the addresses tell which") {
  Kernel k;
  const std::string out = folded({
      k.sample(10, 7),
      k.reference<wk::StackWalkStackKeyKernel>(11, 10, 7, kKeyA),
      k.reference<wk::StackWalkStackKeyUser>(12, 10, 7, kKeyA),
      k.definition<wk::StackWalkKeyDelete>(20, kKeyA, {U0}),      // user-mode addresses: the user part
      k.definition<wk::StackWalkKeyRundown>(30, kKeyA, {K0, K1}),  // then the kernel part
  });
  CHECK(out == "Thread (7);0x7ff600001000;0xfffff80000002000;0xfffff80000001000 1\n");
}

TEST_CASE("kernel stacks: the sampling interval is the timer's, as the trace states it") {
  Kernel k;
  KernelStacks stacks;
  CHECK(stacks.interval_ms() == 0);
  wk::payload::SampledProfileCollectionStart p;
  p.SampleSource = 1;  // a CPU counter, not the timer
  p.NewInterval = 65536;
  p.SourceName = "TotalIssues";
  CHECK(stacks.observe(k.add<wk::SampledProfileCollectionStart>(3, p, 1)));
  CHECK(stacks.interval_ms() == 0);
  p.SampleSource = 0;
  p.NewInterval = 1221;  // 100 ns units
  p.SourceName = "Timer";
  CHECK(stacks.observe(k.add<wk::SampledProfileCollectionStart>(3, p, 2)));
  CHECK(stacks.interval_ms() == doctest::Approx(0.1221));
  wk::payload::SampledProfileSetInterval_V2 v2;
  v2.NewInterval = 10000;
  CHECK(stacks.observe(k.add<wk::SampledProfileSetInterval>(2, v2, 3)));
  CHECK(stacks.interval_ms() == doctest::Approx(1.0));
  CHECK(!stacks.observe(k.sample(4, 7)));  // samples are given by add()
}

// The profile of the shared trace against a count made apart from KernelStacks: a sample has a
// stack when a StackWalk Stack event or key reference names its thread and timestamp, read from
// the records' payloads byte by byte.
CLRETW_SHARED_CASE("kernel stacks: net.4.5.2.x64.etl's profile holds every sample a stack event names") {
  const std::string file = std::string(CLRETW_SHARED_DIR) + "/etl/net.4.5.2.x64.etl";
  if (!std::filesystem::exists(file)) return test::skip("../shared/etl/net.4.5.2.x64.etl is absent");
  auto opened = etl::Reader::open_file(file);
  REQUIRE(opened.ok());
  Symbolizer sym;
  KernelStacks stacks;
  StackProfile profile;
  std::set<std::pair<std::uint64_t, std::int64_t>> samples, named;  // (thread, timestamp)
  std::uint64_t sample_events = 0;
  for (;;) {
    auto n = (*opened)->next();
    REQUIRE(n.ok());
    if (!*n) break;
    const EventRecord& r = **n;
    sym.observe(r);
    stacks.observe(r);
    if (r.provider_name != "Windows Kernel") continue;
    if (r.id == 0x0F2E) {
      ++sample_events;
      samples.emplace(r.thread_id, r.timestamp);
      stacks.add(r, (*opened)->milliseconds(r.timestamp));
    } else if ((r.id == 0x1820 || r.id == 0x1825 || r.id == 0x1826) && r.payload.size() >= 16) {
      const std::pair<std::uint64_t, std::int64_t> key{load_le<std::uint32_t>(r.payload.data() + 12),
                                                       load_le<std::int64_t>(r.payload.data())};
      if (samples.count(key)) named.insert(key);
    }
  }
  stacks.finish(profile, sym);
  profile.finish(sym);
  const ProfileSummary& s = profile.summary();
  CHECK(sample_events == 79528);
  CHECK(named.size() == 6318);
  CHECK(s.samples == named.size());
  CHECK(s.without_stack == 0);
  CHECK(stacks.counts().without_stack == sample_events - named.size());
  CHECK(stacks.counts().undefined == 0);
  CHECK(stacks.interval_ms() == doctest::Approx(1.0));  // 10,000 x 100 ns, PerfInfo/CollectionStart
  // Frames named by a method or a module: at least 90%.
  CHECK(s.method_frames + s.r2r_frames + s.module_frames >= s.frames * 9 / 10);
  MESSAGE("net.4.5.2.x64.etl: " << sample_events << " kernel samples, " << named.size() << " with a stack; "
                                << s.frames << " frames, " << s.method_frames << " by method, " << s.module_frames
                                << " by module");
}
