// The dispatcher: typed handlers get verified views, everything else reaches
// the catch-all, malformed payloads are reported - nothing vanishes.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/dispatch.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"

using namespace clretw;
namespace rt = clretw::dotnet_runtime;

namespace {

EventRecord record(std::uint16_t id, std::uint8_t version, const std::vector<std::uint8_t>& payload,
                   Guid provider = rt::provider_guid) {
  EventRecord r;
  r.provider_guid = provider;
  r.id = id;
  r.version = version;
  r.pointer_size = 8;
  r.payload = payload;
  return r;
}

}  // namespace

TEST_CASE("typed handlers, the catch-all and malformed payloads") {
  rt::payload::GCStart_V2 gc;
  gc.Count = 42;
  gc.Reason = rt::GCReasonMap::Induced;
  gc.ClrInstanceID = 3;
  const std::vector<std::uint8_t> good = *gc.encode(8);
  const std::vector<std::uint8_t> bad(good.begin(), good.begin() + 5);
  const std::vector<std::uint8_t> nothing;

  Dispatcher d({&clretw::catalog()});
  std::vector<std::uint32_t> counts;
  std::vector<std::string> others;
  std::vector<Errc> errors;
  d.on<rt::GCStart>([&](const rt::GCStartView& v, const EventRecord& r) {
    CHECK(r.id == 1);
    counts.push_back(v.Count());
    CHECK(v.Reason() == rt::GCReasonMap::Induced);
  });
  d.on_other([&](const EventRecord& r, EventLookup known) {
    others.push_back(known ? std::string(known.event->name) : "unknown " + std::to_string(r.id));
  });
  d.on_malformed([&](const EventRecord&, const Error& e) { errors.push_back(e.code); });

  CHECK(d.dispatch(record(1, 2, good)) == Dispatcher::Outcome::handled);
  CHECK(d.dispatch(record(1, 2, bad)) == Dispatcher::Outcome::malformed);
  CHECK(d.dispatch(record(3, 1, nothing)) == Dispatcher::Outcome::other);      // known, no typed handler
  CHECK(d.dispatch(record(999, 0, nothing)) == Dispatcher::Outcome::other);    // unknown id
  CHECK(d.dispatch(record(1, 2, good, Guid{})) == Dispatcher::Outcome::other);  // unknown provider

  CHECK(counts == std::vector<std::uint32_t>{42});
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == Errc::truncated);
  REQUIRE(others.size() == 3);
  CHECK(others[0] == "GC/RestartEEStop");
  CHECK(others[1] == "unknown 999");
  CHECK(others[2] == "unknown 1");
  CHECK(d.counts().handled == 1);
  CHECK(d.counts().malformed == 1);
  CHECK(d.counts().other == 3);
}

TEST_CASE("a provider named by the source but under another GUID reaches its typed handlers, as lookup() finds it") {
  // EventPipe names providers and derives a GUID from the name; a manifest provider of the
  // runtime's kind keeps its manifest GUID, so typed handlers must resolve the name too.
  rt::payload::GCStart_V2 gc;
  gc.Count = 9;
  const std::vector<std::uint8_t> good = *gc.encode(8);
  const Guid derived = Guid::from_eventsource_name(rt::provider_name);
  Dispatcher d({&clretw::catalog()});
  std::vector<std::uint32_t> counts;
  std::vector<Guid> seen;
  std::size_t others = 0;
  d.on<rt::GCStart>([&](const rt::GCStartView& v, const EventRecord& r) {
    counts.push_back(v.Count());
    seen.push_back(r.provider_guid);
  });
  d.on_other([&](const EventRecord&, EventLookup) { ++others; });
  EventRecord named = record(1, 2, good, derived);
  named.provider_name = rt::provider_name;
  for (int i = 0; i < 2; ++i)  // the second time from the cache of resolved GUIDs
    CHECK(d.dispatch(named) == Dispatcher::Outcome::handled);
  EventRecord other_event = named;
  other_event.id = 2;  // no typed handler for it
  CHECK(d.dispatch(other_event) == Dispatcher::Outcome::other);
  EventRecord unnamed = record(1, 2, good, derived);  // no name: the GUID alone decides
  CHECK(d.dispatch(unnamed) == Dispatcher::Outcome::other);
  EventRecord stranger = record(1, 2, good, Guid::from_eventsource_name("Someone-Else"));
  stranger.provider_name = "Someone-Else";
  CHECK(d.dispatch(stranger) == Dispatcher::Outcome::other);
  CHECK(counts == std::vector<std::uint32_t>{9, 9});
  CHECK(seen == std::vector<Guid>{rt::provider_guid, rt::provider_guid});  // handlers see the manifest's GUID
  CHECK(others == 3);
  // A handler added later is found for a GUID resolved before it existed.
  std::size_t ends = 0;
  d.on<rt::GCEnd>([&](const rt::GCEndView&, const EventRecord&) { ++ends; });
  EventRecord end = named;
  end.id = 2;
  end.version = 1;
  end.payload = {};
  rt::payload::GCEnd_V1 e{.Count = 9, .Depth = 0, .ClrInstanceID = 1};
  const std::vector<std::uint8_t> end_bytes = *e.encode(8);
  end.payload = end_bytes;
  CHECK(d.dispatch(end) == Dispatcher::Outcome::handled);
  CHECK(ends == 1);
}

TEST_CASE("a view refuses a record of another event") {
  std::vector<std::uint8_t> payload(26, 0);
  auto wrong = rt::GCStartView::from(record(2, 0, payload));
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == Errc::wrong_event);
  auto right = rt::GCStartView::from(record(1, 2, payload));
  CHECK(right);
}

TEST_CASE("catalog precedence: the first catalog that defines a provider decides, for Dispatcher and EventDescriber alike") {
  // A catalog that redefines the runtime provider with one event only (id 7), as a manifest
  // given at run time would; the built-in catalog comes after it.
  static const EventDesc kEvents[] = {{.id = 7, .version = 0, .symbol = "Seven", .name = "Only/InOverride"}};
  static const std::uint16_t kFirst[] = {kNoEvent, kNoEvent, kNoEvent, kNoEvent, kNoEvent, kNoEvent, kNoEvent, 0};
  static const ProviderDesc kOverride{.name = rt::provider_name, .guid = rt::provider_guid, .events = kEvents,
                                      .first_version = kFirst};
  static const ProviderDesc* const kProviders[] = {&kOverride};
  const Catalog override_catalog{kProviders};
  const CatalogSet set{&override_catalog, &clretw::catalog()};
  Dispatcher d(set);
  EventDescriber describer(set);

  struct Case {
    EventRecord r;
    const char* provider;  // the deciding provider's name, or null
    const char* event;     // the event's display name, or null
  };
  EventRecord by_name = record(7, 0, {}, Guid{});
  by_name.provider_name = rt::provider_name;
  const Case cases[] = {
      {record(7, 0, {}), "Microsoft-Windows-DotNETRuntime", "Only/InOverride"},  // found in the override
      {record(1, 2, {}), "Microsoft-Windows-DotNETRuntime", nullptr},            // the override lacks GC/Start: not the built-in's
      {by_name, "Microsoft-Windows-DotNETRuntime", "Only/InOverride"},           // matched by name when the GUID is unknown
      {record(144, 0, {}, dotnet_runtime_rundown::provider_guid), "Microsoft-Windows-DotNETRuntimeRundown",
       "Method/DCStopVerbose"},  // a provider the override does not define falls through to the built-in catalog
      {record(1, 0, {}, Guid{}), nullptr, nullptr},  // no catalog defines it
  };
  for (const Case& c : cases) {
    CAPTURE(c.r.id);
    const EventLookup l = d.lookup(c.r);
    CHECK((l.provider ? std::string(l.provider->name) : "") == (c.provider ? c.provider : ""));
    CHECK((l.event ? std::string(l.event->name) : "") == (c.event ? c.event : ""));
    const Described described = describer.describe(c.r);
    CHECK(described.provider == l.provider);
    CHECK(described.event == l.event);
  }
}

TEST_CASE("EventDescriber numbers event types: the same number for the same type, none past kMaxTypes, names kept") {
  EventDescriber describer({&clretw::catalog()});
  // A record of an unknown provider, told apart by id and version; named by the source.
  const Guid other{0x12345678, 0x1234, 0x5678, {1, 2, 3, 4, 5, 6, 7, 8}};
  auto unknown = [&](std::uint32_t n) {
    EventRecord r = record(static_cast<std::uint16_t>(n), static_cast<std::uint8_t>(n >> 16), {}, other);
    r.provider_name = "Other";
    return r;
  };
  const Described gc = describer.describe(record(1, 2, {}));
  CHECK(gc.type == 0);
  CHECK(gc.name == "GC/Start");
  EventRecord named = unknown(5);
  named.event_name = "Five";
  const Described five = describer.describe(named);
  CHECK(five.type == 1);
  CHECK(five.name == "Five");
  CHECK(describer.describe(unknown(5)).name == "EventID(5)");  // another event name: another type
  CHECK(describer.describe(unknown(5)).type == 2);
  CHECK(describer.describe(named).type == 1);
  std::uint32_t numbered = 0, beyond = 0, misnamed = 0;
  for (std::uint32_t n = 0; n < EventDescriber::kMaxTypes + 100; ++n) {
    const EventRecord r = unknown(n + 6);
    const Described d = describer.describe(r);
    if (d.name != "EventID(" + std::to_string(r.id) + ")") ++misnamed;
    if (d.type == kNoEventType) ++beyond;
    else ++numbered;
  }
  CHECK(misnamed == 0);
  CHECK(describer.types() == EventDescriber::kMaxTypes);
  CHECK(numbered == EventDescriber::kMaxTypes - 3);
  CHECK(beyond == 103);
  // Types seen before the table filled keep their numbers and names.
  const Described again = describer.describe(record(1, 2, {}));
  CHECK(again.type == 0);
  CHECK(again.name == "GC/Start");
  CHECK(gc.name == "GC/Start");
  // A copy of a describer starts its own numbering.
  const EventDescriber copy = describer;
  CHECK(copy.types() == 0);
  CHECK(copy.describe(named).type == 0);
}

TEST_CASE("format_event: lines made with a describer's remembered line heads are the lines a fresh describer makes") {
  // The head of a line (names, id, version) is made once per event type and format; types
  // interleaved, names that need escaping and types past kMaxTypes (not remembered) included.
  const Guid other{0x12345678, 0x1234, 0x5678, {1, 2, 3, 4, 5, 6, 7, 8}};
  auto unknown = [&](std::uint32_t n, std::string_view name) {
    EventRecord r = record(static_cast<std::uint16_t>(n), static_cast<std::uint8_t>(n >> 16), {}, other);
    r.provider_name = "Other \"quoted\", too";
    r.event_name = name;
    return r;
  };
  rt::payload::GCStart_V2 gc;
  gc.Count = 5;
  const std::vector<std::uint8_t> payload = *gc.encode(8);
  const std::vector<EventRecord> records = {record(1, 2, payload), unknown(5, "Fi\"ve"), unknown(5, ""), unknown(6, "Six"),
                                            record(1, 2, payload), unknown(5, ""), unknown(5, "Fi\"ve")};
  EventDescriber shared({&clretw::catalog()});
  std::size_t compared = 0, different = 0;
  auto compare = [&](const EventRecord& r, LineFormat format) {
    std::string remembered, fresh;
    format_event(r, shared, 12.5, format, remembered);
    EventDescriber once({&clretw::catalog()});
    format_event(r, once, 12.5, format, fresh);
    ++compared;
    if (remembered != fresh) {
      ++different;
      CHECK(remembered == fresh);
    }
  };
  for (int round = 0; round < 2; ++round)
    for (LineFormat format : {LineFormat::text, LineFormat::json, LineFormat::csv})
      for (const EventRecord& r : records) compare(r, format);
  // Past kMaxTypes every event's type is made anew, and so is its head.
  for (std::uint32_t n = 0; shared.types() < EventDescriber::kMaxTypes; ++n) shared.describe(unknown(n + 100, ""));
  for (LineFormat format : {LineFormat::text, LineFormat::json, LineFormat::csv}) {
    compare(unknown(70'000, "Past"), format);
    compare(unknown(70'001, "Beyond \"it\""), format);
    compare(records[0], format);
  }
  CHECK(compared == 2 * 3 * records.size() + 9);
  CHECK(different == 0);
  std::string json;
  format_event(records[1], shared, 1, LineFormat::json, json);
  CHECK(json.starts_with(R"({"provider":"Other \"quoted\", too","id":5,"version":0,"name":"Fi\"ve","symbol":"","ms":1.0000,)"));
  // Numbers after the head: a negative timestamp (before the trace's sync time) and the extremes.
  EventRecord early = records[0];
  early.timestamp = std::numeric_limits<std::int64_t>::min();
  early.keywords = std::numeric_limits<std::uint64_t>::max();
  json.clear();
  format_event(early, shared, -0.5, LineFormat::json, json);
  CHECK(json.find(R"("ms":-0.5000,"timestamp":-9223372036854775808,"pid":0,)") != std::string::npos);
  CHECK(json.find(R"("keywords":18446744073709551615,)") != std::string::npos);
}

TEST_CASE("format_event: every stack address in decimal, whether its text is remembered or written anew") {
  // Addresses of every digit count and its edges, 4 000 random ones (more than the table of
  // remembered texts holds, so slots are taken over), each stack written three times.
  std::vector<std::uint64_t> addresses = {0, 1, 9, 10, 99'999'999, 100'000'000, 123'456'789'012'345,
                                          9'999'999'999'999'999, 10'000'000'000'000'000,
                                          std::numeric_limits<std::uint64_t>::max()};
  for (std::uint64_t p = 10; p <= 10'000'000'000'000'000'000u; p *= 10) addresses.insert(addresses.end(), {p - 1, p});
  std::uint64_t x = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 4000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    addresses.push_back(i % 2 ? x >> (x % 48) : 0x7F0000000000u + (x & 0xFFFFFFFF));  // any, and heap-like
  }
  EventDescriber describer({&clretw::catalog()});
  rt::payload::GCStart_V2 gc;
  const std::vector<std::uint8_t> payload = *gc.encode(8);
  std::size_t written = 0;
  for (int round = 0; round < 3; ++round) {
    for (unsigned frame_size : {8u, 4u}) {
      for (std::size_t at = 0; at < addresses.size(); at += 64) {
        std::vector<std::uint8_t> stack;
        std::vector<std::string> expected;
        for (std::size_t i = at; i < std::min(at + 64, addresses.size()); ++i) {
          const std::uint64_t a = frame_size == 4 ? addresses[i] & 0xFFFFFFFFu : addresses[i];
          for (unsigned b = 0; b < frame_size; ++b) stack.push_back(static_cast<std::uint8_t>(a >> (8 * b)));
          expected.push_back(std::to_string(a));
        }
        EventRecord r = record(1, 2, payload);
        r.stack = stack;
        r.stack_pointer_size = static_cast<std::uint8_t>(frame_size);
        std::string line;
        format_event(r, describer, 1, LineFormat::json, line);
        const std::size_t open = line.find(",\"stack\":[");
        REQUIRE(open != std::string::npos);
        REQUIRE(line.ends_with("]}"));
        std::vector<std::string> got;
        std::string_view rest(line);
        rest = rest.substr(open + 10, rest.size() - open - 12);
        for (std::size_t comma; (comma = rest.find(',')) != std::string_view::npos; rest.remove_prefix(comma + 1))
          got.emplace_back(rest.substr(0, comma));
        got.emplace_back(rest);
        CHECK(got == expected);
        written += got.size();
      }
    }
  }
  CHECK(written == 3 * 2 * addresses.size());
}

TEST_CASE("records of several providers interleaved are each routed as a fresh Dispatcher routes them alone") {
  // dispatch() remembers the previous record's route; an interleaving of providers, named and
  // unnamed records, ids with and without handlers must change no outcome.
  rt::payload::GCStart_V2 gc;
  gc.Count = 5;
  const std::vector<std::uint8_t> good = *gc.encode(8);
  const std::vector<std::uint8_t> cut(good.begin(), good.begin() + 3);
  const Guid derived = Guid::from_eventsource_name(rt::provider_name);
  std::vector<std::string> calls;  // what each handler saw, in order
  auto make = [&] {
    Dispatcher d({&clretw::catalog()});
    d.on<rt::GCStart>([&](const rt::GCStartView& v, const EventRecord& r) {
      calls.push_back("GCStart " + std::to_string(v.Count()) + (r.provider_guid == rt::provider_guid ? "" : " wrong GUID"));
    });
    d.on<dotnet_runtime_rundown::DCEndComplete>(
        [&](const dotnet_runtime_rundown::DCEndCompleteView&, const EventRecord&) { calls.push_back("DCEndComplete"); });
    d.on_other([&](const EventRecord& r, EventLookup) { calls.push_back("other " + std::to_string(r.id)); });
    d.on_malformed([&](const EventRecord& r, const Error&) { calls.push_back("malformed " + std::to_string(r.id)); });
    return d;
  };
  std::vector<EventRecord> records = {
      record(1, 2, good),                                          // handled
      record(3, 1, {}),                                            // the runtime, no handler for 3
      record(146, 0, {}, dotnet_runtime_rundown::provider_guid),  // the rundown provider, handled
      record(60000, 0, {}, dotnet_runtime_rundown::provider_guid),  // an id past every handler
      record(1, 2, good, Guid{}),                                  // no provider
      record(1, 2, good, derived),                                 // the runtime under its derived GUID, unnamed
      record(1, 2, cut),                                           // malformed
  };
  EventRecord named = record(1, 2, good, derived);
  named.provider_name = rt::provider_name;  // reaches GCStart by the name
  records.push_back(named);
  EventRecord named_other = named;
  named_other.id = 3;
  records.push_back(named_other);

  // Each record alone, through a fresh Dispatcher: the expected outcome and calls.
  std::vector<Dispatcher::Outcome> alone;
  std::vector<std::vector<std::string>> alone_calls;
  for (const EventRecord& r : records) {
    calls.clear();
    Dispatcher fresh = make();
    alone.push_back(fresh.dispatch(r));
    alone_calls.push_back(calls);
  }
  CHECK(alone_calls[0] == std::vector<std::string>{"GCStart 5"});
  CHECK(alone_calls[2] == std::vector<std::string>{"DCEndComplete"});
  CHECK(alone_calls[5] == std::vector<std::string>{"other 1"});
  CHECK(alone_calls[6] == std::vector<std::string>{"malformed 1"});
  CHECK(alone_calls[7] == std::vector<std::string>{"GCStart 5"});

  // Then a long interleaving through one Dispatcher (a fixed pseudo-random order, runs included).
  Dispatcher d = make();
  std::uint32_t state = 12345;
  Dispatcher::Counts expected;
  for (int n = 0; n < 2000; ++n) {
    state = state * 1103515245u + 12345u;
    const std::size_t i = (state >> 16) % records.size();
    calls.clear();
    const Dispatcher::Outcome got = d.dispatch(records[i]);
    REQUIRE(got == alone[i]);
    REQUIRE(calls == alone_calls[i]);
    ++(got == Dispatcher::Outcome::handled ? expected.handled
       : got == Dispatcher::Outcome::other ? expected.other
                                            : expected.malformed);
  }
  CHECK(d.counts().handled == expected.handled);
  CHECK(d.counts().other == expected.other);
  CHECK(d.counts().malformed == expected.malformed);
  // A copy routes as the original.
  Dispatcher copy = d;
  for (std::size_t i = 0; i < records.size(); ++i) {
    calls.clear();
    CHECK(copy.dispatch(records[i]) == alone[i]);
    CHECK(calls == alone_calls[i]);
  }
}
