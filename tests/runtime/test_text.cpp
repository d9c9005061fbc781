#include <doctest/doctest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "clretw/text.h"

using clretw::Utf16View;

namespace {
// UTF-16LE bytes of the given code units.
std::vector<std::uint8_t> le(std::initializer_list<char16_t> units) {
  std::vector<std::uint8_t> b;
  for (char16_t u : units) {
    b.push_back(static_cast<std::uint8_t>(u & 0xFF));
    b.push_back(static_cast<std::uint8_t>(u >> 8));
  }
  return b;
}
}  // namespace

TEST_CASE("UTF-16 to UTF-8: ASCII, BMP and surrogate pairs") {
  auto b = le({u'a', 0x00E9, 0x4E2D, 0xD83D, 0xDE00, u'z'});
  Utf16View v(b.data(), 6);
  CHECK(v.to_utf8() == "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z");
  CHECK(v.equals("a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z"));
  CHECK_FALSE(v.equals("a"));
  CHECK(v.size() == 6);
}

TEST_CASE("unpaired surrogates become U+FFFD") {
  auto lone_high = le({u'x', 0xD800, u'y'});
  CHECK(Utf16View(lone_high.data(), 3).to_utf8() == "x\xEF\xBF\xBDy");
  auto lone_low = le({0xDC00});
  CHECK(Utf16View(lone_low.data(), 1).to_utf8() == "\xEF\xBF\xBD");
  auto high_at_end = le({u'a', 0xDBFF});
  CHECK(Utf16View(high_at_end.data(), 2).to_utf8() == "a\xEF\xBF\xBD");
  auto reversed = le({0xDE00, 0xD83D});
  CHECK(Utf16View(reversed.data(), 2).to_utf8() == "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("UTF-8 to UTF-16 and back; invalid UTF-8 becomes U+FFFD") {
  const std::string s = "G\xC3\xBCnter \xF0\x9D\x84\x9E!";
  std::u16string u = clretw::utf8_to_utf16(s);
  CHECK(u.size() == 10);
  CHECK(clretw::utf16_length(s) == 10);
  std::vector<std::uint8_t> bytes;
  clretw::ByteWriter w(bytes);
  clretw::put_utf16(w, s);
  CHECK(Utf16View(bytes.data(), bytes.size() / 2).to_utf8() == s);
  CHECK(clretw::utf8_to_utf16("\xFF") == std::u16string(1, u'\xFFFD'));
  CHECK(clretw::utf8_to_utf16("\xC0\xAF") == std::u16string(2, u'\xFFFD'));  // overlong
  CHECK(clretw::utf8_to_utf16("\xED\xA0\x80").size() == 3);                 // encoded surrogate: invalid
}

TEST_CASE("ANSI strings: valid UTF-8 passes, other bytes are Latin-1") {
  CHECK(clretw::ansi_to_utf8("plain") == "plain");
  CHECK(clretw::ansi_to_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(clretw::ansi_to_utf8("caf\xE9") == "caf\xC3\xA9");
  CHECK(clretw::is_valid_utf8("\xEF\xBF\xBD"));
  CHECK_FALSE(clretw::is_valid_utf8("\x80"));
  CHECK(clretw::valid_utf8("a\x80" "b\xC3\xA9") == "a\xEF\xBF\xBD" "b\xC3\xA9");
  CHECK(clretw::valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("JSON escaping") {
  std::string out;
  clretw::append_json_escaped(out, "a\"b\\c\n\x01");
  CHECK(out == "a\\\"b\\\\c\\n\\u0001");
}

TEST_CASE("Escaper: named characters, control characters with a prefix and suffix, or kept as they are") {
  // C++-literal style: a control character becomes \xHH and ends the literal, so a following hex digit stays text.
  static constexpr clretw::Escaper kCpp({{'"', "\\\""}, {'?', "\\?"}}, "\\x", "\"\"");
  std::string out = "<";
  kCpp.append(out, "a\x1f" "b?\"");
  CHECK(out == "<a\\x1f\"\"b\\?\\\"");
  out.clear();
  kCpp.append(out, "");
  CHECK(out.empty());
  kCpp.append(out, "plain text, untouched");
  CHECK(out == "plain text, untouched");

  // No prefix: control characters without a name are kept; bytes above 0x7F are never escaped.
  static constexpr clretw::Escaper kXml({{'&', "&amp;"}, {'\n', "&#10;"}});
  out.clear();
  kXml.append(out, "x\x01&\n\xC3\xA9&");
  CHECK(out == "x\x01&amp;&#10;\xC3\xA9&amp;");
}

TEST_CASE("Escaper: the many-bytes-at-a-time scan escapes what a character-by-character escaper does") {
  // Escapers of every scan kind: controls and two printable characters (JSON), no controls, one
  // named control without a prefix (the others are kept), and five printable characters (more
  // than the scan compares: every byte is looked up).
  static constexpr clretw::Escaper kNoControls({{'"', "\"\""}});
  static constexpr clretw::Escaper kOneControl({{'&', "&amp;"}, {'\n', "&#10;"}, {'\x7f', "&#127;"}});
  static constexpr clretw::Escaper kFive({{'a', "<a>"}, {'b', "<b>"}, {'c', "<c>"}, {'d', "<d>"}, {'e', "<e>"}}, "%", ";");
  const std::string_view json_named[] = {"\"", "\\\"", "\\", "\\\\", "\n", "\\n", "\r", "\\r",
                                         "\t", "\\t", "\b", "\\b", "\f", "\\f"};
  // The reference: one character at a time, from the table as written above.
  auto reference = [](std::string_view s, const std::vector<std::pair<char, std::string_view>>& named,
                      std::string_view prefix, std::string_view suffix) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      auto it = std::find_if(named.begin(), named.end(), [&](const auto& e) { return e.first == ch; });
      if (it != named.end()) out += it->second;
      else if (c < 0x20 && !prefix.empty()) out += std::string(prefix) + kHex[c >> 4] + kHex[c & 15] + std::string(suffix);
      else out += ch;
    }
    return out;
  };
  std::vector<std::pair<char, std::string_view>> json;
  for (std::size_t i = 0; i < std::size(json_named); i += 2) json.emplace_back(json_named[i][0], json_named[i + 1]);
  const struct {
    const clretw::Escaper* escaper;
    std::vector<std::pair<char, std::string_view>> named;
    std::string_view prefix, suffix;
  } escapers[] = {{&clretw::json_escaper(), json, "\\u00", ""},
                  {&kNoControls, {{'"', "\"\""}}, "", ""},
                  {&kOneControl, {{'&', "&amp;"}, {'\n', "&#10;"}, {'\x7f', "&#127;"}}, "", ""},
                  {&kFive, {{'a', "<a>"}, {'b', "<b>"}, {'c', "<c>"}, {'d', "<d>"}, {'e', "<e>"}}, "%", ";"}};
  // Plain text with one or two special bytes placed anywhere in strings up to 70 long (past
  // the 16- and 8-byte blocks and their tails), from a buffer offset so both alignments occur.
  const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', '\x7f', '&', 'a', 'e', '\x80', '\xff', ' ', '\x20', '!', '#', '\x21'};
  std::size_t checked = 0, wrong = 0;
  std::string first;
  for (const auto& e : escapers) {
    for (std::size_t n = 0; n <= 70; ++n) {
      for (std::size_t at = 0; at < std::max<std::size_t>(n, 1); ++at) {
        for (char special : specials) {
          std::string buffer(n + 1, 'x');
          std::string_view s(buffer.data() + (at & 1), n);
          if (n) buffer[(at & 1) + at] = special;
          if (n > 3) buffer[(at & 1) + (at * 7 + 3) % n] = specials[(at + n) % std::size(specials)];
          std::string ours = "<";
          e.escaper->append(ours, s);
          ++checked;
          if (ours != "<" + reference(s, e.named, e.prefix, e.suffix) && !wrong++) first = std::string(s);
        }
      }
    }
  }
  CHECK(checked > 100'000);
  CHECK_MESSAGE(wrong == 0, "first: ", first);
}

TEST_CASE("UTF-16 to UTF-8 across ASCII runs: every unit kind at every position of long strings") {
  // The converter copies ASCII eight units at a time (SSE2), then four; a non-ASCII unit (BMP,
  // surrogate pair, lone surrogate) anywhere in a run must end the block there. Checked against
  // equals(), which decodes code point by code point on its own path.
  const char16_t kinds[][2] = {{u'A', 0}, {0x7F, 0}, {0x80, 0}, {0xE9, 0}, {0x4E2D, 0}, {0xD83D, 0xDE00},
                               {0xD800, 0}, {0xDC00, 0}, {0xFFFF, 0}};
  for (const auto& kind : kinds) {
    for (std::size_t at = 0; at < 29; ++at) {
      std::vector<char16_t> units(29, u'x');
      units[at] = kind[0];
      if (kind[1] && at + 1 < units.size()) units[at + 1] = kind[1];
      std::vector<std::uint8_t> bytes;
      for (char16_t u : units) bytes.push_back(static_cast<std::uint8_t>(u & 0xFF)), bytes.push_back(static_cast<std::uint8_t>(u >> 8));
      const Utf16View v(bytes.data(), units.size());
      const std::string utf8 = v.to_utf8();
      CHECK_MESSAGE(v.equals(utf8), "unit ", static_cast<unsigned>(kind[0]), " at ", at);
      std::string appended = "prefix:";
      v.append_utf8(appended);
      CHECK(appended == "prefix:" + utf8);
    }
  }
  CHECK(Utf16View(nullptr, 0).to_utf8().empty());
}
