#include "clretw/text.h"

#include <bit>
#include <cstring>

#include "clretw/bytes.h"

namespace clretw {

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

constexpr char32_t kReplacement = 0xFFFD;

bool is_high(char16_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool is_low(char16_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

// Calls emit(code point) for each code point of the UTF-16 view.
template <class F>
void for_each_code_point(const Utf16View& s, F&& emit) {
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    char16_t u = s[i];
    if (is_high(u) && i + 1 < n && is_low(s[i + 1])) {
      emit(0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (s[i + 1] - 0xDC00));
      ++i;
    } else if (is_high(u) || is_low(u)) {
      emit(kReplacement);
    } else {
      emit(static_cast<char32_t>(u));
    }
  }
}

// Decodes one UTF-8 sequence at s[i]; advances i. Invalid input yields U+FFFD
// and consumes one byte.
char32_t next_utf8(std::string_view s, std::size_t& i) {
  auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > s.size()) {
    ++i;
    return kReplacement;
  }
  char32_t cp = b0 & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return kReplacement;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kReplacement;
  }
  i += len;
  return cp;
}

template <class F>
void for_each_utf8(std::string_view s, F&& emit) {
  for (std::size_t i = 0; i < s.size();) emit(next_utf8(s, i));
}

}  // namespace

std::string Utf16View::to_utf8() const {
  std::string out;
  append_utf8(out);
  return out;
}

void Utf16View::append_utf8(std::string& out) const {
  // Written in place: a UTF-16 unit takes at most 3 UTF-8 bytes (a surrogate pair, 2 units, takes 4).
  const std::size_t start = out.size();
  out.resize(start + 3 * units_);
  char* w = out.data() + start;
  auto put = [&w](char32_t cp) {
    if (cp < 0x80) {
      *w++ = static_cast<char>(cp);
    } else if (cp < 0x800) {
      *w++ = static_cast<char>(0xC0 | (cp >> 6));
      *w++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *w++ = static_cast<char>(0xE0 | (cp >> 12));
      *w++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *w++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *w++ = static_cast<char>(0xF0 | (cp >> 18));
      *w++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *w++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *w++ = static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  const std::size_t n = units_;
  for (std::size_t i = 0; i < n;) {
    // Runs of ASCII eight units at a time with SSE2, then four (the common case: type, method and
    // module names). A block with any unit above 0x7F ends the run there.
#ifdef CLRETW_SSE2
    while (i + 8 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data_ + 2 * i));
      const __m128i high = _mm_and_si128(v, _mm_set1_epi16(static_cast<short>(0xFF80)));
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF) break;
      _mm_storel_epi64(reinterpret_cast<__m128i*>(w), _mm_packus_epi16(v, v));
      w += 8, i += 8;
    }
#endif
    while (i + 4 <= n) {
      const auto v = load_le<std::uint64_t>(data_ + 2 * i);
      if (v & 0xFF80FF80FF80FF80u) break;
      w[0] = static_cast<char>(v), w[1] = static_cast<char>(v >> 16);
      w[2] = static_cast<char>(v >> 32), w[3] = static_cast<char>(v >> 48);
      w += 4, i += 4;
    }
    if (i == n) break;
    const char16_t u = (*this)[i];
    if (is_high(u) && i + 1 < n && is_low((*this)[i + 1])) {
      put(0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + ((*this)[i + 1] - 0xDC00));
      i += 2;
    } else {
      put(is_high(u) || is_low(u) ? kReplacement : static_cast<char32_t>(u));
      ++i;
    }
  }
  out.resize(static_cast<std::size_t>(w - out.data()));
}

std::u16string Utf16View::to_u16string() const {
  std::u16string out(units_, u'\0');
  for (std::size_t i = 0; i < units_; ++i) out[i] = (*this)[i];
  return out;
}

bool Utf16View::equals(std::string_view utf8) const {
  std::size_t j = 0;
  bool same = true;
  for_each_code_point(*this, [&](char32_t cp) {
    if (!same) return;
    if (j >= utf8.size() || next_utf8(utf8, j) != cp) same = false;
  });
  return same && j == utf8.size();
}

std::u16string utf8_to_utf16(std::string_view utf8) {
  std::u16string out;
  out.reserve(utf8.size());
  for_each_utf8(utf8, [&](char32_t cp) {
    if (cp >= 0x10000) {
      out.push_back(static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  });
  return out;
}

std::size_t utf16_length(std::string_view utf8) {
  std::size_t n = 0;
  for_each_utf8(utf8, [&](char32_t cp) { n += cp >= 0x10000 ? 2 : 1; });
  return n;
}

void put_utf16(ByteWriter& w, std::string_view utf8) {
  for_each_utf8(utf8, [&](char32_t cp) {
    if (cp >= 0x10000) {
      w.put(static_cast<std::uint16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      w.put(static_cast<std::uint16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      w.put(static_cast<std::uint16_t>(cp));
    }
  });
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t cp = next_utf8(s, i);
    if (cp == kReplacement && !(i - at == 3 && s.substr(at, 3) == "\xEF\xBF\xBD")) return false;
  }
  return true;
}

std::string valid_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  for_each_utf8(s, [&](char32_t cp) { append_utf8(out, cp); });
  return out;
}

std::string ansi_to_utf8(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return std::string(bytes);
  std::string out;
  for (unsigned char c : bytes) append_utf8(out, c);
  return out;
}

// With SSE2, sixteen bytes at a time; elsewhere, one at a time.
std::size_t Escaper::next_candidate(std::string_view s, std::size_t i) const noexcept {
  if (scan_every_byte_) return i;
  const char* data = s.data();
  const std::size_t n = s.size();
#ifdef CLRETW_SSE2
  const __m128i ceiling = _mm_set1_epi8(0x1F);
  const __m128i w0 = _mm_set1_epi8(printable_[0]), w1 = _mm_set1_epi8(printable_[1]);
  const __m128i w2 = _mm_set1_epi8(printable_[2]), w3 = _mm_set1_epi8(printable_[3]);
  auto x16 = [](const char* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); };
  // One bit per byte of the 16 in x that may be special.
  auto block = [&](__m128i x) {
    // x <= 0x1F, unsigned: the minimum of x and 0x1F is x.
    const __m128i controls = scan_controls_ ? _mm_cmpeq_epi8(_mm_min_epu8(x, ceiling), x) : _mm_setzero_si128();
    const __m128i a = _mm_or_si128(_mm_cmpeq_epi8(x, w0), _mm_cmpeq_epi8(x, w1));
    const __m128i b = _mm_or_si128(_mm_cmpeq_epi8(x, w2), _mm_cmpeq_epi8(x, w3));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(controls, _mm_or_si128(a, b))));
  };
  if (n - i >= 16 || (n >= 16 && i < n)) {
    for (; n - i >= 16; i += 16)
      if (const unsigned bits = block(x16(data + i))) return i + static_cast<unsigned>(std::countr_zero(bits));
    if (i == n) return n;
    // The rest, in the block that ends with s, its 16 - (n - i) bytes before i dropped.
    const unsigned bits = block(x16(data + n - 16)) >> (16 - (n - i));
    return bits ? i + static_cast<unsigned>(std::countr_zero(bits)) : n;
  }
  if (n >= 4 && i < n) {
    // A short string (4 to 15 bytes) in one block: its first h bytes, then its last h, h being
    // 8 or 4 (the block's other lanes hold zeros, which are not looked at).
    const std::size_t h = n >= 8 ? 8 : 4;
    __m128i x;
    if (h == 8) {
      x = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(data)),
                             _mm_loadl_epi64(reinterpret_cast<const __m128i*>(data + n - 8)));
    } else {
      std::uint32_t first, last;
      std::memcpy(&first, data, 4);
      std::memcpy(&last, data + n - 4, 4);
      x = _mm_cvtsi32_si128(static_cast<int>(first));
      x = _mm_unpacklo_epi32(x, _mm_cvtsi32_si128(static_cast<int>(last)));
    }
    const unsigned bits = block(x);
    const unsigned lanes = (1u << h) - 1;
    // Lane k is s[k] for k < h, s[n - 2h + k] after; the bytes before i are dropped.
    if (const unsigned head = bits & lanes & (lanes << (i < h ? i : h))) return static_cast<unsigned>(std::countr_zero(head));
    const std::size_t skip = i > n - h ? i - (n - h) : 0;
    const unsigned tail = (bits >> h) & lanes & (lanes << skip);
    return tail ? n - h + static_cast<unsigned>(std::countr_zero(tail)) : n;
  }
#endif
  for (; i < n; ++i)
    if (special_[static_cast<unsigned char>(data[i])]) return i;
  return n;
}

void Escaper::append(std::string& out, std::string_view s) const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t plain = 0;  // start of the run of characters written as they are
  for (std::size_t i = find_special(s); i < s.size(); i = find_special(s, i + 1)) {
    const auto c = static_cast<unsigned char>(s[i]);
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    if (c < 128 && !named_[c].empty()) {
      out += named_[c];
    } else {
      out += prefix_;
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      out += suffix_;
    }
  }
  out.append(s.data() + plain, s.size() - plain);
}

namespace {
constexpr Escaper kJson({{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"}, {'\b', "\\b"},
                         {'\f', "\\f"}},
                        "\\u00");
}  // namespace

const Escaper& json_escaper() noexcept { return kJson; }

void append_json_escaped(std::string& out, std::string_view s) { kJson.append(out, s); }

namespace {

// Iterative '*' matching with backtracking on the last '*'; `same(p, t)` compares one character.
template <class Same>
bool glob(std::string_view p, std::string_view t, Same same) noexcept {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (pi < p.size() && same(p[pi], t[ti])) {
      ++pi, ++ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

char lower_char(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_char(c);
  return out;
}

bool equal_nocase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower_char(a[i]) != lower_char(b[i])) return false;
  return true;
}

bool glob_match(std::string_view p, std::string_view t) {
  return glob(p, t, [](char a, char b) { return a == b; });
}

bool glob_match_nocase(std::string_view p, std::string_view t) noexcept {
  return glob(p, t, [](char a, char b) { return a == lower_char(b); });
}

}  // namespace clretw
