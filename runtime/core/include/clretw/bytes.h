// clretw/bytes.h - little-endian loads and the payload writer.
//
// Event payloads are packed, unaligned and little-endian. load_le() is the only
// way the library reads a multi-byte value from a payload; it compiles to a
// plain load on little-endian machines. Bounds are checked once, by the layout
// walker (layout.h), never per access.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

// SSE2 where the target has it (every x86-64): the library's scans use it when CLRETW_SSE2 is set.
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define CLRETW_SSE2 1
#endif

namespace clretw {

using Bytes = std::span<const std::uint8_t>;

// Reads a T (integral or floating point) stored little-endian at p (unaligned).
template <class T>
inline T load_le(const std::uint8_t* p) noexcept {
  static_assert(std::is_arithmetic_v<T>);
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    return std::bit_cast<T>(load_le<U>(p));
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
      using U = std::make_unsigned_t<T>;
      U u = static_cast<U>(v), r = 0;
      for (std::size_t i = 0; i < sizeof(T); ++i) r = static_cast<U>((r << 8) | ((u >> (8 * i)) & 0xFF));
      v = static_cast<T>(r);
    }
    return v;
  }
}

// Reads an unsigned integer of `width` bytes (1, 2, 4 or 8), zero-extended.
inline std::uint64_t load_uint(const std::uint8_t* p, unsigned width) noexcept {
  switch (width) {
    case 1: return *p;
    case 2: return load_le<std::uint16_t>(p);
    case 4: return load_le<std::uint32_t>(p);
    default: return load_le<std::uint64_t>(p);
  }
}

// Reads a signed integer of `width` bytes, sign-extended.
inline std::int64_t load_int(const std::uint8_t* p, unsigned width) noexcept {
  switch (width) {
    case 1: return static_cast<std::int8_t>(*p);
    case 2: return load_le<std::int16_t>(p);
    case 4: return load_le<std::int32_t>(p);
    default: return load_le<std::int64_t>(p);
  }
}

// Appends little-endian values to a byte vector; used by generated encode()
// and by the trace writer.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  template <class T>
  void put(T v) {
    static_assert(std::is_arithmetic_v<T>);
    if constexpr (std::is_floating_point_v<T>) {
      using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      put(std::bit_cast<U>(v));
    } else {
      using U = std::make_unsigned_t<T>;
      U u = static_cast<U>(v);
      for (std::size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
    }
  }
  // Writes the low `width` bytes of v.
  void put_uint(std::uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void bytes(const void* p, std::size_t n) {
    auto b = static_cast<const std::uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void bytes(Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  std::size_t size() const noexcept { return out_.size(); }
  std::vector<std::uint8_t>& buffer() noexcept { return out_; }

 private:
  std::vector<std::uint8_t>& out_;
};

}  // namespace clretw
