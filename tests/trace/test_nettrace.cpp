// The nettrace reader against traces the writer produces: every format
// version (NetPerf V3 too), compressed and uncompressed headers, pointer sizes,
// negative timestamp deltas, lost events, stacks, activity ids, EventSource
// events with arrays, unknown providers, sorting, truncation and corruption.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/format.h"
#include "clretw/nettrace.h"
#include "../../runtime/nettrace/src/nettrace_format.h"    // the cursor, tested directly below
#include "../../runtime/nettrace/src/nettrace_metadata.h"  // metadata records, likewise
#include "metadata.h"

using namespace clretw;
using namespace clretw::nettrace;

namespace {

using clretw::test::clr_gc_start;
using clretw::test::event_source_event;

struct Written {
  std::string bytes;
  std::vector<EventSpec> events;                    // in file order
  std::vector<std::vector<std::uint8_t>> payloads;  // owned payloads of `events`
  std::vector<std::vector<std::uint64_t>> stacks;   // expected stack per event (empty: none)
  std::vector<std::uint32_t> metadata_of;           // which definition each event uses (index into `defs`)
  std::vector<Metadata> defs;
  std::uint64_t lost = 0;
};

Metadata event_source(unsigned format) {
  MetaField id{"Id", TypeCode::Int32, {}, {}, 0};
  MetaField url{"Url", TypeCode::String, {}, {}, 0};
  MetaField ok{"Ok", TypeCode::Boolean32, {}, {}, 0};
  MetaField where{"Where", TypeCode::Object, {}, {MetaField{"X", TypeCode::Int16, {}, {}, 0},
                                                  MetaField{"Label", TypeCode::String, {}, {}, 0}}, 0};
  Metadata m = event_source_event("Contoso-Demo", 7, "Request", {id, url, ok, where});
  m.level = 4;
  m.opcode = 1;
  m.has_opcode = true;
  if (format >= 5) {  // arrays need V2Params (V5) or V6 metadata
    MetaField sizes{"Sizes", TypeCode::Array, {MetaField{"", TypeCode::UInt16, {}, {}, 0}}, {}, 0};
    m.fields.push_back(sizes);
  }
  return m;
}

Metadata unknown_provider() {
  Metadata m;
  m.provider_name = "Some-Unknown-Provider";
  m.event_id = 3;
  return m;
}

std::vector<std::uint8_t> gc_start_payload(std::uint32_t count) {
  clretw::dotnet_runtime::payload::GCStart_V2 p;
  p.Count = count;
  p.Reason = clretw::dotnet_runtime::GCReasonMap::Induced;
  p.ClrInstanceID = 3;
  return *p.encode(8);
}

std::vector<std::uint8_t> request_payload(std::int32_t id, const std::string& url, unsigned format) {
  std::vector<std::uint8_t> b;
  ByteWriter w(b);
  w.put(id);
  put_utf16(w, url);
  w.put<std::uint16_t>(0);
  w.put<std::uint32_t>(1);
  w.put<std::int16_t>(-5);
  put_utf16(w, "here");
  w.put<std::uint16_t>(0);
  if (format >= 5) {
    w.put<std::uint16_t>(3);
    for (std::uint16_t v : {10, 20, 30}) w.put(v);
  }
  return b;
}

// Writes a trace with three threads, out-of-order timestamps, stacks, lost
// events, an unknown provider and a sequence point in the middle.
Written write_trace(unsigned format, bool compressed, unsigned ps, std::uint32_t block_bytes = 512) {
  Written t;
  std::ostringstream out;
  WriterOptions o;
  o.format = format;
  o.compressed = compressed;
  o.pointer_size = ps;
  o.block_bytes = block_bytes;
  Writer w(out, o);
  t.defs = {clr_gc_start(), event_source(format), unknown_provider()};
  std::vector<std::uint32_t> ids;
  for (const Metadata& m : t.defs) ids.push_back(w.define(m));
  std::uint32_t stack = 0;
  std::vector<std::uint64_t> stack_ips;
  std::mt19937 rng(format * 10 + compressed + ps);
  const std::int64_t base = 1'000'000;
  for (int i = 0; i < 120; ++i) {
    if (i == 60) {
      w.sequence_point(base + 80'000);  // after every earlier event, before every later one
      stack = 0;                          // stack ids end at a sequence point
    }
    if (i % 25 == 0) {
      stack_ips = {0x7FF0'0000'1000ull + static_cast<std::uint64_t>(i), 0x7FF0'0000'2000ull, 0x1234};
      if (ps == 4)
        for (auto& ip : stack_ips) ip &= 0xFFFFFFFF;
      stack = w.stack(stack_ips);
    }
    EventSpec e;
    const std::uint32_t which = i % 7 == 6 ? 2 : (i % 2);
    e.metadata_id = ids[which];
    e.thread_id = 100 + static_cast<std::uint64_t>(i % 3);
    e.capture_thread_id = e.thread_id;
    e.processor = static_cast<std::uint32_t>(i % 4);
    // Threads run ahead of each other (each thread's own events stay in order), so
    // timestamps go backwards between blobs. An event is marked sorted only when no
    // later event is earlier: those on the thread that runs behind.
    const int lag = i < 60 ? i % 3 : (i + 1) % 3;
    e.timestamp = (i < 60 ? base + 1000 * i : base + 80'000 + 1000 * (i - 60)) + 7000 * lag;
    e.sorted = i % 10 == 9 && lag == 0;
    e.stack_id = i % 2 ? stack : 0;
    e.skip_sequence = i == 40 ? 5 : 0;  // five events of this thread were "lost"
    if (format >= 4) t.lost += e.skip_sequence;  // NetPerf has no sequence numbers to tell
    if (i % 5 == 0) {
      char text[40];
      std::snprintf(text, sizeof text, "11111111-2222-3333-4444-%012d", i);
      e.activity_id = *Guid::parse(text);
    }
    if (i % 10 == 0) {
      char text[40];
      std::snprintf(text, sizeof text, "aaaaaaaa-2222-3333-4444-%012d", i + 1);
      e.related_activity_id = *Guid::parse(text);
    }
    t.payloads.push_back(which == 0 ? gc_start_payload(static_cast<std::uint32_t>(i))
                         : which == 1 ? request_payload(i, "/api/" + std::to_string(rng() % 1000) + "/\xC3\xA9", format)
                                      : std::vector<std::uint8_t>{1, 2, 3});
    t.stacks.push_back(e.stack_id ? stack_ips : std::vector<std::uint64_t>{});
    t.metadata_of.push_back(which);
    t.events.push_back(e);
    t.events.back().payload = {};
    e.payload = t.payloads.back();
    w.event(e);
  }
  w.finish();
  t.bytes = out.str();
  return t;
}

Bytes as_bytes(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

// Every event of a trace, described with the built-in decoders and formatted as a JSON line.
struct Line {
  std::string json;
  Described described;
};
std::vector<Line> json_lines(const std::string& bytes) {
  auto r = Reader::open_memory(as_bytes(bytes));
  REQUIRE(r);
  EventDescriber describer({&clretw::catalog()});
  std::vector<Line> lines;
  for (;;) {
    auto next = (*r)->next();
    REQUIRE(next);
    if (!*next) return lines;
    Line& l = lines.emplace_back();
    format_event(**next, describer, 0, LineFormat::json, l.json, &l.described);
  }
}

std::vector<std::uint64_t> stack_of(const EventRecord& r) {
  std::vector<std::uint64_t> ips;
  for (std::size_t i = 0; i < r.stack_depth(); ++i) ips.push_back(r.stack_frame(i));
  return ips;
}

}  // namespace

TEST_CASE("written traces read back exactly: NetPerf V3, V4, V5, V6; compressed or not; pointer size 4 and 8") {
  for (unsigned format : {3u, 4u, 5u, 6u}) {
    for (bool compressed : {true, false}) {
      for (unsigned ps : {4u, 8u}) {
        if (format == 3 && !compressed) continue;  // NetPerf headers are never compressed
        CAPTURE(format);
        CAPTURE(compressed);
        CAPTURE(ps);
        const Written t = write_trace(format, compressed, ps);
        auto opened = Reader::open_memory(as_bytes(t.bytes));
        REQUIRE(opened);
        Reader& r = **opened;
        CHECK(r.info().format == format);
        CHECK(r.info().pointer_size == ps);
        CHECK(r.info().process_id == 4242);
        CHECK(r.info().frequency == 10'000'000);
        std::size_t i = 0, with_stack = 0;
        for (;;) {
          auto next = r.next();
          REQUIRE(next);
          if (!*next) break;
          const EventRecord& e = **next;
          REQUIRE(i < t.events.size());
          const EventSpec& x = t.events[i];
          const Metadata& def = t.defs[t.metadata_of[i]];
          CHECK(e.provider_name == def.provider_name);
          CHECK(e.id == def.event_id);
          CHECK(e.version == def.version);
          CHECK(e.thread_id == x.thread_id);
          CHECK(e.capture_thread_id == x.capture_thread_id);  // NetPerf: the thread id, which write_trace makes equal
          CHECK(e.processor == (format == 3 ? 0 : x.processor));  // NetPerf records no processor
          CHECK(e.timestamp == x.timestamp);
          CHECK(e.pointer_size == ps);
          CHECK(e.activity_id == x.activity_id);
          CHECK(e.related_activity_id == x.related_activity_id);
          with_stack += !t.stacks[i].empty();
          CHECK(std::equal(e.payload.begin(), e.payload.end(), t.payloads[i].begin(), t.payloads[i].end()));
          CHECK(stack_of(e) == t.stacks[i]);
          if (format >= 5 && def.has_opcode) CHECK(e.opcode == def.opcode);
          ++i;
        }
        CHECK(i == t.events.size());
        CHECK(r.stats().events == t.events.size());
        CHECK(r.stats().lost_events == t.lost);
        CHECK(r.stats().metadata == 3);
        CHECK(r.stats().sequence_points == (format == 3 ? 0 : 1));
        CHECK(r.stats().unknown_metadata == 0);
        if (format == 3) CHECK(r.stats().stacks == with_stack);  // inline: one per event that has one
      }
    }
  }
}

TEST_CASE("decoding written events: CLR through the catalog, EventSource from its metadata, unknown providers") {
  for (unsigned format : {3u, 4u, 5u, 6u}) {
    CAPTURE(format);
    const Written t = write_trace(format, true, 8);
    std::map<Described::Kind, int> kinds;
    std::string first_request, first_gc;
    for (const Line& l : json_lines(t.bytes)) {
      const Described& d = l.described;
      ++kinds[d.kind];
      if (d.name.rfind("Request", 0) == 0 && first_request.empty()) first_request = l.json;
      if (d.self_description && format >= 5) CHECK(d.name == "Request/Start");  // V5+ carries the opcode
      if (d.name == "GC/Start" && first_gc.empty()) first_gc = l.json;
    }
    CHECK(kinds[Described::Kind::malformed] == 0);
    CHECK(kinds[Described::Kind::unknown] == 17);  // every 7th event comes from the unknown provider
    CHECK(kinds[Described::Kind::decoded] == 103);
    CHECK(first_gc.find("\"fields\":{\"Count\":0,\"Depth\":0,\"Reason\":\"Induced\",\"Type\":\"NonConcurrentGC\"") !=
          std::string::npos);
    CHECK(first_request.find("\"Url\":\"/api/") != std::string::npos);
    CHECK(first_request.find("\"Ok\":true,\"Where\":{\"X\":-5,\"Label\":\"here\"}") != std::string::npos);
    if (format >= 5) CHECK(first_request.find("\"Sizes\":[10,20,30]") != std::string::npos);
  }
}

TEST_CASE("sorted delivery: global timestamp order, nothing lost") {
  for (unsigned format : {3u, 5u, 6u}) {
    CAPTURE(format);
    // NetPerf is ordered per event block: write_trace's two halves (around its sequence point, which
    // ends a NetPerf block) are one block each, whose times do not overlap.
    const Written t = write_trace(format, true, 8, format == 3 ? 1u << 20 : 256);
    ReaderOptions ro;
    ro.sorted = true;
    auto r = Reader::open_memory(as_bytes(t.bytes), ro);
    REQUIRE(r);
    std::vector<std::int64_t> times;
    std::multiset<std::int64_t> expected;
    for (const EventSpec& e : t.events) expected.insert(e.timestamp);
    bool ordered = true;
    while (true) {
      auto next = (*r)->next();
      REQUIRE(next);
      if (!*next) break;
      if (!times.empty() && (*next)->timestamp < times.back()) ordered = false;
      times.push_back((*next)->timestamp);
    }
    CHECK(ordered);
    CHECK(std::multiset<std::int64_t>(times.begin(), times.end()) == expected);
  }
}

TEST_CASE("NetPerf sorted delivery orders each event block, not across blocks") {
  // NetPerf has no sequence points and no sorted flags; ordering across blocks would need the whole file.
  std::ostringstream out;
  WriterOptions o;
  o.format = 3;
  Writer w(out, o);
  Metadata m = unknown_provider();
  EventSpec e;
  e.metadata_id = w.define(m);
  for (std::int64_t ts : {50, 10, 30}) e.timestamp = ts, e.thread_id = static_cast<std::uint64_t>(ts), w.event(e);
  w.sequence_point(0);  // NetPerf: ends the event block
  for (std::int64_t ts : {20, 5}) e.timestamp = ts, e.thread_id = static_cast<std::uint64_t>(ts), w.event(e);
  w.finish();
  const std::string bytes = out.str();
  auto order = [&](bool sorted) {
    ReaderOptions ro;
    ro.sorted = sorted;
    auto r = Reader::open_memory(as_bytes(bytes), ro);
    REQUIRE(r);
    std::vector<std::int64_t> times;
    for (;;) {
      auto next = (*r)->next();
      REQUIRE(next);
      if (!*next) break;
      CHECK((*next)->thread_id == static_cast<std::uint64_t>((*next)->timestamp));  // each record stays whole
      times.push_back((*next)->timestamp);
    }
    CHECK((*r)->stats().event_blocks == 2);
    return times;
  };
  CHECK(order(false) == std::vector<std::int64_t>{50, 10, 30, 20, 5});
  CHECK(order(true) == std::vector<std::int64_t>{10, 30, 50, 5, 20});
}

TEST_CASE("truncation at every byte: every event of a complete block, then a located error") {
  for (unsigned format : {3u, 4u, 6u}) {
    CAPTURE(format);
    const Written t = write_trace(format, true, 8);
    // Where each event's block ends: the reader's position when it delivers the event.
    std::vector<std::uint64_t> ready_at;
    {
      auto r = Reader::open_memory(as_bytes(t.bytes));
      REQUIRE(r);
      while (true) {
        auto next = (*r)->next();
        REQUIRE(next);
        if (!*next) break;
        ready_at.push_back((*r)->position());
      }
    }
    int located = 0;
    for (std::size_t cut = 0; cut < t.bytes.size(); ++cut) {
      auto r = Reader::open_memory(as_bytes(t.bytes).first(cut));
      if (!r) {
        CHECK(r.error().offset <= cut);
        continue;
      }
      std::size_t n = 0;
      while (true) {
        auto next = (*r)->next();
        if (!next) {
          CHECK(next.error().offset <= cut);
          CHECK(!next.error().detail.empty());
          ++located;
          break;
        }
        REQUIRE(*next != nullptr);  // a cut file never ends cleanly
        ++n;
      }
      const auto complete = static_cast<std::size_t>(std::count_if(ready_at.begin(), ready_at.end(), [&](std::uint64_t p) { return p <= cut; }));
      CHECK(n >= complete);
      CHECK(n <= t.events.size());
    }
    CHECK(located > 0);
  }
}

TEST_CASE("damage names the block and byte offset") {
  for (unsigned format : {3u, 5u}) {
    CAPTURE(format);
    const Written t = write_trace(format, true, 8);
    std::string cut = t.bytes.substr(0, t.bytes.size() / 2);
    auto r = Reader::open_memory(as_bytes(cut));
    REQUIRE(r);
    std::size_t n = 0;
    Error e;
    while (true) {
      auto next = (*r)->next();
      if (!next) {
        e = next.error();
        break;
      }
      REQUIRE(*next);
      ++n;
    }
    CHECK(n > 0);
    CHECK(e.message().find("Block #") != std::string::npos);
    CHECK(e.message().find("at byte") != std::string::npos);
  }
}

TEST_CASE("NetPerf: an event whose size disagrees with its content is damage at that event's byte") {
  const Written t = write_trace(3, true, 8);
  // 24 bytes of stream header, the 70-byte Trace object, the EventBlock's 26-byte type and 4-byte
  // size: the first blob (the first metadata record) starts at byte 124, a multiple of 4.
  constexpr std::size_t kFirstBlob = 124;
  // The EventBlock's type: BeginObject, NullReference, version 1, min reader version 0.
  REQUIRE(t.bytes.compare(95, 10, "\x04\x01\x01\0\0\0\0\0\0\0", 10) == 0);
  for (std::uint32_t size : {8u, 4000u}) {
    CAPTURE(size);
    std::string bad = t.bytes;
    for (int k = 0; k < 4; ++k) bad[kFirstBlob + k] = static_cast<char>(size >> (8 * k));
    auto r = Reader::open_memory(as_bytes(bad));
    REQUIRE(r);
    auto next = (*r)->next();
    REQUIRE_FALSE(next);
    CHECK(next.error().code == Errc::bad_format);
    CHECK(next.error().offset == kFirstBlob);
    CHECK_MESSAGE(next.error().detail.find("EventBlock #1 at byte 124: event size " + std::to_string(size)) == 0,
                  next.error().detail);
  }
  // A metadata record (the payload of that first blob, after its 56-byte header) whose provider name
  // never ends: located at the record's byte 4, where the name starts.
  std::string bad = t.bytes;
  const std::size_t record = kFirstBlob + 56;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(bad.data());
  const std::uint32_t record_size = load_le<std::uint32_t>(bytes + kFirstBlob + 52);  // the blob's PayloadSize
  REQUIRE(record_size > 8);
  for (std::size_t k = record + 4; k < record + record_size; ++k) bad[k] = 'A';
  auto r = Reader::open_memory(as_bytes(bad));
  REQUIRE(r);
  auto next = (*r)->next();
  REQUIRE_FALSE(next);
  CHECK(next.error().offset == record + 4);
  CHECK_MESSAGE(next.error().detail == "EventBlock #1 at byte 124: malformed metadata record: the record ends in its "
                                       "metadata id or provider name at byte 4 of the " +
                                           std::to_string(record_size) + "-byte record",
                next.error().detail);
}

TEST_CASE("corrupted bytes never crash the reader or the decoders") {
  for (unsigned format : {3u, 5u}) {
    CAPTURE(format);
    const Written t = write_trace(format, true, 8);
    std::mt19937 rng(12345 + format);
    EventDescriber describer({&clretw::catalog()});
    for (int trial = 0; trial < 300; ++trial) {
      std::string bad = t.bytes;
      for (int k = 0; k < 1 + trial % 5; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
      for (bool sorted : {false, true}) {
        ReaderOptions ro;
        ro.sorted = sorted;
        auto r = Reader::open_memory(as_bytes(bad), ro);
        if (!r) continue;
        for (int guard = 0; guard < 100000; ++guard) {
          auto next = (*r)->next();
          if (!next || !*next) break;
          std::string line;
          format_event(**next, describer, 0, LineFormat::json, line);
        }
      }
    }
  }
  CHECK(true);  // reaching here without a sanitizer report is the assertion
}

TEST_CASE("inputs the fuzzer found (tests/trace/regressions) read to an end without undefined behaviour") {
  // Each file is a fuzz_nettrace input: one byte of reader options, then the trace.
  std::size_t files = 0;
  EventDescriber describer({&clretw::catalog()});
  for (const auto& e : std::filesystem::directory_iterator(std::string(CLRETW_TESTS_DIR) + "/trace/regressions")) {
    CAPTURE(e.path().string());
    std::ifstream in(e.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(!bytes.empty());
    ReaderOptions options;
    options.sorted = bytes[0] & 1;
    const std::string trace = bytes.substr(1);
    auto r = Reader::open_memory(as_bytes(trace), options);
    ++files;
    if (!r) continue;
    for (int guard = 0; guard < 100000; ++guard) {
      auto next = (*r)->next();
      if (!next || !*next) break;
      std::string line;
      format_event(**next, describer, (*r)->info().milliseconds((**next).timestamp), LineFormat::text, line);
    }
  }
  CHECK(files >= 1);
  // ms-overflow.bin: a timestamp and sync time 2^63 apart made the difference overflow.
  TraceInfo info;
  info.sync_timestamp = INT64_MIN + 7;
  info.frequency = 10'000'000;
  CHECK(std::isfinite(info.milliseconds(INT64_MAX)));
  CHECK(info.milliseconds(INT64_MIN + 7 + 10'000'000) == 1000.0);
}

TEST_CASE("files that are not nettrace, or of an unknown version, are refused clearly") {
  auto not_trace = Reader::open_memory(as_bytes(std::string("NotATrace...........")));
  REQUIRE_FALSE(not_trace);
  CHECK(not_trace.error().code == Errc::bad_format);
  std::string v7 = std::string("Nettrace") + std::string("\0\0\0\0\7\0\0\0\0\0\0\0", 12);
  auto seven = Reader::open_memory(as_bytes(v7));
  REQUIRE_FALSE(seven);
  CHECK(seven.error().code == Errc::unsupported_version);
  CHECK(seven.error().message().find("major version 7") != std::string::npos);
  auto empty = Reader::open_memory(Bytes{});
  CHECK_FALSE(empty);
  // NetPerf: versions 1 and 2 (.NET Core 2.0, their own type name) are refused by name; a Trace
  // object of a version after 3 without the 'Nettrace' magic is no known file; nettrace files begin
  // with version 4.
  auto fast_serialization = [](bool magic, const std::string& type, std::uint32_t version) {
    std::vector<std::uint8_t> b;
    ByteWriter w(b);
    if (magic) w.bytes("Nettrace", 8);
    w.put<std::uint32_t>(20);
    w.bytes("!FastSerialization.1", 20);
    const std::uint8_t tag = magic ? 5 : 4;  // BeginPrivateObject in nettrace, BeginObject in NetPerf
    for (std::uint8_t x : {tag, tag, std::uint8_t{1}}) w.put(x);
    w.put(version);
    w.put<std::uint32_t>(0);
    w.put(static_cast<std::uint32_t>(type.size()));
    w.bytes(type.data(), type.size());
    w.put<std::uint8_t>(6);
    w.bytes(std::vector<std::uint8_t>(48, 0));
    w.put<std::uint8_t>(6);
    w.put<std::uint8_t>(1);
    return std::string(b.begin(), b.end());
  };
  for (std::uint32_t version : {1u, 2u}) {
    CAPTURE(version);
    const std::string old = fast_serialization(false, "Microsoft.DotNet.Runtime.EventPipeFile", version);
    auto refused = Reader::open_memory(as_bytes(old));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == Errc::unsupported_version);
    CHECK_MESSAGE(refused.error().detail == "NetPerf format version " + std::to_string(version) +
                                                " (.NET Core 2.0) is not supported; version 3 (.NET Core 2.1/2.2) is",
                  refused.error().message());
  }
  auto netperf4 = Reader::open_memory(as_bytes(fast_serialization(false, "Trace", 4)));
  REQUIRE_FALSE(netperf4);
  CHECK(netperf4.error().code == Errc::unsupported_version);
  CHECK(netperf4.error().detail.find("NetPerf Trace object version 4") != std::string::npos);
  auto nettrace3 = Reader::open_memory(as_bytes(fast_serialization(true, "Trace", 3)));
  REQUIRE_FALSE(nettrace3);
  CHECK(nettrace3.error().code == Errc::unsupported_version);
  // Version 3 itself (a pointer size of 0 here: refused as damage, after the version was accepted).
  auto netperf3 = Reader::open_memory(as_bytes(fast_serialization(false, "Trace", 3)));
  REQUIRE_FALSE(netperf3);
  CHECK(netperf3.error().code == Errc::bad_format);
  CHECK(netperf3.error().detail.find("pointer size 0") != std::string::npos);
  // Cut inside the NetPerf stream header.
  auto header_cut = Reader::open_memory(as_bytes(fast_serialization(false, "Trace", 3).substr(0, 12)));
  REQUIRE_FALSE(header_cut);
  CHECK(header_cut.error().code == Errc::truncated);
  auto missing = Reader::open_file("/nonexistent/trace.nettrace");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::cannot_open);  // with the system's reason: test_open.cpp
}

TEST_CASE("variable-length integers: limits and overlong encodings") {
  using clretw::nettrace::detail::Cursor;
  auto read = [](std::vector<std::uint8_t> bytes, unsigned bits, bool& ok) {
    Cursor c(bytes);
    const std::uint64_t v = c.varuint(bits);
    ok = c.ok;
    return v;
  };
  bool ok = false;
  CHECK(read({0x7F}, 32, ok) == 0x7F);
  CHECK(ok);
  CHECK(read({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 32, ok) == 0xFFFFFFFFu);
  CHECK(ok);
  read({0xFF, 0xFF, 0xFF, 0xFF, 0x1F}, 32, ok);  // 33 bits
  CHECK_FALSE(ok);
  CHECK(read({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 64, ok) == ~0ull);
  CHECK(ok);
  read({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}, 64, ok);  // 65 bits
  CHECK_FALSE(ok);
  read(std::vector<std::uint8_t>(12, 0x80), 64, ok);  // continues past 10 groups
  CHECK_FALSE(ok);
  read({0x80}, 64, ok);  // ends inside the number
  CHECK_FALSE(ok);
}

TEST_CASE("a malformed metadata record says what is wrong and where") {
  Metadata m = event_source_event("Shop-Api", 1, "OrderPlaced", {{"OrderId", TypeCode::Int64, {}, {}, 0}});
  m.id = 7;
  for (unsigned format : {5u, 6u}) {
    CAPTURE(format);
    const std::vector<std::uint8_t> whole =
        format == 6 ? nettrace::detail::encode_metadata_v6(m) : nettrace::detail::encode_metadata_v5(m, format);
    Metadata back;
    CHECK((format == 6 ? nettrace::detail::parse_metadata_v6(whole, back) : nettrace::detail::parse_metadata_v5(whole, back)).ok());
    CHECK(back.event_name == "OrderPlaced");
    // Cut inside the event name: the message names the part and the byte.
    const std::size_t cut = format == 6 ? 14 : 30;
    const std::vector<std::uint8_t> shorter(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
    Metadata broken;
    const Status status = format == 6 ? nettrace::detail::parse_metadata_v6(shorter, broken)
                                      : nettrace::detail::parse_metadata_v5(shorter, broken);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().code == Errc::bad_format);
    CHECK(status.error().offset <= cut);
    const std::string& why = status.error().detail;
    CHECK(why.find("name") != std::string::npos);
    CHECK(why.find("of the " + std::to_string(cut) + "-byte record") != std::string::npos);
  }
}

TEST_CASE("an EventSource event whose metadata lists no fields: its payload is undescribed, not trailing bytes") {
  // The runtime writes no field list for an event of a manifest-based EventSource with a byte[]
  // parameter; its payload is there all the same.
  std::ostringstream out;
  WriterOptions o;
  o.format = 5;
  Writer w(out, o);
  const Metadata m = event_source_event("Contoso-Bytes", 3, "Blob");  // no parameters listed
  EventSpec e;
  e.metadata_id = w.define(m);
  e.thread_id = e.capture_thread_id = 1;
  e.timestamp = 1000;
  const std::vector<std::uint8_t> payload{2, 0, 0, 0, 0xAB, 0xCD};
  e.payload = payload;
  w.event(e);
  e.payload = {};
  w.event(e);  // no parameters, no payload: nothing undescribed
  w.finish();
  const std::vector<Line> lines = json_lines(out.str());
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].described.kind == Described::Kind::decoded);
  CHECK(lines[0].described.undescribed);
  CHECK(lines[0].described.trailing == 6);
  CHECK(lines[0].json.find("\"note\":\"6 payload bytes the trace's metadata lists no fields for\"") != std::string::npos);
  CHECK_FALSE(lines[1].described.undescribed);
  CHECK(lines[1].described.trailing == 0);
  CHECK(lines[1].json.find("\"note\"") == std::string::npos);
}

TEST_CASE("a stream read as it comes: in chunks of any size it reads as memory does; a failing stream is named") {
  const Written t = write_trace(5, true, 8);
  // Hands out the trace a few bytes at a time, then fails or ends where told.
  class Chunks final : public ByteStream {
   public:
    Chunks(const std::string& b, std::size_t chunk, std::size_t fail_at) : b_(b), chunk_(chunk), fail_at_(fail_at) {}
    Result<std::size_t> read_some(void* dst, std::size_t n) override {
      if (pos_ >= fail_at_) return Error{Errc::connection_failed, 0, {}, "the peer reset the connection"};
      const std::size_t take = std::min({n, chunk_, b_.size() - pos_, fail_at_ - pos_});
      std::memcpy(dst, b_.data() + pos_, take);
      pos_ += take;
      return take;
    }

   private:
    const std::string& b_;
    std::size_t chunk_, fail_at_, pos_ = 0;
  };
  const Written netperf = write_trace(3, true, 8);
  for (const Written* trace : {&t, &netperf}) {
    for (std::size_t chunk : {1u, 7u, 4096u}) {
      CAPTURE(chunk);
      Chunks whole(trace->bytes, chunk, SIZE_MAX);
      auto r = Reader::open_stream(whole);
      REQUIRE(r);
      std::size_t events = 0;
      for (;;) {
        auto next = (*r)->next();
        REQUIRE(next);
        if (!*next) break;
        ++events;
      }
      CHECK(events == trace->events.size());
    }
  }
  Chunks failing(t.bytes, 64, t.bytes.size() / 2);
  auto r = Reader::open_stream(failing);
  REQUIRE(r);
  Result<const EventRecord*> next = static_cast<const EventRecord*>(nullptr);
  while ((next = (*r)->next()) && *next) {
  }
  REQUIRE_FALSE(next);
  CHECK(next.error().code == Errc::truncated);
  CHECK_MESSAGE(next.error().message().find("(the stream: diagnostics connection failed: the peer reset the connection)") !=
                    std::string::npos,
                next.error().message());
}

TEST_CASE("stack ids that do not ascend: found all the same, the last of equal ids winning") {
  // The writer numbers stacks 1, 2, 3; the second stack block is patched to say id 1 again.
  std::ostringstream out;
  {
    clretw::nettrace::Writer w(out);
    Metadata m;
    m.provider_name = "Microsoft-Windows-DotNETRuntime";
    m.event_id = 1;
    m.version = 2;
    const std::uint32_t id = w.define(m);
    const std::vector<std::vector<std::uint64_t>> stacks = {
        {0x1111111111111111ull}, {0x2222222222222222ull}, {0x3333333333333333ull}};
    for (std::uint32_t i = 0; i < 3; ++i) {
      const std::uint32_t s = w.stack(stacks[i]);
      REQUIRE(s == i + 1);
      const std::vector<std::uint8_t> payload = gc_start_payload(i);  // EventSpec only views it
      EventSpec e;
      e.metadata_id = id;
      e.timestamp = 1'000'000 + i;
      e.stack_id = s;
      e.payload = payload;
      w.event(e);
    }
  }
  std::string bytes = out.str();
  const std::string second(8, '\x22');
  const std::size_t at = bytes.find(second);
  REQUIRE(at != std::string::npos);
  REQUIRE(at >= 12);
  REQUIRE(bytes[at - 12] == 2);  // the stack block body: id, count 1, size, the frames
  bytes[at - 12] = 1;
  auto r = Reader::open_memory(as_bytes(bytes));
  REQUIRE(r);
  std::vector<std::vector<std::uint64_t>> seen;
  for (;;) {
    auto next = (*r)->next();
    REQUIRE(next);
    if (!*next) break;
    seen.push_back(stack_of(**next));
  }
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::vector<std::uint64_t>{0x2222222222222222ull});  // id 1: the later stack of that id
  CHECK(seen[1].empty());                                               // id 2: no longer in the trace
  CHECK(seen[2] == std::vector<std::uint64_t>{0x3333333333333333ull});
}

TEST_CASE("EventDescriber tells self-descriptions apart by serial, not address: one replaced in place is a new type") {
  EventDescriber describer({&clretw::catalog()});
  Metadata m;
  m.provider_name = "Shop-Api";
  m.event_name = "OrderPlaced";
  EventRecord r;
  r.provider_guid = Guid{0x11111111, 0x2222, 0x3333, {4, 5, 6, 7, 8, 9, 10, 11}};
  r.provider_name = m.provider_name;
  r.id = 1;
  r.self_description = &m;
  const Described first = describer.describe(r);
  CHECK(first.name == "OrderPlaced");
  CHECK(describer.describe(r).type == first.type);
  const std::uint64_t serial = m.serial();
  Metadata replacement;
  replacement.provider_name = "Shop-Api";
  replacement.event_name = "OrderShipped";
  m = replacement;  // the same address, another description (a copy describes alike: it keeps the copy's serial)
  CHECK(m.serial() != serial);
  CHECK(m.serial() == replacement.serial());
  const Described second = describer.describe(r);
  CHECK(second.name == "OrderShipped");
  CHECK(second.type != first.type);
}
