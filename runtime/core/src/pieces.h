// pieces.h (internal to the core) - text gathered on the stack and appended to a std::string a
// block at a time, for the formatters that write many short pieces per event (format_event's
// lines, FieldPlan's fields).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "clretw/format.h"

namespace clretw::detail {

// An integer in decimal at p, which has room for 21 characters; returns the end.
template <class T>
char* write_integer(char* p, T v) noexcept {
  std::uint64_t magnitude = static_cast<std::uint64_t>(v);
  if constexpr (std::is_signed_v<T>) {
    if (v < 0) *p++ = '-', magnitude = 0 - magnitude;
  }
  return write_decimal(p, magnitude);
}

// Bytes write_fixed4() may store.
inline constexpr std::size_t kFixed4Most = 32;
// v with four decimals at p, as append_fixed4() writes it, when v is one of the values written
// without std::to_chars (0 <= v * 10^4 < 2^52, not on a half); else nothing, and null.
char* write_fixed4(char* p, double v) noexcept;

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
