#include "clretw/guid.h"

#include "clretw/text.h"

#include <cstring>
#include <vector>

namespace clretw {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// SHA-1 (FIPS 180-4), used only to derive EventSource GUIDs.
std::array<std::uint8_t, 20> sha1(const std::vector<std::uint8_t>& message) {
  std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::vector<std::uint8_t> m = message;
  const std::uint64_t bit_length = static_cast<std::uint64_t>(message.size()) * 8;
  m.push_back(0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<std::uint8_t>(bit_length >> (8 * i)));
  auto rotl = [](std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
  for (std::size_t chunk = 0; chunk < m.size(); chunk += 64) {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const std::uint8_t* p = &m[chunk + 4 * static_cast<std::size_t>(i)];
      w[i] = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      std::uint32_t f, k;
      if (i < 20) f = (b & c) | (~b & d), k = 0x5A827999;
      else if (i < 40) f = b ^ c ^ d, k = 0x6ED9EBA1;
      else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
      else f = b ^ c ^ d, k = 0xCA62C1D6;
      std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d, d = c, c = rotl(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  std::array<std::uint8_t, 20> out{};
  for (int i = 0; i < 20; ++i) out[i] = static_cast<std::uint8_t>(h[i / 4] >> (24 - 8 * (i % 4)));
  return out;
}

}  // namespace

std::optional<Guid> Guid::parse(std::string_view t) noexcept {
  if (t.size() == 38 && t.front() == '{' && t.back() == '}') t = t.substr(1, 36);
  if (t.size() != 36 || t[8] != '-' || t[13] != '-' || t[18] != '-' || t[23] != '-') return std::nullopt;
  std::uint8_t b[16];
  int n = 0;
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '-') {
      ++i;
      continue;
    }
    int hi = hex_value(t[i]), lo = hex_value(t[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    b[n++] = static_cast<std::uint8_t>(hi * 16 + lo);
    i += 2;
  }
  Guid g;
  g.data1 = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  g.data2 = static_cast<std::uint16_t>((b[4] << 8) | b[5]);
  g.data3 = static_cast<std::uint16_t>((b[6] << 8) | b[7]);
  std::memcpy(g.data4.data(), b + 8, 8);
  return g;
}

std::string Guid::to_string() const {
  std::string s;
  append_to(s);
  return s;
}

void Guid::append_to(std::string& s) const {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[36];
  std::size_t n = 0;
  auto put = [&](std::uint64_t v, int digits) {
    for (int i = digits - 1; i >= 0; --i) buf[n++] = kHex[(v >> (4 * i)) & 15];
  };
  put(data1, 8);
  buf[n++] = '-';
  put(data2, 4);
  buf[n++] = '-';
  put(data3, 4);
  buf[n++] = '-';
  put(data4[0], 2);
  put(data4[1], 2);
  buf[n++] = '-';
  for (int i = 2; i < 8; ++i) put(data4[i], 2);
  s.append(buf, n);
}

Guid Guid::from_eventsource_name(std::string_view name) {
  static constexpr std::uint8_t kNamespace[16] = {0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
                                                  0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB};
  std::vector<std::uint8_t> message(kNamespace, kNamespace + 16);
  // EventSource upper-cases the name (invariant culture) and hashes it as UTF-16BE.
  // Provider names are ASCII in practice; only ASCII letters are upper-cased here.
  for (char16_t u : utf8_to_utf16(name)) {
    if (u >= u'a' && u <= u'z') u = static_cast<char16_t>(u - u'a' + u'A');
    message.push_back(static_cast<std::uint8_t>(u >> 8));
    message.push_back(static_cast<std::uint8_t>(u & 0xFF));
  }
  auto digest = sha1(message);
  digest[7] = static_cast<std::uint8_t>((digest[7] & 0x0F) | 0x50);
  return Guid::load(digest.data());  // .NET's Guid(byte[]) reads the first fields little-endian
}

}  // namespace clretw
