// numbers.h (internal to the core) - where the core writes numbers and gathers text: decimal
// integers, fixed-point milliseconds, hex, the stack-address cache, and Pieces, the block writer
// of the formatters that write many short pieces per event (format_event's lines, FieldPlan's
// fields). numbers.cpp holds the digit arithmetic.
#pragma once

#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "clretw/format.h"

namespace clretw::detail {

// (clretw/format.h declares the public ones: write_decimal(), append_hex(), append_fixed4(),
// append_double(); numbers.cpp defines them.)

// x < 10^8 as eight digit values (0 to 9, not yet characters), one per byte, in the order they
// are written: the first in the lowest byte. All digits at once, in lanes of one 64-bit word: two
// halves of four digits in 32-bit lanes, divided by 100 into four pairs in 16-bit lanes, divided
// by 10 into eight bytes. Each multiplication's products stay inside their lane (below 2^27 for
// the first, 2^14 for the second), and the reciprocals are exact for the lane's values
// (10486 / 2^20 for v / 100 with v < 10^4, 103 / 2^10 for v / 10 with v < 100).
inline std::uint64_t eight_digits(std::uint32_t x) noexcept {
  const std::uint64_t halves = (x / 10000) | std::uint64_t{x % 10000} << 32;
  const std::uint64_t hundreds = (halves * 10486 >> 20) & 0x0000007F0000007Full;
  const std::uint64_t pairs = hundreds | (halves - hundreds * 100) << 16;
  const std::uint64_t tens = (pairs * 103 >> 10) & 0x000F000F000F000Full;
  return tens | (pairs - tens * 10) << 8;
}

// Stores the first n of the eight digits at p as characters (eight bytes are written).
inline void store_digits(char* p, std::uint64_t digits, unsigned n) noexcept {
  digits += 0x3030303030303030ull;  // '0'
  if constexpr (std::endian::native == std::endian::little) {
    digits >>= 8 * (8 - n);  // the leading zeros are the low bytes
  } else {
    std::uint64_t swapped = 0;  // the first digit to the highest byte, which is stored first
    for (int i = 0; i < 8; ++i) swapped |= (digits >> (8 * i) & 0xFF) << (8 * (7 - i));
    digits = swapped << 8 * (8 - n);
  }
  std::memcpy(p, &digits, 8);
}

// x < 10^8 without leading zeros. Stores eight bytes at p; returns the end of the digits.
inline char* write_head(char* p, std::uint32_t x) noexcept {
  if (x < 10) {
    *p = static_cast<char>('0' + x);
    return p + 1;
  }
  const std::uint64_t digits = eight_digits(x);
  const auto n = 8 - static_cast<unsigned>(std::countr_zero(digits)) / 8;  // x > 0: some digit is not 0
  store_digits(p, digits, n);
  return p + n;
}

// An integer in decimal at p, which has room for 21 characters; returns the end. Numbers below
// 10^8 (ids, pids, counts) are written here, inline; longer ones by write_decimal().
template <class T>
char* write_integer(char* p, T v) noexcept {
  std::uint64_t magnitude = static_cast<std::uint64_t>(v);
  if constexpr (std::is_signed_v<T>) {
    if (v < 0) *p++ = '-', magnitude = 0 - magnitude;
  }
  if (magnitude < 100'000'000) return write_head(p, static_cast<std::uint32_t>(magnitude));
  return write_decimal(p, magnitude);
}

// Bytes write_fixed4() may store.
inline constexpr std::size_t kFixed4Most = 32;
// v with four decimals at p, as append_fixed4() writes it, when v is one of the values written
// without std::to_chars (0 <= v * 10^4 < 2^52, not on a half); else nothing, and null.
char* write_fixed4(char* p, double v) noexcept;

// An integer in decimal, appended.
template <class T>
void append_decimal(std::string& out, T v) {
  char buf[24];
  out.append(buf, write_integer(buf, v));
}

// The decimal texts of stack addresses seen lately. Stacks repeat the frames of the stacks before
// them (a hot path is sampled again and again), and an address found here costs a probe and one
// copy instead of sixteen digits' arithmetic. Direct-mapped: a new address takes its slot.
class AddressTexts {
 public:
  static constexpr std::size_t kMost = 23;  // bytes write() may store at p
  // Writes `address` in decimal at p, which has room for kMost bytes; returns the end.
  char* write(char* p, std::uint64_t address) noexcept {
    Entry& e = entries_[(address * 0x9E3779B97F4A7C15ull) >> (64 - kBits)];
    if (e.address != address || e.size == 0) {
      e.address = address;
      e.size = static_cast<std::uint8_t>(write_decimal(e.text, address) - e.text);
    }
    std::memcpy(p, e.text, sizeof e.text);
    return p + e.size;
  }

 private:
  static constexpr unsigned kBits = 10;
  struct Entry {
    std::uint64_t address;
    std::uint8_t size;  // 0: empty
    char text[kMost];   // write_decimal's 20 bytes, and an entry of 32 bytes
  };
  Entry entries_[std::size_t{1} << kBits];
};

// Milliseconds with four decimals ("%.4f"), right-aligned in 12 columns (a text line's start).
inline void append_ms_padded(std::string& out, double ms) {
  const std::size_t start = out.size();
  append_fixed4(out, ms);
  const std::size_t n = out.size() - start;
  if (n < 12) out.insert(start, 12 - n, ' ');
}

// Literals, numbers and short texts gathered on the stack and appended to `out` a block at a
// time, rather than one std::string append each. flush() appends what was gathered and hands
// `out` over for anything else; the last one ends the text (a destructor that appended could
// throw).
class Pieces {
 public:
  // Bytes that short_text() may copy from its source: a source shorter than this must be followed
  // by that many readable bytes.
  static constexpr std::size_t kShort = 32;

  explicit Pieces(std::string& out) noexcept : out_(out) {}
  Pieces(const Pieces&) = delete;
  Pieces& operator=(const Pieces&) = delete;
  template <std::size_t N>
  Pieces& lit(const char (&text)[N]) {
    room(N - 1);
    std::memcpy(p_, text, N - 1);
    p_ += N - 1;
    return *this;
  }
  // n bytes at text; when n <= kShort, kShort bytes at text are readable (a fixed-size copy).
  Pieces& short_text(const char* text, std::size_t n) {
    if (n > kShort) return bytes(text, n);
    room(kShort);
    std::memcpy(p_, text, kShort);
    p_ += n;
    return *this;
  }
  Pieces& bytes(const char* text, std::size_t n) {
    if (n > sizeof buf_ / 2) {
      flush().append(text, n);
      return *this;
    }
    room(n);
    std::memcpy(p_, text, n);
    p_ += n;
    return *this;
  }
  Pieces& ch(char c) {
    room(1);
    *p_++ = c;
    return *this;
  }
  template <class T>
  Pieces& dec(T v) {
    room(21);
    p_ = write_integer(p_, v);
    return *this;
  }
  // v with four decimals (append_fixed4()).
  Pieces& fixed4(double v) {
    room(kFixed4Most);
    if (char* end = write_fixed4(p_, v)) p_ = end;
    else append_fixed4(flush(), v);
    return *this;
  }
  // What write(p) writes at p, given room for `most` bytes; write returns the end.
  template <class Write>
  Pieces& put(std::size_t most, Write&& write) {
    room(most);
    p_ = write(p_);
    return *this;
  }
  // 0x and lowercase hex digits, as append_hex() writes them.
  Pieces& hex(std::uint64_t v) {
    room(18);
    *p_++ = '0', *p_++ = 'x';
    p_ = std::to_chars(p_, p_ + 16, v, 16).ptr;
    return *this;
  }
  std::string& flush() {
    out_.append(buf_, p_);
    p_ = buf_;
    return out_;
  }

 private:
  void room(std::size_t n) {
    if (static_cast<std::size_t>(buf_ + sizeof buf_ - p_) < n) flush();
  }
  std::string& out_;
  char buf_[1024];
  char* p_ = buf_;
};

}  // namespace clretw::detail
