// clretw/text.h - UTF-16 payload strings and UTF-8 conversion.
//
// ETW and EventPipe strings are UTF-16LE, stored unaligned inside payloads.
// Utf16View refers to such a string in place (no copy); to_utf8() converts it,
// replacing unpaired surrogates with U+FFFD.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "clretw/bytes.h"

namespace clretw {

// A UTF-16LE string inside a byte buffer: `units` code units starting at `data`.
class Utf16View {
 public:
  constexpr Utf16View() = default;
  constexpr Utf16View(const std::uint8_t* data, std::size_t units) : data_(data), units_(units) {}

  std::size_t size() const noexcept { return units_; }  // in UTF-16 code units
  bool empty() const noexcept { return units_ == 0; }
  char16_t operator[](std::size_t i) const noexcept {
    return static_cast<char16_t>(load_le<std::uint16_t>(data_ + 2 * i));
  }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size_bytes() const noexcept { return 2 * units_; }

  std::string to_utf8() const;
  void append_utf8(std::string& out) const;
  std::u16string to_u16string() const;

  // Compares with UTF-8 text (exact code point equality).
  bool equals(std::string_view utf8) const;
  friend bool operator==(const Utf16View& a, std::string_view b) { return a.equals(b); }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t units_ = 0;
};

// Appends the UTF-8 encoding of code point cp (cp must be a scalar value).
void append_utf8(std::string& out, char32_t cp);

// Decodes UTF-8 into UTF-16 code units; invalid sequences become U+FFFD.
std::u16string utf8_to_utf16(std::string_view utf8);

// Number of UTF-16 code units utf8_to_utf16(utf8) would produce.
std::size_t utf16_length(std::string_view utf8);

// Writes UTF-8 text as UTF-16LE code units (no terminator).
void put_utf16(ByteWriter& w, std::string_view utf8);

// True when s is well-formed UTF-8.
bool is_valid_utf8(std::string_view s);

// s with every byte sequence that is not well-formed UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

// ANSI payload strings are raw bytes; CLR writes UTF-8. Valid UTF-8 passes
// through, anything else is read as Latin-1 so the output is always UTF-8.
std::string ansi_to_utf8(std::string_view bytes);

// How a text format writes the characters it cannot take as they are: some
// by name (a table), the other control characters (below 0x20) as a prefix,
// two hex digits and a suffix - or as they are, when the prefix is empty.
// Built at compile time; JSON strings, C++ literals and XML attributes each
// have one.
class Escaper {
 public:
  struct Escape {
    char c;
    std::string_view as;
  };
  constexpr Escaper(std::initializer_list<Escape> table, std::string_view control_prefix = {},
                    std::string_view control_suffix = {})
      : prefix_(control_prefix), suffix_(control_suffix) {
    for (const Escape& e : table) named_[static_cast<unsigned char>(e.c) & 127] = e.as;
    for (unsigned c = 0; c < 256; ++c) {
      special_[c] = (c < 128 && !named_[c].empty()) || (c < 0x20 && !prefix_.empty());
      if (!special_[c]) continue;
      if (c < 0x20) scan_controls_ = true;
      else if (printable_count_ < printable_.size()) printable_[printable_count_++] = static_cast<char>(c);
      else scan_every_byte_ = true;
    }
    // The SSE2 scan compares all four: the unused ones repeat the first (or, with none, 0xFF,
    // which never occurs in UTF-8).
    for (std::size_t k = printable_count_; k < printable_.size(); ++k)
      printable_[k] = printable_count_ ? printable_[0] : '\xFF';
  }
  void append(std::string& out, std::string_view s) const;
  // The position of the first character of s at or after `from` that is written otherwise than
  // as it is, or s.size().
  std::size_t find_special(std::string_view s, std::size_t from = 0) const noexcept {
    for (; (from = next_candidate(s, from)) < s.size(); ++from)
      if (special_[static_cast<unsigned char>(s[from])]) return from;
    return s.size();
  }

 private:
  // The first byte at or after i that may be special: any control character when one is, and the
  // printable special characters, compared many bytes at a time.
  std::size_t next_candidate(std::string_view s, std::size_t i) const noexcept;

  std::array<std::string_view, 128> named_{};
  std::array<bool, 256> special_{};  // written otherwise than as it is
  std::string_view prefix_, suffix_;
  // What next_candidate() compares: up to four printable special characters (printable_count_ of
  // them; the rest repeat one); with more, every byte.
  std::array<char, 4> printable_{};
  std::size_t printable_count_ = 0;
  bool scan_controls_ = false, scan_every_byte_ = false;
};

// The escaper append_json_escaped() uses: quote, backslash and control characters.
const Escaper& json_escaper() noexcept;

// Appends s to out with JSON string escaping (no surrounding quotes).
void append_json_escaped(std::string& out, std::string_view utf8);

// '*' wildcard match, case-sensitive ("*/GC/*" matches "Microsoft-Windows-DotNETRuntime/GC/Start").
bool glob_match(std::string_view pattern, std::string_view text);
// ASCII lower case (names of providers, events and keywords), and equality without regard to it.
std::string ascii_lower(std::string_view s);
bool equal_nocase(std::string_view a, std::string_view b) noexcept;
// glob_match without regard to ASCII case; `lower_pattern` is in lower case.
bool glob_match_nocase(std::string_view lower_pattern, std::string_view text) noexcept;

}  // namespace clretw
