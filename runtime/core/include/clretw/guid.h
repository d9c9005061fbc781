// clretw/guid.h - GUIDs as Windows lays them out.
//
// On the wire a GUID is Data1 (uint32 LE), Data2, Data3 (uint16 LE), then 8
// bytes. Text form is lower-case "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "clretw/bytes.h"

namespace clretw {

struct Guid {
  std::uint32_t data1 = 0;
  std::uint16_t data2 = 0;
  std::uint16_t data3 = 0;
  std::array<std::uint8_t, 8> data4{};

  // As two 64-bit words, without a call to memcmp: the dispatcher, the catalogs and every
  // view compare GUIDs per event.
  friend constexpr bool operator==(const Guid& a, const Guid& b) noexcept {
    const auto x = std::bit_cast<std::array<std::uint64_t, 2>>(a);
    const auto y = std::bit_cast<std::array<std::uint64_t, 2>>(b);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
  }
  constexpr bool is_zero() const noexcept { return *this == Guid{}; }

  // Reads the 16 wire bytes at p.
  static Guid load(const std::uint8_t* p) noexcept {
    Guid g;
    g.data1 = load_le<std::uint32_t>(p);
    g.data2 = load_le<std::uint16_t>(p + 4);
    g.data3 = load_le<std::uint16_t>(p + 6);
    for (int i = 0; i < 8; ++i) g.data4[i] = p[8 + i];
    return g;
  }
  void store(ByteWriter& w) const {
    w.put(data1);
    w.put(data2);
    w.put(data3);
    w.bytes(data4.data(), data4.size());
  }

  // Accepts "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", optionally in braces, any case.
  static std::optional<Guid> parse(std::string_view text) noexcept;
  std::string to_string() const;  // lower case, no braces
  void append_to(std::string& out) const;  // to_string() appended to out

  // The GUID .NET's EventSource derives from a provider name (SHA-1 over a
  // fixed namespace and the upper-cased UTF-16BE name, RFC 4122 version 5 bits).
  static Guid from_eventsource_name(std::string_view name);
};
static_assert(sizeof(Guid) == 16, "a Guid is its 16 wire bytes' worth of fields, without padding");

}  // namespace clretw
