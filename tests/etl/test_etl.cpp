// The ETL reader: every event header kind in files built here byte by byte (compressed and
// not, several processors), the merge by timestamp, the logfile header, the shared real files,
// every truncation and a corrupted-file corpus, each ending in a located error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "shared_cases.h"
#include "clretw/describe.h"
#include "clretw/etl.h"
#include "clretw/format.h"
#include "clretw/catalog.h"
#include "clretw/windows_kernel.h"
#include "clretw/kernel_trace_control.h"
#include "clretw/windows_kernel.h"
#include "clretw/open.h"
#include "clretw/select.h"
#include "../../runtime/etl/src/xpress.h"

using namespace clretw;
using namespace clretw::etl;

namespace {

using Buf = std::vector<std::uint8_t>;

template <class T>
void put(Buf& b, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) b.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}
void put_guid(Buf& b, const Guid& g) {
  put(b, g.data1);
  put(b, g.data2);
  put(b, g.data3);
  b.insert(b.end(), g.data4.begin(), g.data4.end());
}
void put_utf16z(Buf& b, const std::string& ascii) {
  for (char c : ascii) put<std::uint16_t>(b, static_cast<std::uint16_t>(c));
  put<std::uint16_t>(b, 0);
}
void align8(Buf& b) {
  while (b.size() % 8) b.push_back(0);
}

const Guid kClr = *Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
const Guid kClassic = *Guid::parse("b3e675d7-2554-4f18-830b-2762732560de");
constexpr std::int64_t kStart = 1'000'000;

// One event of each kind; the header fields the test checks afterwards.
struct Ev {
  HeaderKind kind{};
  std::int64_t ts = 0;
  std::uint32_t pid = 10, tid = 20;
  std::uint16_t hook_or_id = 0;  // kernel: hook id (group << 8 | opcode); EVENT_HEADER: event id; classic: type
  Buf payload;
  std::vector<std::uint64_t> stack;  // EVENT_HEADER: a STACK_TRACE64 item
  unsigned pmc = 0;                  // PERFINFO: PMC counters
  bool pebs = false;
  Guid provider = kClr;              // EVENT_HEADER: the provider
  Guid classic = kClassic;           // classic (FULL_HEADER, INSTANCE): the event class
  std::vector<std::pair<std::uint16_t, Buf>> items;  // EVENT_HEADER: more extended data items (type, data)
};

Ev ev(HeaderKind kind, std::int64_t ts, std::uint32_t pid = 10, std::uint32_t tid = 20, std::uint16_t hook_or_id = 0, Buf payload = {}) {
  Ev e;
  e.kind = kind;
  e.ts = ts;
  e.pid = pid;
  e.tid = tid;
  e.hook_or_id = hook_or_id;
  e.payload = std::move(payload);
  return e;
}

void put_event(Buf& b, const Ev& e) {
  const std::size_t at = b.size();
  const auto k = static_cast<std::uint8_t>(e.kind);
  auto set_size = [&](std::size_t where) {
    const auto size = static_cast<std::uint16_t>(b.size() - at);
    b[at + where] = static_cast<std::uint8_t>(size);
    b[at + where + 1] = static_cast<std::uint8_t>(size >> 8);
  };
  switch (e.kind) {
    case HeaderKind::system32: case HeaderKind::system64: case HeaderKind::compact32: case HeaderKind::compact64:
    case HeaderKind::perfinfo32: case HeaderKind::perfinfo64: {
      const bool perfinfo = e.kind == HeaderKind::perfinfo32 || e.kind == HeaderKind::perfinfo64;
      const bool compact = e.kind == HeaderKind::compact32 || e.kind == HeaderKind::compact64;
      put<std::uint16_t>(b, static_cast<std::uint16_t>(2 | (e.pebs ? 0x8000 : 0) | (e.pmc << 8)));
      b.push_back(k);
      b.push_back(0xC0);
      put<std::uint16_t>(b, 0);  // size, set below
      put<std::uint16_t>(b, e.hook_or_id);
      if (perfinfo) {
        put(b, e.ts);
      } else {
        put(b, e.tid);
        put(b, e.pid);
        put(b, e.ts);
        if (!compact) put<std::uint64_t>(b, 0);  // kernel and user time
      }
      if (e.pebs) put<std::uint64_t>(b, 0xAAAA);
      for (unsigned i = 0; i < e.pmc; ++i) put<std::uint64_t>(b, 0xBBBB + i);
      b.insert(b.end(), e.payload.begin(), e.payload.end());
      set_size(4);
      break;
    }
    case HeaderKind::full32: case HeaderKind::full64: case HeaderKind::instance32: case HeaderKind::instance64: {
      put<std::uint16_t>(b, 0);
      b.push_back(k);
      b.push_back(0xC0);
      b.push_back(static_cast<std::uint8_t>(e.hook_or_id));  // class type
      b.push_back(4);                                         // level
      put<std::uint16_t>(b, 3);                               // version
      put(b, e.tid);
      put(b, e.pid);
      put(b, e.ts);
      put_guid(b, e.classic);
      put<std::uint64_t>(b, 0);
      if (e.kind == HeaderKind::instance32 || e.kind == HeaderKind::instance64) {
        put<std::uint32_t>(b, 1);
        put<std::uint32_t>(b, 0);
        put_guid(b, Guid{});
      }
      b.insert(b.end(), e.payload.begin(), e.payload.end());
      set_size(0);
      break;
    }
    case HeaderKind::event_header32: case HeaderKind::event_header64: {
      put<std::uint16_t>(b, 0);
      b.push_back(k);
      b.push_back(0xC0);
      const bool ext = !e.stack.empty() || !e.items.empty();
      put<std::uint16_t>(b, static_cast<std::uint16_t>((ext ? 1 : 0) | (e.kind == HeaderKind::event_header32 ? 0x20 : 0x40)));
      put<std::uint16_t>(b, 0);
      put(b, e.tid);
      put(b, e.pid);
      put(b, e.ts);
      put_guid(b, e.provider);
      put<std::uint16_t>(b, e.hook_or_id);
      b.push_back(2);  // version
      b.push_back(0);  // channel
      b.push_back(4);  // level
      b.push_back(1);  // opcode
      put<std::uint16_t>(b, 1);      // task
      put<std::uint64_t>(b, 0x1);    // keywords
      put<std::uint64_t>(b, 0);      // processor time
      put_guid(b, *Guid::parse("11111111-2222-3333-4444-555555555555"));
      for (std::size_t i = 0; i < e.items.size(); ++i) {  // each 8-byte aligned, linked to the next
        const Buf& data = e.items[i].second;
        const auto item = static_cast<std::uint16_t>((8 + data.size() + 7) & ~std::size_t{7});
        put<std::uint16_t>(b, item);
        put<std::uint16_t>(b, e.items[i].first);
        put<std::uint16_t>(b, static_cast<std::uint16_t>(i + 1 < e.items.size() || !e.stack.empty() ? 1 : 0));
        put<std::uint16_t>(b, static_cast<std::uint16_t>(data.size()));
        b.insert(b.end(), data.begin(), data.end());
        b.resize(b.size() + (item - 8 - data.size()), 0);
      }
      if (!e.stack.empty()) {
        // A related activity id, linked to a STACK_TRACE64 item.
        put<std::uint16_t>(b, 24);
        put<std::uint16_t>(b, 1);
        put<std::uint16_t>(b, 1);
        put<std::uint16_t>(b, 16);
        put_guid(b, *Guid::parse("99999999-2222-3333-4444-555555555555"));
        const auto item = static_cast<std::uint16_t>(8 + 8 + 8 * e.stack.size());
        put<std::uint16_t>(b, item);
        put<std::uint16_t>(b, 6);
        put<std::uint16_t>(b, 0);
        put<std::uint16_t>(b, static_cast<std::uint16_t>(item - 8));
        put<std::uint64_t>(b, 0);  // match id
        for (std::uint64_t ip : e.stack) put(b, ip);
      }
      b.insert(b.end(), e.payload.begin(), e.payload.end());
      set_size(0);
      break;
    }
  }
  align8(b);
}

// The logfile header event (SYSTEM64, group 0, opcode 0).
Ev logfile_event(std::uint32_t processors) {
  Ev e = ev(HeaderKind::system64, kStart);
  e.hook_or_id = 0;
  Buf& p = e.payload;
  put<std::uint32_t>(p, 65536);      // buffer size
  put<std::uint32_t>(p, 0x0501000A);  // version
  put<std::uint32_t>(p, 19045);
  put<std::uint32_t>(p, processors);
  put<std::int64_t>(p, 133'000'000'000'000'000);  // end time
  put<std::uint32_t>(p, 156250);
  put<std::uint32_t>(p, 800);
  put<std::uint32_t>(p, 0x04000000);  // compressed mode
  put<std::uint32_t>(p, 3);
  put<std::uint32_t>(p, 1);
  put<std::uint32_t>(p, 8);           // pointer size
  put<std::uint32_t>(p, 7);           // events lost
  put<std::uint32_t>(p, 3400);
  put<std::uint64_t>(p, 0);           // logger name pointer
  put<std::uint64_t>(p, 0);           // log file name pointer
  put<std::int32_t>(p, 480);          // time zone bias
  p.resize(p.size() + 168, 0);        // the rest of TIME_ZONE_INFORMATION
  align8(p);
  put<std::int64_t>(p, 132'000'000'000'000'000);  // boot time
  put<std::int64_t>(p, 10'000'000);               // perf frequency
  put<std::int64_t>(p, 133'000'000'000'000'000);  // start time
  put<std::uint32_t>(p, 1);                       // clock type: QPC
  put<std::uint32_t>(p, 0);
  put_utf16z(p, "TestSession");
  put_utf16z(p, "C:\\t.etl");
  return e;
}

// A buffer: its header and events, filled with 0xFF to `size` (or compressed).
Buf buffer(const std::vector<Ev>& events, std::uint16_t processor, bool compressed, std::uint32_t size = 4096) {
  Buf data;
  for (const Ev& e : events) put_event(data, e);
  const auto saved = static_cast<std::uint32_t>(72 + data.size());
  Buf b;
  Buf body = data;
  if (compressed) body = etl::detail::xpress_compress(data);
  const auto disk = compressed ? static_cast<std::uint32_t>(72 + body.size()) : size;
  put<std::uint32_t>(b, disk);
  put<std::uint32_t>(b, saved);
  put<std::uint32_t>(b, saved);
  put<std::uint32_t>(b, 0);
  b.resize(0x28, 0);
  put<std::uint16_t>(b, processor);
  put<std::uint16_t>(b, 1);  // logger id
  put<std::uint32_t>(b, 3);
  put<std::uint32_t>(b, saved);
  put<std::uint16_t>(b, static_cast<std::uint16_t>(0x20 | (compressed ? 0x40 : 0)));
  put<std::uint16_t>(b, 0);
  b.resize(72, 0);
  b.insert(b.end(), body.begin(), body.end());
  if (!compressed) b.resize(size, 0xFF);
  return b;
}

Buf bytes(std::initializer_list<int> v) {
  Buf b;
  for (int x : v) b.push_back(static_cast<std::uint8_t>(x));
  return b;
}

// Two processors, interleaved in time, one of their buffers compressed; every header kind.
Buf sample_file() {
  Buf f = buffer({logfile_event(2)}, 0, false, 1024);
  std::vector<Ev> p0, p1, p1b;
  Ev clr = ev(HeaderKind::event_header64, kStart + 100, 10, 21, 1, bytes({1, 0, 0, 0, 2, 0, 0, 0}));
  clr.stack = {0x7FF000001000, 0x7FF000002000, 0x7FF000003000};
  p0.push_back(clr);
  Ev sample = ev(HeaderKind::perfinfo64, kStart + 300, 0, 0, 0x0F2E, bytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 1, 0, 0, 0}));
  sample.pmc = 2;
  sample.pebs = true;
  p0.push_back(sample);
  p0.push_back(ev(HeaderKind::compact32, kStart + 500, 11, 22, 0x0524, bytes({7, 7})));
  p0.push_back(ev(HeaderKind::full32, kStart + 700, 12, 23, 0, bytes({1, 2, 3})));
  p1.push_back(ev(HeaderKind::system32, kStart + 200, 13, 24, 0x0301, bytes({5, 0, 0, 0})));
  p1.push_back(ev(HeaderKind::event_header32, kStart + 400, 14, 25, 2, bytes({9, 0})));
  p1b.push_back(ev(HeaderKind::instance64, kStart + 600, 15, 26, 10, bytes({4})));
  p1b.push_back(ev(HeaderKind::compact64, kStart + 800, 16, 27, 0x1401, {}));
  for (const Buf& b : {buffer(p0, 0, false), buffer(p1, 1, true), buffer(p1b, 1, false)}) f.insert(f.end(), b.begin(), b.end());
  return f;
}

struct Read {
  std::vector<std::tuple<std::int64_t, std::uint32_t, std::uint16_t, HeaderKind>> events;  // ts, pid, id, kind
  std::string error;
  bool opened = false;
};

Read read_all(const Buf& file, ReaderOptions o = {}) {
  Read out;
  auto r = Reader::open_memory(file, o);
  if (!r) {
    out.error = r.error().message();
    return out;
  }
  out.opened = true;
  for (std::size_t guard = 0; guard < 10'000'000; ++guard) {
    auto n = (*r)->next();
    if (!n) {
      out.error = n.error().message();
      auto again = (*r)->next();  // after an error, the same error and nothing more
      CHECK_FALSE(again.ok());
      break;
    }
    if (!*n) break;
    out.events.emplace_back((*n)->timestamp, (*n)->process_id, (*n)->id, (*r)->last_kind());
  }
  return out;
}

Buf load_shared(const std::string& name) {
  std::ifstream in(std::string(CLRETW_SHARED_DIR) + "/etl/" + name, std::ios::binary);
  if (!in) return {};
  return Buf(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("ETL: every header kind, merged across processors by timestamp") {
  const Buf f = sample_file();
  auto opened = Reader::open_memory(f);
  REQUIRE(opened.ok());
  Reader& r = **opened;
  const LogfileInfo& info = r.info();
  CHECK(info.processors == 2);
  CHECK(info.pointer_size == 8);
  CHECK(info.events_lost == 7);
  CHECK(info.timezone_bias == 480);
  CHECK(info.perf_freq == 10'000'000);
  CHECK(info.clock_type == 1);
  CHECK(info.logger_name == "TestSession");
  CHECK(info.log_file_name == "C:\\t.etl");
  CHECK(info.start_timestamp == kStart);
  CHECK(r.stats().buffers == 4);
  CHECK(r.stats().compressed_buffers == 1);

  std::vector<HeaderKind> kinds;
  std::vector<std::int64_t> times;
  for (;;) {
    auto n = r.next();
    REQUIRE(n.ok());
    if (!*n) break;
    const EventRecord& e = **n;
    kinds.push_back(r.last_kind());
    times.push_back(e.timestamp);
    switch (r.last_kind()) {
      case HeaderKind::event_header64:
        CHECK(e.provider_guid == kClr);
        CHECK(e.id == 1);
        CHECK(e.version == 2);
        CHECK(e.level == 4);
        CHECK(e.task == 1);
        CHECK(e.keywords == 1);
        CHECK(e.pointer_size == 8);
        CHECK(e.payload.size() == 8);
        CHECK(e.activity_id.to_string() == "11111111-2222-3333-4444-555555555555");
        CHECK(e.related_activity_id.to_string() == "99999999-2222-3333-4444-555555555555");
        REQUIRE(e.stack_depth() == 3);
        CHECK(e.stack_frame(0) == 0x7FF000001000);
        CHECK(e.stack_frame(2) == 0x7FF000003000);
        CHECK(r.milliseconds(e.timestamp) == doctest::Approx(0.01));
        break;
      case HeaderKind::event_header32:
        CHECK(e.pointer_size == 4);  // from the header kind, not from the file
        CHECK(e.payload.size() == 2);
        CHECK(e.stack.empty());
        break;
      case HeaderKind::perfinfo64:
        CHECK(e.process_id == 0xFFFFFFFFu);  // PERFINFO headers carry no process
        CHECK(e.task == 0x0F);
        CHECK(e.opcode == 0x2E);
        CHECK(e.provider_guid == *Guid::parse("9e814aad-3204-11d2-9a82-006008a86939"));
        CHECK(e.id == 0x0F2E);  // the hook id
        CHECK(e.event_name == "PerfInfo/46");
        CHECK(e.payload.size() == 16);  // after the PEBS index and two PMC counters
        CHECK(e.payload[0] == 1);
        break;
      case HeaderKind::compact32:
        CHECK(e.pointer_size == 4);
        CHECK(e.event_name == "Thread/36");
        CHECK(e.payload.size() == 2);
        break;
      case HeaderKind::system32:
        CHECK(e.event_name == "Process/1");
        CHECK(e.process_id == 13);
        CHECK(e.thread_id == 24);
        break;
      case HeaderKind::full32:
        CHECK(e.provider_guid == kClassic);
        CHECK(e.level == 4);
        CHECK(e.version == 3);
        CHECK(e.payload.size() == 3);
        break;
      case HeaderKind::instance64:
        CHECK(e.id == 10);
        CHECK(e.payload.size() == 1);
        break;
      default: break;
    }
  }
  CHECK(kinds.size() == 9);
  CHECK(std::is_sorted(times.begin(), times.end()));
  CHECK(r.stats().stacks == 1);
  CHECK(r.counts().events == 9);
  CHECK(r.counts().lost_events == 7);

  // In file order: processor 0's buffer before processor 1's.
  ReaderOptions file_order;
  file_order.sorted = false;
  const Read unsorted = read_all(f, file_order);
  REQUIRE(unsorted.events.size() == 9);
  CHECK(std::get<0>(unsorted.events[2]) == kStart + 300);
}

TEST_CASE("ETL: the front door tells the formats apart by content") {
  const Buf f = sample_file();
  CHECK(detect_format(f) == TraceFormat::etl);
  const std::string nettrace = "Nettrace\x14\0\0\0!FastSerialization.1";
  CHECK(detect_format(Bytes(reinterpret_cast<const std::uint8_t*>(nettrace.data()), nettrace.size())) == TraceFormat::nettrace);
  const std::string netperf = std::string("\x14\0\0\0", 4) + "!FastSerialization.1";
  CHECK(detect_format(Bytes(reinterpret_cast<const std::uint8_t*>(netperf.data()), netperf.size())) == TraceFormat::netperf);
  CHECK(detect_format(Bytes(f.data(), 40)) == TraceFormat::unknown);
}

TEST_CASE("ETL: damage ends the trace after every complete event before it, located") {
  const Buf f = sample_file();
  const Read full = read_all(f);
  REQUIRE(full.error.empty());
  const std::set<std::tuple<std::int64_t, std::uint32_t, std::uint16_t, HeaderKind>> all(full.events.begin(), full.events.end());
  std::size_t errors = 0;
  for (std::size_t cut = 0; cut < f.size(); ++cut) {
    const Read r = read_all(Buf(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(cut)));
    for (const auto& e : r.events) CHECK(all.count(e) == 1);
    if (!r.error.empty()) {
      ++errors;
      const bool located = r.error.find("buffer") != std::string::npos || r.error.find("not an ETL file") != std::string::npos;
      CHECK_MESSAGE(located, r.error);
    } else {
      // Only a cut at a buffer boundary reads to the end, with the events of the whole buffers.
      CHECK(r.events.size() < full.events.size());
    }
  }
  CHECK(errors > f.size() / 2);

  // A header that claims more than its buffer holds: the error names the buffer and the event.
  Buf bad = f;
  const std::size_t second = 1024;  // the first event of processor 0's buffer (EVENT_HEADER64)
  bad[second + 72] = 0xF0;
  bad[second + 73] = 0x7F;
  const Read r = read_all(bad);
  CHECK(r.error.find("buffer 2") != std::string::npos);
  CHECK(r.error.find("event at byte 72") != std::string::npos);
}

TEST_CASE("ETL: a corrupted-file corpus never crashes, hangs or reads out of bounds") {
  const Buf f = sample_file();
  std::mt19937 rng(1234);
  for (int i = 0; i < 400; ++i) {
    Buf c = f;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) c[rng() % c.size()] = static_cast<std::uint8_t>(rng());
    const Read r = read_all(c);
    CHECK(r.events.size() <= 64);
  }
}

TEST_CASE("ETL: inputs the fuzzer found (tests/etl/regressions) end cleanly") {
  // Each file is a fuzz_etl input: its first byte holds the options, the rest is the file.
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CLRETW_TESTS_DIR) + "/etl/regressions")) {
    std::ifstream in(entry.path(), std::ios::binary);
    const Buf input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(!input.empty());
    ReaderOptions o;
    o.sorted = !(input[0] & 1);
    const Read r = read_all(Buf(input.begin() + 1, input.end()), o);
    CHECK_MESSAGE((r.opened ? r.events.size() < 1000 : !r.error.empty()), entry.path().string());
    ++n;
  }
  CHECK(n >= 1);
}

// The kernel events manifest/WindowsKernel.man describes, on every shared ETL file: none of the kernel's
// groups, KernelTraceControl's classes or the CLR providers is left unknown or malformed, and none decodes with
// trailing bytes. Then values checked by hand against the bytes
// and TraceEvent's baseline (net.4.5.2.x64.baseline.txt): a disk write, the file it wrote, a PDB identity.
CLRETW_SHARED_CASE("ETL: the shared files' kernel and KernelTraceControl events decode with no trailing bytes") {
  for (const char* name : {"gcevents.etl", "net.4.5.2.x64.etl", "SelfDescribingSingleEvent.etl"}) {
    const Buf f = load_shared(name);
    if (f.empty()) {
      clretw::test::skip(std::string("../shared/etl/") + name + " is absent");
      continue;
    }
    CAPTURE(name);
    auto opened = Reader::open_memory(f);
    REQUIRE(opened.ok());
    Reader& r = **opened;
    EventDescriber describer({&clretw::catalog()});
    std::map<std::string, std::uint64_t> unknown, trailing, malformed;  // by provider/name
    std::uint64_t kernel_decoded = 0;
    namespace wk = clretw::windows_kernel;
    namespace ktc = clretw::kernel_trace_control;
    // The first DiskIO/Write's fields (a view reads the reader's buffer: the values are kept, not the view).
    bool write_seen = false;
    std::uint32_t write_size = 0, write_disk = 99, write_thread = 0;
    std::int64_t write_offset = 0;
    std::uint64_t write_file = 0, write_time = 0;
    std::map<std::uint64_t, std::string> file_names;  // FileObject -> the kernel's path, from FileIO name events
    std::string ntdll_pdb;
    std::uint32_t ntdll_age = 0;
    std::string ntdll_guid;
    std::string dns;  // the first DNS-Client event's fields, as text
    std::uint64_t self_described = 0;  // events the describer decoded by the trace's own description
    for (;;) {
      auto n = r.next();
      REQUIRE(n.ok());
      if (!*n) break;
      const EventRecord& e = **n;
      const Described d = describer.describe(e);
      const std::string provider(d.provider_name);
      // Events the trace describes itself (TraceLogging, KernelTraceControl-MetaData's descriptions of other
      // providers' events) are held to the same: all decode, no trailing bytes.
      const bool ours = provider == "Windows Kernel" || provider.starts_with("KernelTraceControl") ||
                        provider.starts_with("Microsoft-Windows-DotNETRuntime") || e.self_description;
      self_described += d.self_description && d.kind == Described::Kind::decoded;
      if (provider == "Microsoft-Windows-DNS-Client" && dns.empty() && d.self_description) {
        FieldFormatter text(dns, Format::text);
        CHECK(d.self_description->visit(e.payload, text).ok());
        text.finish();
      }
      // KernelTraceControl's classes include MetaData (bbccf6c1-...: the TRACE_EVENT_INFO of manifest providers)
      // and WinSat (ed54dff8-...: compressed XML), whose last field holds the rest of the payload.
      if (!ours) continue;
      const std::string key = provider + "/" + d.name;
      if (d.kind == Described::Kind::unknown) ++unknown[key];
      if (d.kind == Described::Kind::malformed) ++malformed[key];
      if (d.kind == Described::Kind::decoded && d.trailing > 0) ++trailing[key];
      if (d.kind == Described::Kind::decoded && provider != "Microsoft-Windows-DotNETRuntime") ++kernel_decoded;
      const bool kernel = e.provider_guid == wk::provider_guid;
      if (kernel && e.id == 0x010B && !write_seen) {  // DiskIO (1), type 11
        auto w = wk::DiskWriteView::from(e);
        REQUIRE(w.ok());
        write_seen = true;
        write_size = w->TransferSize();
        write_offset = w->ByteOffset();
        write_disk = w->DiskNumber();
        write_time = w->HighResResponseTime();
        write_thread = w->IssuingThreadId();
        write_file = w->FileObject();
      }
      if (kernel && e.id == 0x0424) {  // FileIO (4), type 36
        auto fn = wk::FileRundownView::from(e);
        REQUIRE(fn.ok());
        file_names[fn->FileObject()] = fn->FileName().to_utf8();
      }
      if (e.provider_guid == ktc::provider_guid && e.id == 36 && ntdll_pdb.empty()) {
        auto rsds = ktc::ImageIDDbgID_RSDSView::from(e);
        REQUIRE(rsds.ok());
        if (rsds->PdbFileName() == "wntdll.pdb") {
          ntdll_pdb = std::string(rsds->PdbFileName());
          ntdll_age = rsds->Age();
          ntdll_guid = rsds->GuidSig().to_string();
        }
      }
    }
    // (No structured bindings: doctest's messages capture in lambdas, which clang 14 refuses for them.)
    for (const auto& u : unknown) CHECK_MESSAGE(u.second == 0, "unknown: " << u.first << " x" << u.second);
    for (const auto& m : malformed) CHECK_MESSAGE(m.second == 0, "malformed: " << m.first << " x" << m.second);
    for (const auto& t : trailing) CHECK_MESSAGE(t.second == 0, "trailing bytes: " << t.first << " x" << t.second);
    CHECK(kernel_decoded > 0);
    if (std::string(name) == "net.4.5.2.x64.etl") {
      // The first DiskIO/Write (baseline line 113): 4,096 bytes at 6,109,835,264 on disk 0, 0.928 ms (9,284 QPC
      // ticks at 10 MHz), issued by thread 44; its file is named by a FileIO/FileRundown event (TraceEvent
      // prints it as C:\Windows\System32\... through the VolumeMapping \Device\HarddiskVolume2\ -> C:\).
      REQUIRE(write_seen);
      CHECK(write_size == 4096);
      CHECK(write_offset == 6109835264);
      CHECK(write_disk == 0);
      CHECK(write_time == 9284);
      CHECK(write_thread == 44);
      CHECK(write_file == 0xfffff8a0045ffc50u);
      CHECK(file_names[write_file] == "\\Device\\HarddiskVolume2\\Windows\\System32\\LogFiles\\WMI\\RtBackup\\EtwRTRAC_PS.etl");
      // ntdll's CodeView record (baseline line 17; bytes at +12: the GUID, +28: age 2, +32: "wntdll.pdb").
      CHECK(ntdll_pdb == "wntdll.pdb");
      CHECK(ntdll_age == 2);
      CHECK(ntdll_guid == "ec83d8df-5559-46e0-b630-133ebd979266");
      // The events of providers whose manifests were on the recording machine only, described by the trace's
      // KernelTraceControl-MetaData events: as many as the baseline's COUNT lines of Microsoft-Windows-DNS-Client
      // (4), -Immersive-Shell (8), -Kernel-EventTracing (77), -Kernel-File (562) and -Kernel-Process (2); the
      // first DNS-Client event as the baseline prints it (line "EVENT 174.754: Microsoft-Windows-DNS-Client/
      // DnsServerForInterface ... Interface=Ethernet; TotalServerCount=4; Index=1; DynamicAddress=dynamic;
      // Address=[2001:4898::1050:105..."), the map's name from an EventMapInfo event.
      CHECK(self_described == 653);  // (the CLR events the MetaData events also describe decode by the catalog)
      CHECK(r.stats().metadata_refused == 0);
      CHECK(dns.starts_with("Interface=\"Ethernet\" TotalServerCount=4 Index=1 DynamicAddress=dynamic AddressLength=28 "
                            "Address=[2001:4898::1050:105"));
    }
  }
}

CLRETW_SHARED_CASE("ETL: the shared real files decode completely, in time order") {
  for (const char* name : {"gcevents.etl", "net.4.5.2.x64.etl"}) {
    const Buf f = load_shared(name);
    if (f.empty()) {
      clretw::test::skip(std::string("../shared/etl/") + name + " is absent");
      continue;
    }
    CAPTURE(name);
    auto opened = Reader::open_memory(f);
    REQUIRE(opened.ok());
    Reader& r = **opened;
    EventDescriber describer({&clretw::catalog()});
    std::uint64_t events = 0, clr = 0, clr_malformed = 0, clr_unknown = 0, out_of_order = 0;
    std::int64_t last = 0;
    std::set<std::pair<std::uint32_t, std::string>> named;  // (pid, image name) as records carry them
    std::uint64_t samples = 0, samples_with_process = 0, stackwalk_split = 0, stackwalk_kernel = 0;
    for (;;) {
      auto n = r.next();
      REQUIRE(n.ok());
      if (!*n) break;
      const EventRecord& e = **n;
      ++events;
      if (!e.process_name.empty()) named.emplace(e.process_id, std::string(e.process_name));
      if (e.id == 0x0F2E && e.provider_name == "Windows Kernel") {
        ++samples;
        samples_with_process += e.process_id != 0xFFFFFFFFu;
      }
      // StackWalk's return addresses are the record's stack; the payload keeps the fixed part, which
      // decodes with no byte left over.
      if (e.provider_name == "Windows Kernel" && (e.id >> 8) == 0x18) {
        ++stackwalk_kernel;
        const std::size_t fixed = e.id == 0x1820 ? 16 : e.id <= 0x1824 ? 8 : 24;
        const Described d = describer.describe(e);
        stackwalk_split += e.payload.size() == fixed && (e.id >= 0x1825 || e.stack_depth() > 0) &&
                           d.kind == Described::Kind::decoded && !d.trailing;
      }
      if (e.timestamp < last) ++out_of_order;
      last = e.timestamp;
      const Described d = describer.describe(e);
      if (d.provider_name.starts_with("Microsoft-Windows-DotNETRuntime")) {
        ++clr;
        clr_malformed += d.kind == Described::Kind::malformed;
        clr_unknown += d.kind == Described::Kind::unknown;
      }
    }
    CHECK(stackwalk_split == stackwalk_kernel);
    CHECK(out_of_order == 0);
    CHECK(clr_malformed == 0);
    CHECK(clr_unknown == 0);
    CHECK(clr > 60);
    CHECK(r.info().pointer_size == 8);
    CHECK(r.info().processors == 8);
    if (std::string(name) == "gcevents.etl") {
      CHECK(events == 71);
      CHECK(r.info().logger_name == "PerfViewSession");
      CHECK(r.stats().by_kind[static_cast<int>(HeaderKind::event_header64)] == 69);
    } else {
      CHECK(events == 179474);
      CHECK(r.stats().compressed_buffers == 359);
      CHECK(r.stats().by_kind[static_cast<int>(HeaderKind::event_header32)] > 0);  // both 32- and 64-bit headers
      CHECK(r.stats().by_kind[static_cast<int>(HeaderKind::full32)] > 0);
      // 655 events with extended-data stacks, and the kernel's StackWalk events whose addresses are
      // their stack: 252 Stack, 1909 KeyDelete and 1012 KeyRundown.
      CHECK(r.stats().stacks == 655 + 252 + 1909 + 1012);
      // Names from the kernel's Process events; a sample's process from its thread's Thread event.
      CHECK(named.count({0, "Idle"}) == 1);
      CHECK(named.count({4, "System"}) == 1);
      CHECK(named.count({3988, "PerfView.exe"}) == 1);
      CHECK(samples == 79528);
      CHECK(samples_with_process > samples * 9 / 10);
    }
    // Truncation: at every byte of every buffer's header and valid data (its filler cut every 4 KB),
    // for both files' first buffers (the compressed file's first two compressed ones): each ends in a
    // located error, after events that are all events of the whole file.
    std::set<std::int64_t> stamps;
    {
      const Read whole = read_all(f);
      for (const auto& e : whole.events) stamps.insert(std::get<0>(e));
    }
    std::size_t cuts = 0, located = 0, foreign = 0;
    std::size_t off = 0;
    for (int b = 0; b < (std::string(name) == "gcevents.etl" ? 5 : 3) && off + 72 <= f.size(); ++b) {
      const std::uint32_t size = load_le<std::uint32_t>(f.data() + off), saved = load_le<std::uint32_t>(f.data() + off + 4);
      const bool compressed = load_le<std::uint16_t>(f.data() + off + 0x34) & 0x40;
      const std::size_t dense = compressed ? size : saved;
      for (std::size_t cut = off + 1; cut < off + size && cut < f.size(); cut += (cut < off + dense ? 1 : 4096)) {
        const Read t = read_all(Buf(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(cut)));
        ++cuts;
        located += t.error.find("buffer") != std::string::npos || t.error.find("not an ETL file") != std::string::npos;
        for (const auto& e : t.events) foreign += stamps.count(std::get<0>(e)) == 0;
      }
      off += size;
    }
    CHECK(located == cuts);
    CHECK(foreign == 0);
    MESSAGE(std::string(name) << ": " << cuts << " truncations, each ending in a located error");
  }
}

// --- TraceLogging -------------------------------------------------------------------------
//
// Schemas and payloads written here byte by byte as microsoft/tracelogging lays them out
// (etw/cpp/traceloggingdynamic/TraceLoggingDynamic.h: EventMetadataBuilder and
// ProviderMetadataBuilder), independently of the reader's parser.

namespace {

void put_utf8z(Buf& b, const std::string& s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}
void set_u16(Buf& b, std::size_t at, std::size_t v) {
  b[at] = static_cast<std::uint8_t>(v);
  b[at + 1] = static_cast<std::uint8_t>(v >> 8);
}

// In-types (TlgIn_t) and flags.
enum : std::uint8_t {
  kUnicodeString = 1, kAnsiString = 2, kInt8 = 3, kUInt8 = 4, kInt16 = 5, kUInt16 = 6, kInt32 = 7, kUInt32 = 8,
  kInt64 = 9, kUInt64 = 10, kFloat = 11, kDouble = 12, kBool32 = 13, kBinary = 14, kGuid = 15, kFileTime = 17,
  kSystemTime = 18, kSid = 19, kHexInt32 = 20, kHexInt64 = 21, kCountedString = 22, kCountedAnsiString = 23, kStruct = 24,
  kConstantCount = 0x20, kVariableCount = 0x40, kChain = 0x80,
};
// Out-types (TlgOut_t).
enum : std::uint8_t { kOutBoolean = 3, kOutHex = 4 };

struct TlSchema {
  Buf b;
  explicit TlSchema(const std::string& event, std::vector<std::uint8_t> tags = {0}) {
    put<std::uint16_t>(b, 0);  // size, set by done()
    b.insert(b.end(), tags.begin(), tags.end());
    put_utf8z(b, event);
  }
  TlSchema& field(const std::string& name, std::uint8_t in) {
    put_utf8z(b, name);
    b.push_back(in);
    return *this;
  }
  TlSchema& field(const std::string& name, std::uint8_t in, std::uint8_t out) {
    put_utf8z(b, name);
    b.push_back(static_cast<std::uint8_t>(in | kChain));
    b.push_back(out);
    return *this;
  }
  TlSchema& fixed(const std::string& name, std::uint8_t in, std::uint16_t count) {
    put_utf8z(b, name);
    b.push_back(static_cast<std::uint8_t>(in | kConstantCount));
    put(b, count);
    return *this;
  }
  // A struct of the `members` fields that follow (a variable-count array of them with `array`).
  TlSchema& structure(const std::string& name, std::uint8_t members, bool array = false) {
    return field(name, static_cast<std::uint8_t>(kStruct | (array ? kVariableCount : 0)), members);
  }
  Buf done() const {
    Buf out = b;
    set_u16(out, 0, out.size());
    return out;
  }
};

Buf tl_traits(const std::string& provider) {
  Buf t;
  put<std::uint16_t>(t, 0);
  put_utf8z(t, provider);
  // One trait: the provider group (type 1), a GUID: a decoder skips it by its size.
  put<std::uint16_t>(t, 3 + 16);
  t.push_back(1);
  put_guid(t, *Guid::parse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"));
  set_u16(t, 0, t.size());
  return t;
}

const Guid kTlProvider = *Guid::parse("d5b90669-1aad-5db8-16c9-6286a7fcfe33");

Ev tl_event(std::int64_t ts, Buf schema, Buf traits, Buf payload) {
  Ev e = ev(HeaderKind::event_header64, ts, 30, 31, 0, std::move(payload));
  e.provider = kTlProvider;
  if (!traits.empty()) e.items.emplace_back(12, std::move(traits));
  e.items.emplace_back(11, std::move(schema));
  return e;
}

// The rich event: every kind of field, arrays counted and fixed, structs nested.
Buf rich_schema() {
  TlSchema s("MyEvent");
  s.field("Count", kInt32)
      .field("Flag8", kUInt8, kOutBoolean)  // .NET's bool: one byte
      .field("Flag32", kBool32)             // BOOL32: four bytes
      .field("Wide", kUnicodeString)
      .field("Narrow", kAnsiString)
      .field("CountedWide", kCountedString)
      .field("CountedNarrow", kCountedAnsiString)
      .field("Id", kGuid)
      .field("When", kFileTime)
      .field("At", kSystemTime)
      .field("Blob", kBinary)
      .field("Values", kUInt32 | kVariableCount)
      .fixed("Pair", kInt16, 2)
      .field("Names", kUnicodeString | kVariableCount)
      .structure("Point", 2)
      .field("X", kInt64)
      .structure("Inner", 1)
      .field("Name", kAnsiString)
      .structure("Items", 1, true)
      .field("V", kUInt8, kOutHex)
      .field("Ratio", kDouble)
      .field("Mask", kHexInt64)
      .field("Sid", kSid);
  return s.done();
}

Buf rich_payload() {
  Buf p;
  put<std::int32_t>(p, -5);
  p.push_back(1);
  put<std::uint32_t>(p, 0);
  put_utf16z(p, "wide text");
  put_utf8z(p, "narrow text");
  put<std::uint16_t>(p, 14);  // bytes
  for (char c : std::string("counted")) put<std::uint16_t>(p, static_cast<std::uint16_t>(c));
  put<std::uint16_t>(p, 3);
  p.insert(p.end(), {'a', 'b', 'c'});
  put_guid(p, *Guid::parse("01234567-89ab-cdef-0123-456789abcdef"));
  put<std::uint64_t>(p, 133'000'000'000'000'000ull);  // FILETIME: 2022-06-18T04:26:40Z
  for (std::uint16_t v : {2024, 5, 3, 1, 12, 34, 56, 789}) put(p, v);  // SYSTEMTIME (day of week 3)
  put<std::uint16_t>(p, 2);
  p.insert(p.end(), {0xDE, 0xAD});
  put<std::uint16_t>(p, 3);
  for (std::uint32_t v : {1u, 2u, 4000000000u}) put(p, v);
  put<std::int16_t>(p, -1);
  put<std::int16_t>(p, 7);
  put<std::uint16_t>(p, 2);
  put_utf16z(p, "a");
  put_utf16z(p, "bc");
  put<std::int64_t>(p, -9'000'000'000);
  put_utf8z(p, "inner");
  put<std::uint16_t>(p, 2);
  p.push_back(0x10);
  p.push_back(0x20);
  const double ratio = 0.5;
  std::uint8_t r[8];
  std::memcpy(r, &ratio, 8);
  p.insert(p.end(), r, r + 8);
  put<std::uint64_t>(p, 0xFEEDull);
  p.insert(p.end(), {1, 2, 0, 0, 0, 0, 0, 5});  // S-1-5-32-544
  put<std::uint32_t>(p, 32);
  put<std::uint32_t>(p, 544);
  return p;
}

Buf tl_file(const std::vector<Ev>& events) {
  Buf f = buffer({logfile_event(1)}, 0, false, 1024);
  const Buf b = buffer(events, 0, false, 8192);
  f.insert(f.end(), b.begin(), b.end());
  return f;
}

// `f`'s events, described and as JSON lines; the reader, which the descriptions' names point into.
struct TlRead {
  std::unique_ptr<Reader> reader;
  std::vector<std::string> lines;
  std::vector<Described> d;
  std::string error;
};
TlRead tl_read(const Buf& f) {
  TlRead out;
  auto opened = Reader::open_memory(f);
  if (!opened) {
    out.error = opened.error().message();
    return out;
  }
  out.reader = std::move(*opened);
  EventDescriber describer(std::vector<const Catalog*>{});
  for (;;) {
    auto n = out.reader->next();
    if (!n) {
      out.error = n.error().message();
      break;
    }
    if (!*n) break;
    std::string line;
    Described d;
    format_event(**n, describer, 0, LineFormat::json, line, &d);
    out.lines.push_back(line);
    out.d.push_back(d);
  }
  return out;
}

std::string fields_of(const std::string& json_line) {
  const std::size_t at = json_line.find("\"fields\":");
  if (at == std::string::npos) return {};
  std::size_t depth = 0, end = at + 9;
  for (; end < json_line.size(); ++end) {
    if (json_line[end] == '{') ++depth;
    if (json_line[end] == '}' && --depth == 0) break;
  }
  return json_line.substr(at + 9, end - at - 8);
}

}  // namespace

TEST_CASE("ETL: TraceLogging events decode from the schema and provider traits they carry") {
  Ev rich = tl_event(kStart + 10, rich_schema(), tl_traits("MyCompany.MyProvider"), rich_payload());
  Ev bare = tl_event(kStart + 20, TlSchema("Bare").done(), {}, {});  // no traits: the provider is its GUID
  bare.hook_or_id = 7;
  const Buf f = tl_file({rich, bare, rich});
  const TlRead read = tl_read(f);
  const auto& lines = read.lines;
  const auto& d = read.d;
  CHECK(read.error.empty());
  REQUIRE(lines.size() == 4);  // the logfile header, then the three
  REQUIRE(d.size() == 4);
  CHECK(d[1].kind == Described::Kind::decoded);
  CHECK(d[1].trailing == 0);
  CHECK(d[1].provider_name == "MyCompany.MyProvider");
  CHECK(d[1].name == "MyEvent/Start");  // the header's opcode 1, named as TraceEvent names it
  CHECK(d[1].self_description != nullptr);
  CHECK(d[3].type == d[1].type);  // the same schema: one type, parsed once
  CHECK(d[3].self_description == d[1].self_description);
  CHECK(lines[1].find("\"provider\":\"MyCompany.MyProvider\"") != std::string::npos);
  CHECK(lines[1].find("\"name\":\"MyEvent/Start\"") != std::string::npos);
  // Field by field, each as the payload above writes it.
  CHECK(fields_of(lines[1]) ==
        "{\"Count\":-5,\"Flag8\":true,\"Flag32\":false,\"Wide\":\"wide text\",\"Narrow\":\"narrow text\","
        "\"CountedWide\":\"counted\",\"CountedNarrow\":\"abc\",\"Id\":\"01234567-89ab-cdef-0123-456789abcdef\","
        "\"When\":\"2022-06-18T04:26:40.0000000Z\",\"At\":\"2024-05-01T12:34:56.789\",\"Blob\":\"0xdead\","
        "\"Values\":[1,2,4000000000],\"Pair\":[-1,7],\"Names\":[\"a\",\"bc\"],"
        "\"Point\":{\"X\":-9000000000,\"Inner\":{\"Name\":\"inner\"}},\"Items\":[{\"V\":16},{\"V\":32}],"
        "\"Ratio\":0.5,\"Mask\":65261,\"Sid\":\"S-1-5-32-544\"}");
  CHECK(fields_of(lines[1]) == fields_of(lines[3]));

  CHECK(d[2].kind == Described::Kind::decoded);
  CHECK(d[2].provider_name == "d5b90669-1aad-5db8-16c9-6286a7fcfe33");
  CHECK(d[2].name == "Bare/Start");
  CHECK(fields_of(lines[2]) == "{}");

  // --filter and the other selections match the names like any event's.
  CHECK(EventPattern("MyCompany.MyProvider/MyEvent*").names_event(d[1].provider_name, d[1].name, d[1].symbol));
  CHECK(EventPattern("MyEvent/Start").names_event(d[1].provider_name, d[1].name, d[1].symbol));
  CHECK_FALSE(EventPattern("Bare*").names_event(d[1].provider_name, d[1].name, d[1].symbol));

  // The text line names them too.
  auto opened = Reader::open_memory(f);
  REQUIRE(opened.ok());
  EventDescriber describer(std::vector<const Catalog*>{});
  (void)(*opened)->next();
  auto n = (*opened)->next();
  REQUIRE(n.ok());
  std::string text;
  format_event(**n, describer, 0, LineFormat::text, text);
  CHECK(text.find("MyCompany.MyProvider/MyEvent/Start (0 v2)") != std::string::npos);
  CHECK(text.find("Items=[{V=0x10}, {V=0x20}]") != std::string::npos);
  CHECK((**n).event_name == "MyEvent");
}

TEST_CASE("ETL: a TraceLogging payload cut short is a malformed event, named by its field") {
  const Buf payload = rich_payload();
  std::size_t malformed = 0;
  for (std::size_t cut = 0; cut < payload.size(); ++cut) {
    const Buf f = tl_file({tl_event(kStart + 10, rich_schema(), tl_traits("P"), Buf(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(cut)))});
    const TlRead read = tl_read(f);
    CHECK(read.error.empty());  // the trace goes on: only the event is bad
    REQUIRE(read.d.size() == 2);
    malformed += read.d[1].kind == Described::Kind::malformed && !read.d[1].error.field.empty();
  }
  CHECK(malformed == payload.size());
}

TEST_CASE("ETL: an event whose TraceLogging schema or traits do not parse is malformed, with the reason and byte") {
  const Buf schema = rich_schema(), traits = tl_traits("MyCompany.MyProvider"), payload = rich_payload();
  // What the reader made of a file of one such event and a good one after it: the bad event's reason, empty when
  // it decoded; the trace must go on to the good one either way.
  auto read_one = [&](const Buf& bad_schema, const Buf& bad_traits) {
    const TlRead read = tl_read(tl_file({tl_event(kStart + 10, bad_schema, bad_traits, payload),
                                         tl_event(kStart + 20, schema, traits, payload)}));
    CHECK(read.error.empty());
    REQUIRE(read.d.size() == 3);
    CHECK(read.d[2].kind == Described::Kind::decoded);
    CHECK(read.d[2].name == "MyEvent/Start");
    if (read.d[1].kind != Described::Kind::malformed) return std::string();
    CHECK(read.d[1].name == "UnreadableSchema");
    CHECK(read.lines[1].find("\"status\":\"malformed\"") != std::string::npos);
    return read.d[1].error.message();
  };
  std::size_t located = 0, cuts = 0;
  std::set<std::string> reasons;
  // Cut at every byte, its own size left as it was: the size is past the end.
  // Cut at every byte with the size rewritten: the cut falls inside a name, a type or a count.
  for (int rewrite = 0; rewrite < 2; ++rewrite)
    for (std::size_t cut = 0; cut < schema.size(); ++cut) {
      Buf s(schema.begin(), schema.begin() + static_cast<std::ptrdiff_t>(cut));
      if (rewrite && cut >= 2) set_u16(s, 0, cut);
      const std::string error = read_one(s, traits);
      if (error.empty()) {  // a cut between two fields is a shorter, valid schema: the rest is trailing bytes
        CHECK(rewrite == 1);
        continue;
      }
      ++cuts;
      const bool ok = error.find("TraceLogging schema") != std::string::npos &&
                      error.find("extended data item 11 at byte") != std::string::npos;
      CHECK_MESSAGE(ok, error);
      located += ok;
      reasons.insert(error.substr(error.find("TraceLogging schema"), 40));
    }
  CHECK(located == cuts);
  CHECK(cuts > schema.size());
  CHECK(reasons.size() > 5);
  for (std::size_t cut = 0; cut < traits.size(); ++cut) {
    const std::string error = read_one(schema, Buf(traits.begin(), traits.begin() + static_cast<std::ptrdiff_t>(cut)));
    if (cut == 0) {
      CHECK(error.empty());  // an empty traits item names no provider
      continue;
    }
    CHECK_MESSAGE(error.find("TraceLogging provider traits") != std::string::npos, error);
    CHECK_MESSAGE(error.find("extended data item 12 at byte") != std::string::npos, error);
  }
  // A type TraceLogging does not define, a struct with more members than fields follow.
  TlSchema bad_type("E");
  bad_type.field("F", 16);
  CHECK(read_one(bad_type.done(), {}).find("field 'F' has type 16, which TraceLogging does not define") != std::string::npos);
  TlSchema short_struct("E");
  short_struct.structure("S", 3).field("A", kInt32);
  CHECK(read_one(short_struct.done(), {}).find("struct 'S' declares 3 members; 1 fields follow it") != std::string::npos);
}

TEST_CASE("ETL: TraceLogging arrays of empty structs cannot make the walk run forever") {
  // Constant-count arrays of empty structs, nested: 65535^3 values in no bytes.
  TlSchema s("E");
  s.b.push_back('A'), s.b.push_back(0), s.b.push_back(kStruct | kConstantCount | kChain), s.b.push_back(1), put<std::uint16_t>(s.b, 65535);
  s.b.push_back('B'), s.b.push_back(0), s.b.push_back(kStruct | kConstantCount | kChain), s.b.push_back(1), put<std::uint16_t>(s.b, 65535);
  s.b.push_back('C'), s.b.push_back(0), s.b.push_back(kStruct | kConstantCount | kChain), s.b.push_back(0), put<std::uint16_t>(s.b, 65535);
  const TlRead read = tl_read(tl_file({tl_event(kStart + 10, s.done(), {}, {})}));
  REQUIRE(read.d.size() == 2);
  CHECK(read.d[1].kind == Described::Kind::malformed);
  CHECK(read.d[1].error.code == Errc::too_deep);
}

CLRETW_SHARED_CASE("ETL: SelfDescribingSingleEvent.etl decodes as TraceEvent's test of it asserts") {
  // PerfView's src/TraceEvent/TraceEvent.Tests/Regression/Issue1618.cs reads this file (its
  // inputs/Regression/SelfDescribingSingleEvent.etl) with ETWTraceEventSource and asserts, for the
  // event of provider "MySource" named "TestEvent", that PayloadValue(0).ToString() is
  // { "b":"Hello", "c":"World!" } - TraceEvent's StructValue written by its WriteAsJSon. Here:
  // the same provider and event name, one payload field (a struct), and that struct written the way
  // WriteAsJSon writes one of strings ("{ ", "\"name\":\"value\"" joined by ", ", " }").
  const Buf f = load_shared("SelfDescribingSingleEvent.etl");
  if (f.empty()) {
    clretw::test::skip("../shared/etl/SelfDescribingSingleEvent.etl is absent");
    return;
  }
  struct TraceEventStruct final : FieldVisitor {
    std::string out;
    int depth = 0, top_fields = 0;
    bool first = true;
    void scalar(const Scalar& s) override {
      if (depth == 0) ++top_fields;
      if (!first) out += ", ";
      first = false;
      out += "\"" + std::string(s.field->name) + "\":\"" + s.as_utf16().to_utf8() + "\"";
    }
    void begin_struct(const FieldDesc&) override {
      if (depth++ == 0) ++top_fields;
      out += "{ ";
      first = true;
    }
    void end_struct(const FieldDesc&) override {
      --depth;
      out += " }";
    }
  };
  auto opened = Reader::open_memory(f);
  REQUIRE(opened.ok());
  EventDescriber describer(std::vector<const Catalog*>{});
  std::size_t events = 0, tracelogging = 0;
  for (;;) {
    auto n = (*opened)->next();
    REQUIRE(n.ok());
    if (!*n) break;
    ++events;
    if (!(*n)->self_description) continue;
    ++tracelogging;
    TraceEventStruct v;
    const Described d = describer.describe(**n, &v);
    CHECK(d.kind == Described::Kind::decoded);
    CHECK(d.trailing == 0);
    CHECK(d.provider_name == "MySource");
    CHECK(d.name == "TestEvent");
    CHECK(v.top_fields == 1);
    CHECK(v.out == "{ \"b\":\"Hello\", \"c\":\"World!\" }");
  }
  CHECK(tracelogging == 1);
  MESSAGE("SelfDescribingSingleEvent.etl: " << events << " events, " << tracelogging << " TraceLogging");
}

// --- KernelTraceControl-MetaData ------------------------------------------------------------
//
// TRACE_EVENT_INFO and EVENT_MAP_INFO written here byte by byte as TDH lays them out (the layout
// runtime/etl/src/event_info.h states, checked there against net.4.5.2.x64.etl's own MetaData events).

namespace {

const Guid kMetaData = *Guid::parse("bbccf6c1-6cd1-48c4-80ff-839482e37671");
const Guid kDescribed = *Guid::parse("0a0b0c0d-1111-2222-3333-444455556666");

struct InfoProperty {
  InfoProperty(std::string n, std::uint32_t f, std::uint16_t t, std::uint16_t o, std::string m = {}, std::uint16_t c = 1,
               std::uint16_t l = 0)
      : name(std::move(n)), flags(f), type(t), out(o), map(std::move(m)), count(c), length(l) {}
  std::string name;
  std::uint32_t flags;         // 1 struct, 2 length from a property, 4 count from one, 0x80 custom schema
  std::uint16_t type, out;     // in-type and out-type; a struct: first member, member count
  std::string map;
  std::uint16_t count, length;  // or the properties holding them
};

// A UTF-16 string appended at the end of `b`; its offset from `base`.
std::uint32_t put_string(Buf& b, const std::string& s, std::size_t base = 0) {
  if (s.empty()) return 0;
  const auto at = static_cast<std::uint32_t>(b.size() - base);
  put_utf16z(b, s);
  return at;
}
void set_u32(Buf& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

Buf event_info(std::uint16_t id, std::uint8_t version, const std::string& task, const std::string& opcode,
               const std::vector<InfoProperty>& props, std::uint32_t top) {
  Buf b;
  put_guid(b, kDescribed);
  put_guid(b, Guid{});
  put<std::uint16_t>(b, id);
  b.push_back(version);
  b.push_back(16);  // channel
  b.push_back(4);   // level
  b.push_back(1);   // opcode
  put<std::uint16_t>(b, 7);  // task
  put<std::uint64_t>(b, 0x8000000000000010ull);
  b.resize(112, 0);  // the sixteen u32, set below
  set_u32(b, 100, static_cast<std::uint32_t>(props.size()));
  set_u32(b, 104, top);
  set_u32(b, 108, 1);
  b.resize(112 + 24 * props.size(), 0);
  set_u32(b, 52, put_string(b, "My-Described-Provider"));
  set_u32(b, 68, put_string(b, task));
  set_u32(b, 72, put_string(b, opcode));
  for (std::size_t i = 0; i < props.size(); ++i) {
    const InfoProperty& q = props[i];
    const std::size_t at = 112 + 24 * i;
    set_u32(b, at, q.flags);
    set_u32(b, at + 4, put_string(b, q.name));
    set_u16(b, at + 8, q.type);
    set_u16(b, at + 10, q.out);
    set_u32(b, at + 12, put_string(b, q.map));
    set_u16(b, at + 16, q.count);
    set_u16(b, at + 18, q.length);
  }
  return b;
}

Buf event_map_info(const std::string& name, bool bitmap, const std::vector<std::pair<std::uint32_t, std::string>>& entries) {
  Buf b;
  put_guid(b, kDescribed);
  const std::size_t base = b.size();
  put<std::uint32_t>(b, 0);
  put<std::uint32_t>(b, bitmap ? 2 : 1);
  put<std::uint32_t>(b, static_cast<std::uint32_t>(entries.size()));
  put<std::uint32_t>(b, 0);
  b.resize(b.size() + 8 * entries.size(), 0);
  set_u32(b, base, put_string(b, name, base));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    set_u32(b, base + 16 + 8 * i, put_string(b, entries[i].second + " ", base));  // TDH's names end in a space
    set_u32(b, base + 20 + 8 * i, entries[i].first);
  }
  return b;
}

Ev metadata_event(std::int64_t ts, std::uint8_t opcode, Buf payload) {
  Ev e = ev(HeaderKind::full64, ts, 10, 20, opcode, std::move(payload));
  e.classic = kMetaData;
  return e;
}

Ev described_event(HeaderKind kind, std::int64_t ts, std::uint16_t id, Buf payload) {
  Ev e = ev(kind, ts, 30, 31, id, std::move(payload));
  e.provider = kDescribed;
  return e;
}

// Every kind of property: a length and a count from earlier properties, a struct array, a value map, a bitmap,
// a pointer (sized by the event's header), a port, a string.
std::vector<InfoProperty> transfer_properties() {
  return {{"Size", 0, 8, 8},
          {"Data", 2, 14, 15, "", 1, 0},  // length: property 0
          {"Port", 0, 6, 22},
          {"Kind", 0, 8, 8, "KindMap"},
          {"Flags", 0, 8, 8, "FlagsMap"},
          {"N", 0, 6, 6},
          {"Items", 1 | 4, 8, 2, "", 5, 0},  // members 8 and 9, count: property 5
          {"Tail", 0, 1, 1},
          {"X", 0, 7, 7},
          {"Y", 0, 16, 19}};
}

Buf transfer_payload(unsigned pointer_size) {
  Buf p;
  put<std::uint32_t>(p, 3);
  p.insert(p.end(), {0xAA, 0xBB, 0xCC});
  p.insert(p.end(), {0x01, 0xBB});  // port 443, network order
  put<std::uint32_t>(p, 2);
  put<std::uint32_t>(p, 3);
  put<std::uint16_t>(p, 2);
  for (int i = 0; i < 2; ++i) {
    put<std::int32_t>(p, i ? 5 : -1);
    if (pointer_size == 8) put<std::uint64_t>(p, 0x10u << i);
    else put<std::uint32_t>(p, 0x10u << i);
  }
  put_utf16z(p, "end");
  return p;
}

}  // namespace

TEST_CASE("ETL: events of manifests absent here decode from the trace's KernelTraceControl-MetaData events") {
  const auto info = event_info(40, 2, "Transfer", "win:Start", transfer_properties(), 8);
  const auto kinds = event_map_info("KindMap", false, {{1, "One"}, {2, "Two"}});
  const auto flags = event_map_info("FlagsMap", true, {{1, "A"}, {2, "B"}});
  const Buf whole = transfer_payload(8);
  const Buf f = tl_file({described_event(HeaderKind::event_header64, kStart + 5, 40, transfer_payload(8)),  // before its info
                         metadata_event(kStart + 10, 33, kinds), metadata_event(kStart + 11, 33, flags),
                         metadata_event(kStart + 12, 32, info),
                         described_event(HeaderKind::event_header64, kStart + 20, 40, transfer_payload(8)),
                         described_event(HeaderKind::event_header32, kStart + 21, 40, transfer_payload(4)),
                         metadata_event(kStart + 22, 32, info),  // repeated, as merging tools do: the first is kept
                         described_event(HeaderKind::event_header64, kStart + 30, 40, Buf(whole.begin(), whole.begin() + 9)),
                         described_event(HeaderKind::event_header64, kStart + 40, 41, transfer_payload(8))});  // undescribed id
  const TlRead read = tl_read(f);
  CHECK(read.error.empty());
  REQUIRE(read.d.size() == 10);
  // Before its EventInfo, an event is unknown: the reader describes in trace order, in one pass.
  CHECK(read.d[1].kind == Described::Kind::unknown);
  for (std::size_t i : {5u, 6u}) {
    CAPTURE(i);
    CHECK(read.d[i].kind == Described::Kind::decoded);
    CHECK(read.d[i].trailing == 0);
    CHECK(read.d[i].provider_name == "My-Described-Provider");
    CHECK(read.d[i].name == "Transfer/Start");
    CHECK(fields_of(read.lines[i]) ==
          "{\"Size\":3,\"Data\":\"0xaabbcc\",\"Port\":443,\"Kind\":\"Two\",\"Flags\":\"A, B\",\"N\":2,"
          "\"Items\":[{\"X\":-1,\"Y\":16},{\"X\":5,\"Y\":32}],\"Tail\":\"end\"}");
  }
  CHECK(read.d[5].self_description != read.d[6].self_description);  // pointer sizes 8 and 4
  // Cut after Port: malformed, the field and the byte named.
  CHECK(read.d[8].kind == Described::Kind::malformed);
  CHECK(read.d[8].error.message() == "payload truncated (Kind) at offset 9");
  CHECK(read.d[9].kind == Described::Kind::unknown);
  const Stats& st = read.reader->stats();
  CHECK(st.metadata_taken == 3);  // two maps, one info (its repeat is not taken again)
  CHECK(st.metadata_refused == 0);
  CHECK(st.metadata_described == 3);
}

TEST_CASE("ETL: MetaData descriptions that cannot be used: named events without fields, or refused infos") {
  struct Bad {
    const char* what;
    std::vector<InfoProperty> props;
    std::uint32_t top;
  };
  const std::vector<Bad> bad = {
      {"a struct whose members come before it", {{"A", 0, 8, 8}, {"S", 1, 0, 1}}, 2},
      {"a struct whose members run past the properties", {{"S", 1, 1, 5}}, 1},
      {"a count from a later property", {{"A", 0, 8, 8, "", 1}, {"B", 4, 8, 8, "", 2}, {"C", 0, 8, 8}}, 3},
      {"a length from a string", {{"A", 0, 1, 1}, {"B", 2, 14, 15, "", 1, 0}}, 2},
      {"an in-type clretw does not read", {{"A", 0, 22, 1}}, 1},
      {"a custom schema", {{"A", 0x80, 8, 8}}, 1},
      {"binary data of no length before another field", {{"A", 0, 14, 15}, {"B", 0, 8, 8}}, 2},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.what);
    const Buf f = tl_file({metadata_event(kStart + 1, 32, event_info(40, 2, "Task", "", b.props, b.top)),
                           described_event(HeaderKind::event_header64, kStart + 2, 40, Buf(16, 1))});
    const TlRead read = tl_read(f);
    CHECK(read.error.empty());
    REQUIRE(read.d.size() == 3);
    CHECK(read.d[2].name == "Task");  // named, though its fields are not known
    CHECK(read.d[2].kind == Described::Kind::decoded);
    CHECK(read.d[2].undescribed);  // "16 payload bytes the trace's metadata lists no fields for"
    CHECK(read.reader->stats().metadata_refused == 0);
  }
  // Infos and maps too short for what they claim: refused, counted; the events stay unknown.
  Buf info = event_info(40, 2, "Task", "", {{"A", 0, 8, 8}}, 1);
  Buf many = info;
  set_u32(many, 100, 1000);  // 1,000 properties in a few hundred bytes
  Buf top = info;
  set_u32(top, 104, 2);  // 2 top-level of 1
  Buf map = event_map_info("M", false, {{1, "x"}});
  set_u32(map, 24, 50);  // 50 entries
  const Buf f = tl_file({metadata_event(kStart + 1, 32, Buf(info.begin(), info.begin() + 100)), metadata_event(kStart + 2, 32, many),
                         metadata_event(kStart + 3, 32, top), metadata_event(kStart + 4, 33, map),
                         metadata_event(kStart + 5, 33, Buf(10, 0)),
                         described_event(HeaderKind::event_header64, kStart + 6, 40, Buf(4, 1))});
  const TlRead read = tl_read(f);
  CHECK(read.error.empty());
  REQUIRE(read.d.size() == 7);
  CHECK(read.d[6].kind == Described::Kind::unknown);
  CHECK(read.reader->stats().metadata_refused == 5);
  CHECK(read.reader->stats().metadata_taken == 0);
  // The summary (clretw-dump --stats' first line) counts them, with the last one's reason.
  CHECK(read.reader->summary().ends_with(
      ", 0 event descriptions from KernelTraceControl-MetaData (5 unreadable; the last: EventMapInfo: 10 bytes, less than "
      "a GUID and an EVENT_MAP_INFO's 16)"));
}

// The kernel's TcpIp and UdpIp events of version 2 that TraceEvent's kernel parser reads, at the offsets it
// reads them: Connect and Accept (and their IPv6 forms) with the connection's options, Fail, and the
// ACK and copy events of the plain TcpIp layout; pointers as the event header says (64- and 32-bit).
TEST_CASE("ETL: every kernel TcpIp and UdpIp event of version 2 decodes, field for field") {
  namespace wk = clretw::windows_kernel;
  EventDescriber describer({&clretw::catalog()});
  struct Bytes8 {
    Buf b;
    Bytes8& u16(std::uint16_t v) { return b.push_back(static_cast<std::uint8_t>(v)), b.push_back(static_cast<std::uint8_t>(v >> 8)), *this; }
    Bytes8& u32(std::uint32_t v) { return u16(static_cast<std::uint16_t>(v)).u16(static_cast<std::uint16_t>(v >> 16)); }
    Bytes8& raw(std::initializer_list<std::uint8_t> v) { return b.insert(b.end(), v), *this; }
    Bytes8& pointer(std::uint64_t v, unsigned size) {
      return size == 8 ? u32(static_cast<std::uint32_t>(v)).u32(static_cast<std::uint32_t>(v >> 32)) : u32(static_cast<std::uint32_t>(v));
    }
  };
  const auto line = [&](std::uint16_t id, unsigned pointer_size, const Buf& payload) {
    EventRecord e;
    e.provider_guid = wk::provider_guid;
    e.id = id;
    e.version = 2;
    e.task = static_cast<std::uint16_t>(id >> 8);
    e.opcode = static_cast<std::uint8_t>(id & 0xFF);
    e.pointer_size = static_cast<std::uint8_t>(pointer_size);
    e.process_id = kUnrecorded;
    e.thread_id = kUnrecorded;
    e.processor = kUnrecorded;
    e.payload = Bytes(payload.data(), payload.size());
    const Described d = describer.describe(e);
    CHECK(d.kind == Described::Kind::decoded);
    CHECK(d.trailing == 0);
    std::string out;
    format_event(e, describer, 0, LineFormat::text, out);
    return out.substr(out.find_first_not_of(' '));
  };
  const auto connect_v4 = [](unsigned pointer_size) {
    Bytes8 p;
    p.u32(4242).u32(0).raw({10, 0, 0, 1}).raw({192, 168, 1, 2}).raw({0x01, 0xBD}).raw({0xC3, 0x50});  // ports in network order
    p.u16(1460).u16(1).u16(0).u16(1).u32(65535).u16(8).u16(7).u32(123456789).pointer(0xFFFF8000DEADBEEF, pointer_size);
    return p.b;
  };
  const std::string options = "mss=1460 sackopt=1 tsopt=0 wsopt=1 rcvwin=65535 rcvwinscale=8 sndwinscale=7 seqnum=123456789";
  CHECK(line(0x060C, 8, connect_v4(8)) == "0.0000  Windows Kernel/TcpIp/Connect (1548 v2)  PID=4242 size=0 daddr=10.0.0.1 "
                                          "saddr=192.168.1.2 dport=445 sport=50000 " + options + " connid=0xffff8000deadbeef");
  CHECK(line(0x060F, 8, connect_v4(8)).starts_with("0.0000  Windows Kernel/TcpIp/Accept (1551 v2)  PID=4242 size=0 daddr=10.0.0.1"));
  CHECK(line(0x060F, 4, connect_v4(4)).ends_with(options + " connid=0xdeadbeef"));  // a 32-bit kernel's 44 bytes
  Bytes8 v6;
  v6.u32(7).u32(0).raw({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}).raw({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  v6.raw({0x00, 0x50}).raw({0xC3, 0x51}).u16(1440).u16(1).u16(1).u16(0).u32(1000).u16(2).u16(3).u32(42).pointer(0x1234, 8);
  CHECK(line(0x061C, 8, v6.b) == "0.0000  Windows Kernel/TcpIp/ConnectIPV6 (1564 v2)  PID=7 size=0 daddr=2001:db8::1 saddr=fe80::2 "
                                 "dport=80 sport=50001 mss=1440 sackopt=1 tsopt=1 wsopt=0 rcvwin=1000 rcvwinscale=2 sndwinscale=3 "
                                 "seqnum=42 connid=0x1234");
  CHECK(line(0x061F, 8, v6.b).starts_with("0.0000  Windows Kernel/TcpIp/AcceptIPV6 (1567 v2)  PID=7"));
  Bytes8 fail;
  fail.u16(6).u16(3);
  CHECK(line(0x0611, 8, fail.b) == "0.0000  Windows Kernel/TcpIp/Fail (1553 v2)  Proto=6 FailureCode=3");
  CHECK(line(0x0811, 8, fail.b) == "0.0000  Windows Kernel/UdpIp/Fail (2065 v2)  Proto=6 FailureCode=3");
  Bytes8 plain;  // Recv's layout: connid, then seqnum
  plain.u32(4242).u32(1400).raw({10, 0, 0, 1}).raw({10, 0, 0, 2}).raw({0x01, 0xBB}).raw({0xC3, 0x52}).pointer(0x77, 8).u32(9);
  const char* names[] = {"ARPCopy (1555", "FullACK (1556", "PartACK (1557", "DupACK (1558"};
  for (std::uint16_t type = 19; type <= 22; ++type)
    CHECK(line(static_cast<std::uint16_t>(0x0600 | type), 8, plain.b) ==
          "0.0000  Windows Kernel/TcpIp/" + std::string(names[type - 19]) +
              " v2)  PID=4242 size=1400 daddr=10.0.0.1 saddr=10.0.0.2 dport=443 sport=50002 connid=0x77 seqnum=9");
}
