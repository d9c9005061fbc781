// The core's number writers: decimal (eight or sixteen digits at a time), fixed with four
// decimals, shortest doubles, hex. numbers.h declares them and the inline writers built on them.
#include "numbers.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

namespace clretw {

void append_hex(std::string& out, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  out += "0x";
  out.append(buf, r.ptr);
}

namespace {

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

#ifdef CLRETW_SSE2
// 10^8 <= v < 10^16 (a return address, a heap address): sixteen digits at once in the 16-bit
// lanes of one SSE2 register, then the leading zeros dropped. The two halves of eight digits are
// split by 10^4 into four groups, each group by 100 into two pairs, each pair by 10 into two
// bytes. The reciprocals are exact for these values: 0xD1B71759 / 2^45 for x / 10^4 with
// x < 10^8, 5243 / 2^19 for x / 100 with x < 10^4, 6554 / 2^16 for x / 10 with x < 100.
// Stores sixteen bytes at p.
char* write_sixteen(char* p, std::uint64_t v) noexcept {
  const auto halves = _mm_set_epi64x(static_cast<long long>(v % 100'000'000), static_cast<long long>(v / 100'000'000));
  const __m128i q = _mm_srli_epi64(_mm_mul_epu32(halves, _mm_set1_epi32(static_cast<int>(0xD1B71759u))), 45);
  const __m128i r = _mm_sub_epi32(halves, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
  // The four groups, in order, in the first four 16-bit lanes.
  const __m128i groups = _mm_shuffle_epi32(_mm_or_si128(q, _mm_slli_epi64(r, 16)), _MM_SHUFFLE(3, 1, 2, 0));
  const __m128i twice = _mm_unpacklo_epi16(groups, groups);  // each group in two lanes
  const __m128i hundreds = _mm_srli_epi16(_mm_mulhi_epu16(twice, _mm_set1_epi16(5243)), 3);
  const __m128i rest = _mm_sub_epi16(twice, _mm_mullo_epi16(hundreds, _mm_set1_epi16(100)));
  const __m128i even = _mm_set1_epi32(0xFFFF);
  const __m128i pairs = _mm_or_si128(_mm_and_si128(even, hundreds), _mm_andnot_si128(even, rest));  // in order
  const __m128i tens = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
  // A pair's lane as two bytes, tens first: (pair << 8) - tens * (10 << 8) + tens.
  const __m128i digits = _mm_sub_epi16(_mm_slli_epi16(pairs, 8), _mm_mullo_epi16(tens, _mm_set1_epi16(2559)));
  const __m128i chars = _mm_add_epi8(digits, _mm_set1_epi8('0'));
  const auto zeros = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chars, _mm_set1_epi8('0'))));
  const auto lead = static_cast<unsigned>(std::countr_zero(~zeros));  // at most 7: v >= 10^8
  alignas(16) char buf[32] = {};
  _mm_store_si128(reinterpret_cast<__m128i*>(buf), chars);
  std::memcpy(p, buf + lead, 16);
  return p + 16 - lead;
}
#endif

}  // namespace

char* write_decimal(char* p, std::uint64_t v) noexcept {
  using detail::eight_digits, detail::store_digits, detail::write_head;
  if (v < 100'000'000) return write_head(p, static_cast<std::uint32_t>(v));
#ifdef CLRETW_SSE2
  if (v < 10'000'000'000'000'000) return write_sixteen(p, v);
#endif
  const auto low = static_cast<std::uint32_t>(v % 100'000'000);
  v /= 100'000'000;
  if (v < 100'000'000) {
    p = write_head(p, static_cast<std::uint32_t>(v));
  } else {  // 17 to 20 digits
    p = write_head(p, static_cast<std::uint32_t>(v / 100'000'000));
    store_digits(p, eight_digits(static_cast<std::uint32_t>(v % 100'000'000)), 8);
    p += 8;
  }
  store_digits(p, eight_digits(low), 8);
  return p + 8;
}

namespace detail {

char* write_fixed4(char* p, double v) noexcept {
  // v * 10^4 rounded to the nearest integer, in integer arithmetic. Below 2^52 every k + 1/2 is a
  // double, so the rounded product lies on the same side of it as the exact one, or on it:
  // only a product that lands on a half is left to std::to_chars (as are huge or negative
  // values, -0 and NaN).
  const double scaled = v * 10000.0;
  if (scaled < 0x1p52 && scaled >= 0 && !std::signbit(scaled)) {
    const auto whole = static_cast<std::uint64_t>(scaled);
    const double fraction = scaled - static_cast<double>(whole);  // exact below 2^52
    if (fraction != 0.5) {
      const std::uint64_t n = whole + (fraction > 0.5);
      p = write_decimal(p, n / 10000);
      *p = '.';
      const auto decimals = static_cast<unsigned>(n % 10000);
      std::memcpy(p + 1, kPairs + 2 * (decimals / 100), 2);
      std::memcpy(p + 3, kPairs + 2 * (decimals % 100), 2);
      return p + 5;
    }
  }
  return nullptr;
}

}  // namespace detail

void append_fixed4(std::string& out, double v) {
  char buf[detail::kFixed4Most];
  if (char* end = detail::write_fixed4(buf, v)) {
    out.append(buf, end);
    return;
  }
  char wide[320];  // DBL_MAX has 309 digits before the point
  const auto r = std::to_chars(wide, wide + sizeof wide, v, std::chars_format::fixed, 4);
  out.append(wide, r.ptr);
}

void append_double(std::string& out, double v) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace clretw
