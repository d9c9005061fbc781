#include <doctest/doctest.h>

#include <vector>

#include "clretw/guid.h"

using clretw::Guid;

TEST_CASE("GUID text round trip, braces and case accepted") {
  auto g = Guid::parse("{E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4}");
  REQUIRE(g);
  CHECK(g->data1 == 0xe13c0d23u);
  CHECK(g->data2 == 0xccbc);
  CHECK(g->data3 == 0x4e12);
  CHECK(g->data4[0] == 0x93);
  CHECK(g->data4[7] == 0xe4);
  CHECK(g->to_string() == "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
  CHECK(Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") == g);
}

TEST_CASE("malformed GUID text is rejected") {
  CHECK_FALSE(Guid::parse(""));
  CHECK_FALSE(Guid::parse("e13c0d23ccbc4e12931bd9cc2eee27e4"));
  CHECK_FALSE(Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27eg"));
  CHECK_FALSE(Guid::parse("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"));
}

TEST_CASE("GUID wire layout: Data1-3 little-endian, Data4 as bytes") {
  const std::uint8_t wire[16] = {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4};
  Guid g = Guid::load(wire);
  CHECK(g.to_string() == "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
  std::vector<std::uint8_t> out;
  clretw::ByteWriter w(out);
  g.store(w);
  CHECK(std::vector<std::uint8_t>(wire, wire + 16) == out);
}

TEST_CASE("EventSource name-derived GUIDs match .NET") {
  // Providers whose GUID .NET derives from the name (documented for dotnet-trace / dotnet-counters).
  CHECK(Guid::from_eventsource_name("System.Runtime").to_string() == "49592c0f-5a05-516d-aa4b-a64e02026c89");
  CHECK(Guid::from_eventsource_name("Microsoft-Diagnostics-DiagnosticSource").to_string() ==
        "adb401e1-5296-51f8-c125-5fda75826144");
  // Version 5 (name-based) GUIDs; EventSource upper-cases the name first.
  CHECK((Guid::from_eventsource_name("Anything").data3 >> 12) == 5);
  CHECK(Guid::from_eventsource_name("system.runtime") == Guid::from_eventsource_name("System.Runtime"));
}

TEST_CASE("GUIDs are equal only when every part is: a difference in any byte counts") {
  constexpr Guid g{0x11223344, 0x5566, 0x7788, {0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00}};
  static_assert(g == g && !g.is_zero() && Guid{}.is_zero());
  for (int byte = 0; byte < 16; ++byte) {
    Guid h = g;
    if (byte < 4) h.data1 ^= 1u << (8 * byte);
    else if (byte < 6) h.data2 ^= static_cast<std::uint16_t>(1u << (8 * (byte - 4)));
    else if (byte < 8) h.data3 ^= static_cast<std::uint16_t>(1u << (8 * (byte - 6)));
    else h.data4[static_cast<std::size_t>(byte - 8)] ^= 0x80;
    CAPTURE(byte);
    CHECK_FALSE(h == g);
    CHECK(h != g);
  }
}
