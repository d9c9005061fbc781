// The in-process source (clretw/inproc.h) on deliveries made here as EventPipeEventDelivered passes
// them: runtime events (no metadata), EventSource events (metadata with fields), every refusal with
// its reason, many threads at once, and session planning. tests/dotnet/inproc_check.sh runs the
// example profiler in a real .NET process.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/describe.h"
#include "clretw/dotnet_runtime/gc.h"
#include "clretw/inproc.h"
#include "clretw/nettrace.h"
#include "clretw/text.h"

// --- docs/LIBRARY.md example begins ---
#include <clretw/catalog.h>            // catalog()
#include <clretw/dotnet_runtime/gc.h>  // the GC events alone
#include <clretw/inproc.h>             // EventPipeDecoder, plan_session

#include <atomic>
#include <utility>

// A profiler's part: made in ICorProfilerCallback::Initialize. `name_provider` asks the runtime
// (ICorProfilerInfo12::EventPipeGetProviderInfo); the session's providers, planned from dotnet-trace's
// syntax by session(), go to ICorProfilerInfo12::EventPipeStartSession.
struct GcWatch {
  clretw::inproc::EventPipeDecoder decoder;
  std::atomic<unsigned> gen2{0};

  explicit GcWatch(clretw::inproc::ProviderNamer name_provider) : decoder(std::move(name_provider)) {}

  static auto session() {
    return clretw::inproc::plan_session("Microsoft-Windows-DotNETRuntime:GC:4", {}, {&clretw::catalog()});
  }

  // In EventPipeEventDelivered, on whichever thread the runtime calls it; `d` holds its arguments,
  // the thread as its OS id (ICorProfilerInfo::GetThreadInfo).
  void delivered(const clretw::inproc::Delivery& d) {
    clretw::EventRecord record;
    if (!decoder.decode(d, record)) return;  // refused: decode()'s error says why
    if (auto gc = clretw::dotnet_runtime::GCStartView::from(record); gc && gc->Depth() == 2u) ++gen2;
  }
};
// --- docs/LIBRARY.md example ends ---

using namespace clretw;
using inproc::Delivery;
using inproc::EventPipeDecoder;

namespace {

struct Blob {
  std::vector<std::uint8_t> b;
  Blob& u16(std::uint16_t v) { return raw(&v, 2); }
  Blob& u32(std::uint32_t v) { return raw(&v, 4); }
  Blob& u64(std::uint64_t v) { return raw(&v, 8); }
  Blob& raw(const void* p, std::size_t n) {
    b.insert(b.end(), static_cast<const std::uint8_t*>(p), static_cast<const std::uint8_t*>(p) + n);
    return *this;
  }
  Blob& str(std::u16string_view s) {  // UTF-16, with its terminator
    for (char16_t c : s) u16(c);
    return u16(0);
  }
};

// EventPipe's metadata of an EventSource event: id, name, keywords, version, level, V1 fields.
Blob measured_metadata(std::uint32_t id = 7, std::uint32_t version = 0) {
  Blob m;
  m.u32(id).str(u"Measured").u64(0xF00).u32(version).u32(4);
  m.u32(2).u32(static_cast<std::uint32_t>(nettrace::TypeCode::Int32)).str(u"Round");
  m.u32(static_cast<std::uint32_t>(nettrace::TypeCode::String)).str(u"Name");
  return m;
}

EventPipeDecoder make_decoder(std::atomic<int>* calls = nullptr) {
  return EventPipeDecoder(
      [calls](std::uint64_t provider, std::u16string& name) {
        if (calls) ++*calls;
        if (provider == 1) name = u"Microsoft-Windows-DotNETRuntime";
        else if (provider == 2) name = u"Clretw-Test";
        else return false;
        return true;
      },
      inproc::DecoderOptions{1234, 1u << 16});
}

Blob gc_start_v2(std::uint32_t count, std::uint32_t depth) {
  Blob p;
  p.u32(count).u32(depth).u32(1).u32(0).u16(9).u64(0);
  return p;
}

std::string message_of(const Status& s) { return s ? std::string() : s.error().message(); }

}  // namespace

TEST_CASE("inproc: a runtime event (no metadata) decodes with the built-in views") {
  std::atomic<int> calls{0};
  EventPipeDecoder decoder = make_decoder(&calls);
  const Blob payload = gc_start_v2(12, 2);
  const std::uintptr_t frames[2] = {0x1111, 0x2222};
  const std::uint8_t activity[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Delivery d;
  d.provider = 1;
  d.event_id = 1;
  d.event_version = 2;
  d.payload = payload.b.data();
  d.payload_size = static_cast<std::uint32_t>(payload.b.size());
  d.thread_id = 4242;
  d.stack = frames;
  d.stack_frames = 2;
  d.activity_id = activity;
  EventRecord r;
  REQUIRE(decoder.decode(d, r));
  CHECK(r.provider_guid == dotnet_runtime::provider_guid);
  CHECK(r.provider_name == "Microsoft-Windows-DotNETRuntime");
  CHECK(r.id == 1);
  CHECK(r.version == 2);
  CHECK(r.thread_id == 4242);
  CHECK(r.process_id == 1234);
  CHECK(r.stack_depth() == 2);
  CHECK(r.stack_frame(1) == 0x2222);
  CHECK(r.activity_id.data1 == 0x04030201u);
  CHECK(r.self_description == nullptr);  // the manifest describes it
  CHECK(r.timestamp >= decoder.start());
  auto gc = dotnet_runtime::GCStartView::from(r);
  REQUIRE(gc);
  CHECK(gc->Count() == 12);
  CHECK(gc->Depth() == 2u);
  // The same provider again: named once.
  REQUIRE(decoder.decode(d, r));
  CHECK(calls == 1);
  CHECK(decoder.counts().decoded == 2);
  CHECK(decoder.counts().types == 1);
  std::string line;
  EventDescriber describer({&catalog()});
  format_event(r, describer, decoder.milliseconds(r.timestamp), LineFormat::json, line);
  CHECK(line.find("\"name\":\"GC/Start\"") != std::string::npos);
  CHECK(line.find("\"Count\":12") != std::string::npos);
}

TEST_CASE("inproc: an EventSource event is described by its metadata") {
  EventPipeDecoder decoder = make_decoder();
  const Blob meta = measured_metadata();
  Blob payload;
  payload.u32(5).str(u"five");
  Delivery d;
  d.provider = 2;
  d.event_id = 7;
  d.metadata = meta.b.data();
  d.metadata_size = static_cast<std::uint32_t>(meta.b.size());
  d.payload = payload.b.data();
  d.payload_size = static_cast<std::uint32_t>(payload.b.size());
  EventRecord r;
  REQUIRE(decoder.decode(d, r));
  CHECK(r.provider_guid == nettrace::provider_guid_for("Clretw-Test"));
  CHECK(r.event_name == "Measured");
  CHECK(r.keywords == 0xF00);
  CHECK(r.level == 4);
  REQUIRE(r.self_description != nullptr);
  std::string line;
  EventDescriber describer({&catalog()});
  format_event(r, describer, 0, LineFormat::json, line);
  CHECK(line.find("\"Round\":5") != std::string::npos);
  CHECK(line.find("\"Name\":\"five\"") != std::string::npos);
  // A payload shorter than its metadata says: the describer reports it, nothing is read past it.
  d.payload_size = 3;
  REQUIRE(decoder.decode(d, r));
  CHECK(describer.describe(r).kind == Described::Kind::malformed);
}

TEST_CASE("inproc: a thread's recent types belong to their decoder, and to their metadata") {
  // Deliveries of a type the thread has just met skip the maps; the same handle, id and version under another
  // decoder, or with other metadata, must still be looked up.
  const Blob payload = gc_start_v2(3, 1);
  Delivery d;
  d.provider = 1;
  d.event_id = 1;
  d.event_version = 2;
  d.payload = payload.b.data();
  d.payload_size = static_cast<std::uint32_t>(payload.b.size());
  EventRecord r;
  for (const char16_t* name : {u"Microsoft-Windows-DotNETRuntime", u"Other-Provider"}) {
    EventPipeDecoder decoder([name](std::uint64_t, std::u16string& out) {
      out = name;
      return true;
    });
    for (int i = 0; i < 3; ++i) REQUIRE(decoder.decode(d, r));
    CHECK(r.provider_name == Utf16View(reinterpret_cast<const std::uint8_t*>(name), std::u16string_view(name).size()).to_utf8());
    CHECK(decoder.counts().types == 1);
  }
  EventPipeDecoder decoder = make_decoder();
  const Blob v0 = measured_metadata(7, 0);
  Blob other;  // the same id and version, other fields
  other.u32(7).str(u"Measured").u64(0xF00).u32(0).u32(4);
  other.u32(1).u32(static_cast<std::uint32_t>(nettrace::TypeCode::Int32)).str(u"Other");
  Blob p;
  p.u32(5).str(u"five");
  d.provider = 2;
  d.event_id = 7;
  d.event_version = 0;
  d.payload = p.b.data();
  d.payload_size = static_cast<std::uint32_t>(p.b.size());
  d.metadata = v0.b.data();
  d.metadata_size = static_cast<std::uint32_t>(v0.b.size());
  REQUIRE(decoder.decode(d, r));
  const SelfDescription* first = r.self_description;
  d.metadata = other.b.data();
  d.metadata_size = static_cast<std::uint32_t>(other.b.size());
  REQUIRE(decoder.decode(d, r));
  CHECK(decoder.counts().types == 2);
  REQUIRE(r.self_description != nullptr);
  CHECK(r.self_description != first);
  CHECK(static_cast<const nettrace::Metadata*>(r.self_description)->fields.at(0).name == "Other");
  d.metadata = v0.b.data();
  d.metadata_size = static_cast<std::uint32_t>(v0.b.size());
  REQUIRE(decoder.decode(d, r));
  CHECK(r.self_description == first);
}

TEST_CASE("inproc: deliveries that cannot be trusted are refused with the reason") {
  EventPipeDecoder decoder = make_decoder();
  const Blob meta = measured_metadata();
  const Blob payload = gc_start_v2(1, 0);
  auto base = [&] {
    Delivery d;
    d.provider = 2;
    d.event_id = 7;
    d.metadata = meta.b.data();
    d.metadata_size = static_cast<std::uint32_t>(meta.b.size());
    d.payload = payload.b.data();
    d.payload_size = static_cast<std::uint32_t>(payload.b.size());
    return d;
  };
  EventRecord r;
  struct Case {
    const char* what;
    Delivery d;
    const char* reason;
  };
  std::vector<Case> cases;
  Delivery d = base();
  d.payload = nullptr;
  cases.push_back({"null payload", d, "null payload of 26 bytes"});
  d = base();
  d.metadata = nullptr;
  cases.push_back({"null metadata", d, "null metadata"});
  d = base();
  d.stack_frames = 3;
  cases.push_back({"null stack", d, "null stack of 3 frames"});
  d = base();
  d.event_id = 70000;
  cases.push_back({"wide id", d, "wider than 16 bits"});
  d = base();
  d.event_version = 256;
  cases.push_back({"wide version", d, "wider than 8 bits"});
  d = base();
  d.provider = 9;
  cases.push_back({"unnamed provider", d, "provider handle 9 could not be named"});
  d = base();
  d.metadata_size = 10;  // cut in the event name
  cases.push_back({"cut metadata", d, "ends in the event id or name"});
  d = base();
  d.metadata_size = static_cast<std::uint32_t>(meta.b.size()) - 3;  // cut in the last field's name
  cases.push_back({"cut field list", d, "field list is malformed"});
  d = base();
  d.event_id = 8;  // the metadata says 7
  cases.push_back({"other event's metadata", d, "describes event 7 v0"});
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const Status s = decoder.decode(c.d, r);
    REQUIRE_FALSE(s);
    CHECK(message_of(s).find(c.reason) != std::string::npos);
  }
  CHECK(decoder.counts().rejected == cases.size());
  CHECK(decoder.counts().decoded == 0);
  // At most max_types types.
  EventPipeDecoder small([](std::uint64_t, std::u16string& name) { return name = u"P", true; }, inproc::DecoderOptions{1, 2});
  Delivery e;
  e.provider = 1;
  for (std::uint32_t id = 1; id <= 2; ++id) {
    e.event_id = id;
    CHECK(small.decode(e, r));
  }
  e.event_id = 3;
  CHECK(message_of(small.decode(e, r)).find("more than 2 event types") != std::string::npos);
}

TEST_CASE("inproc: many threads decode at once") {
  std::atomic<int> calls{0};
  EventPipeDecoder decoder = make_decoder(&calls);
  const Blob meta = measured_metadata();
  Blob sd_payload;
  sd_payload.u32(1).str(u"x");
  const Blob gc = gc_start_v2(3, 1);
  std::atomic<std::uint64_t> gen1{0}, named{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) {
        Delivery d;
        d.thread_id = static_cast<std::uint64_t>(t);
        if ((i + t) % 2) {
          d.provider = 1, d.event_id = 1, d.event_version = 2;
          d.payload = gc.b.data(), d.payload_size = static_cast<std::uint32_t>(gc.b.size());
        } else {
          d.provider = 2, d.event_id = 7;
          d.metadata = meta.b.data(), d.metadata_size = static_cast<std::uint32_t>(meta.b.size());
          d.payload = sd_payload.b.data(), d.payload_size = static_cast<std::uint32_t>(sd_payload.b.size());
        }
        EventRecord r;
        if (!decoder.decode(d, r)) continue;
        if (auto v = dotnet_runtime::GCStartView::from(r); v && v->Depth() == 1u) ++gen1;
        if (r.event_name == "Measured" && r.thread_id == static_cast<std::uint64_t>(t)) ++named;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(decoder.counts().decoded == 20000);
  CHECK(decoder.counts().rejected == 0);
  CHECK(decoder.counts().types == 2);
  CHECK(decoder.counts().providers == 2);
  CHECK(gen1 == 10000);
  CHECK(named == 10000);
  CHECK(calls <= 8);  // each thread may name a provider before another has remembered it
}

TEST_CASE("inproc: sessions planned from dotnet-trace's syntax and profiles") {
  auto one = inproc::plan_session("Microsoft-Windows-DotNETRuntime:0x1:4");
  REQUIRE(one);
  REQUIRE(one->providers.size() == 1);
  CHECK(one->providers[0].name == u"Microsoft-Windows-DotNETRuntime");
  CHECK(one->providers[0].keywords == 1);
  CHECK(one->providers[0].level == 4);
  CHECK(one->providers[0].filter.empty());
  CHECK_FALSE(one->rundown);
  auto named = inproc::plan_session("Microsoft-Windows-DotNETRuntime:GC+Exception:5:Key=Value", {}, {&catalog()});
  REQUIRE(named);
  CHECK(named->providers[0].keywords == 0x8001);
  CHECK(named->providers[0].level == 5);
  CHECK(named->providers[0].filter == u"Key=Value");
  auto profile = inproc::plan_session({}, "gc-verbose");
  REQUIRE(profile);
  REQUIRE_FALSE(profile->providers.empty());
  CHECK(profile->providers[0].name_utf8 == "Microsoft-Windows-DotNETRuntime");
  CHECK(inproc::plan_session({}, {}).error().message().find("no providers and no profile") != std::string::npos);
  CHECK_FALSE(inproc::plan_session("Microsoft-Windows-DotNETRuntime:0xZZ:4"));
  CHECK_FALSE(inproc::plan_session({}, "no-such-profile"));
}

TEST_CASE("inproc: LIBRARY.md's example counts gen-2 GCs") {
  GcWatch watch([](std::uint64_t, std::u16string& name) { return name = u"Microsoft-Windows-DotNETRuntime", true; });
  auto plan = GcWatch::session();
  REQUIRE(plan);
  REQUIRE(plan->providers.size() == 1);
  CHECK(plan->providers[0].keywords == 1);
  for (std::uint32_t depth : {0u, 2u, 1u, 2u}) {
    const Blob payload = gc_start_v2(7, depth);
    Delivery d;
    d.provider = 1;
    d.event_id = 1;
    d.event_version = 2;
    d.payload = payload.b.data();
    d.payload_size = static_cast<std::uint32_t>(payload.b.size());
    watch.delivered(d);
  }
  CHECK(watch.gen2 == 2);
}
