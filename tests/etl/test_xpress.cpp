// The XPRESS (plain LZ77) decompressor of ETL buffers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "shared_cases.h"
#include "../../runtime/etl/src/xpress.h"

namespace {

using clretw::Bytes;
using clretw::Errc;
using clretw::load_le;
using clretw::etl::detail::xpress_compress;
using clretw::etl::detail::xpress_decompress;
using Buf = std::vector<std::uint8_t>;

Buf bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// Decompresses into a buffer of `capacity` bytes; the output when it succeeds.
clretw::Result<Buf> decompress(const Buf& in, std::size_t capacity) {
  Buf out(capacity);
  auto r = xpress_decompress(in, out);
  if (!r) return std::move(r).error();
  out.resize(*r);
  return out;
}

Buf random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Buf b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

// Writes a stream token by token, independently of xpress_compress(), and keeps what it
// must decompress to (matches expanded byte by byte, as the spec does).
class TokenWriter {
 public:
  TokenWriter() { bytes_.resize(4); }
  TokenWriter& literal(std::uint8_t b) {
    bytes_.push_back(b);
    plain_.push_back(b);
    return flag(0);
  }
  TokenWriter& literals(const Buf& bs) {
    for (auto b : bs) literal(b);
    return *this;
  }
  TokenWriter& match(std::size_t offset, std::uint64_t length) {
    REQUIRE(offset >= 1);
    REQUIRE(offset <= 8192);
    REQUIRE(length >= 3);
    const std::uint32_t off = static_cast<std::uint32_t>(offset - 1) << 3;
    const std::uint64_t l = length - 3;
    if (l < 7) {
      put(off | static_cast<std::uint32_t>(l), 2);
    } else {
      put(off | 7, 2);
      const std::uint64_t nib = std::min<std::uint64_t>(l - 7, 15);
      if (half_ == 0) {
        half_ = bytes_.size();
        bytes_.push_back(static_cast<std::uint8_t>(nib));
      } else {
        bytes_[half_] = static_cast<std::uint8_t>(bytes_[half_] | nib << 4);
        half_ = 0;
      }
      if (l >= 22) {
        if (l - 22 < 255) {
          put(l - 22, 1);
        } else {
          put(255, 1);
          if (l <= 0xFFFF) {
            put(l, 2);
          } else {
            put(0, 2);
            put(l, 4);
          }
        }
      }
    }
    for (std::uint64_t i = 0; i < length; ++i) plain_.push_back(plain_[plain_.size() - offset]);
    return flag(1);
  }
  // The stream so far, every further flag 1 (the end).
  Buf finish() const {
    Buf b = bytes_;
    const unsigned unused = 32 - count_;
    const std::uint32_t f = unused == 32 ? 0xFFFFFFFFu : (flags_ << unused) | ((1u << unused) - 1);
    for (unsigned i = 0; i < 4; ++i) b[flag_pos_ + i] = static_cast<std::uint8_t>(f >> (8 * i));
    return b;
  }
  const Buf& plain() const { return plain_; }
  std::size_t size() const { return bytes_.size(); }

 private:
  void put(std::uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  TokenWriter& flag(std::uint32_t bit) {
    flags_ = flags_ << 1 | bit;
    if (++count_ == 32) {
      for (unsigned i = 0; i < 4; ++i) bytes_[flag_pos_ + i] = static_cast<std::uint8_t>(flags_ >> (8 * i));
      flag_pos_ = bytes_.size();
      bytes_.resize(bytes_.size() + 4);
      flags_ = 0;
      count_ = 0;
    }
    return *this;
  }
  Buf bytes_, plain_;
  std::size_t flag_pos_ = 0, half_ = 0;
  std::uint32_t flags_ = 0;
  unsigned count_ = 0;
};

void check_error(const clretw::Result<Buf>& r, std::uint64_t offset, std::string_view detail) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::bad_format);
  CHECK(r.error().offset == offset);
  CHECK(r.error().detail == detail);
}

// Compresses, checks the result decompresses to exactly `plain` (and not into one byte
// less), and returns the compressed size.
std::size_t round_trip(const Buf& plain) {
  const Buf packed = xpress_compress(plain);
  auto r = decompress(packed, plain.size());
  REQUIRE_MESSAGE(r.ok(), r.error().detail << " at " << r.error().offset);
  CHECK(*r == plain);
  auto more = decompress(packed, plain.size() + 100);
  REQUIRE(more.ok());
  CHECK(more->size() == plain.size());
  if (!plain.empty()) CHECK_FALSE(decompress(packed, plain.size() - 1).ok());
  return packed.size();
}

// --- the ETL file ------------------------------------------------------------------

struct EtlBuffer {
  std::size_t file_offset;
  std::uint32_t buffer_size, saved_offset;
  std::uint16_t flags, type;
  Buf data;  // bytes [72, BufferSize)
};

constexpr std::size_t kBufferHeader = 72;

std::vector<EtlBuffer> etl_buffers(bool& found) {
  const std::filesystem::path path = CLRETW_SHARED_DIR "/etl/net.4.5.2.x64.etl";
  std::ifstream f(path, std::ios::binary);
  found = static_cast<bool>(f);
  if (!found) {
    clretw::test::skip(path.string() + " is absent; the tests on real compressed ETL buffers did not run");
    return {};
  }
  const Buf file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<EtlBuffer> out;
  std::size_t pos = 0;
  while (pos < file.size()) {
    REQUIRE(file.size() - pos >= kBufferHeader);
    EtlBuffer b;
    b.file_offset = pos;
    b.buffer_size = load_le<std::uint32_t>(&file[pos]);
    b.saved_offset = load_le<std::uint32_t>(&file[pos + 4]);
    b.flags = load_le<std::uint16_t>(&file[pos + 0x34]);
    b.type = load_le<std::uint16_t>(&file[pos + 0x36]);
    REQUIRE(b.buffer_size >= kBufferHeader);
    REQUIRE(b.buffer_size <= file.size() - pos);
    b.data.assign(file.begin() + static_cast<std::ptrdiff_t>(pos + kBufferHeader),
                  file.begin() + static_cast<std::ptrdiff_t>(pos + b.buffer_size));
    out.push_back(std::move(b));
    pos += out.back().buffer_size;
  }
  return out;
}

std::vector<EtlBuffer> compressed_buffers(bool& found) {
  auto all = etl_buffers(found);
  std::erase_if(all, [](const EtlBuffer& b) { return (b.flags & 0x40) == 0; });
  return all;
}

bool plausible_event_header(const Buf& d) {
  if (d.size() < 4 || d[3] != 0xC0) return false;
  return (d[2] >= 0x01 && d[2] <= 0x04) || (d[2] >= 0x0A && d[2] <= 0x15);
}

}  // namespace

TEST_CASE("xpress: the spec's example of 26 literals") {
  const Buf packed = {0x3f, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b,
                      0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a};
  const Buf plain = bytes_of("abcdefghijklmnopqrstuvwxyz");
  auto r = decompress(packed, 1000);
  REQUIRE(r.ok());
  CHECK(*r == plain);
  CHECK(xpress_compress(plain) == packed);
}

TEST_CASE("xpress: the spec's example of abc repeated 100 times (a 16-bit length)") {
  const Buf packed = {0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01};
  Buf plain;
  for (int i = 0; i < 100; ++i) plain.insert(plain.end(), {'a', 'b', 'c'});
  auto r = decompress(packed, 300);
  REQUIRE(r.ok());
  CHECK(*r == plain);
  CHECK(xpress_compress(plain) == packed);
}

TEST_CASE("xpress: the spec's aaaaaa, a match longer than its offset") {
  // [literal "a"][match offset 1, length 5]: flags 0 then 1, every later flag 1.
  const Buf packed = {0xff, 0xff, 0xff, 0x7f, 0x61, 0x02, 0x00};
  auto r = decompress(packed, 6);
  REQUIRE(r.ok());
  CHECK(*r == bytes_of("aaaaaa"));
  // Offset 3 over 10 bytes repeats a 3-byte pattern.
  const Buf abc = TokenWriter().literals(bytes_of("abc")).match(3, 10).finish();
  auto r2 = decompress(abc, 100);
  REQUIRE(r2.ok());
  CHECK(*r2 == bytes_of("abcabcabcabca"));
}

TEST_CASE("xpress: every match length form, at its boundaries") {
  // lengths 3..9: the 3-bit code; 10..24: the half byte; 25..279: a byte; up to 65538: 16 bits; then 32 bits.
  struct Case {
    std::uint64_t length;
    std::size_t token_size;  // bytes of the match token (its half byte counted whole)
  };
  const Case cases[] = {{3, 2},    {4, 2},    {9, 2},     {10, 3},     {11, 3},     {24, 3},     {25, 4},      {26, 4},
                        {279, 4},  {280, 6},  {281, 6},   {65538, 6},  {65539, 10}, {70000, 10}, {200000, 10}};
  for (const Case& c : cases) {
    CAPTURE(c.length);
    TokenWriter w;
    w.literals(bytes_of("xyz"));
    const std::size_t before = w.size();
    w.match(2, c.length);
    CHECK(w.size() - before == c.token_size);
    w.literal('!');
    const Buf packed = w.finish();
    auto r = decompress(packed, w.plain().size());
    REQUIRE_MESSAGE(r.ok(), r.error().detail);
    CHECK(*r == w.plain());
    CHECK(r->size() == 3 + c.length + 1);
    CHECK(round_trip(w.plain()) < 40);
  }
}

TEST_CASE("xpress: two matches share one length byte, the second taking its high half") {
  const Buf seed = random_bytes(64, 1);
  TokenWriter w;
  w.literals(seed);
  w.match(5, 12);                           // low half: 2, a new byte
  w.literal(1).literal(2);                  // other items in between
  w.match(7, 24);                           // high half: 14, no new byte
  w.match(9, 40);                           // low half of a new byte: 15, then a byte 15
  w.literals(random_bytes(40, 2));          // past a flag word
  w.match(33, 10);                          // high half: 0, across the flag word
  w.match(1, 17).match(64, 3).match(2, 25); // low 7; code 0; high 15 + a byte 0
  const Buf packed = w.finish();
  auto r = decompress(packed, 10000);
  REQUIRE_MESSAGE(r.ok(), r.error().detail);
  CHECK(*r == w.plain());
}

TEST_CASE("xpress: offsets 1 and 8192") {
  const Buf seed = random_bytes(8192, 3);
  TokenWriter w;
  w.literals(seed).match(8192, 100).match(1, 50).match(8192, 9);
  auto r = decompress(w.finish(), w.plain().size());
  REQUIRE(r.ok());
  CHECK(*r == w.plain());
  CHECK(std::equal(seed.begin(), seed.begin() + 100, r->begin() + 8192));
  CHECK(std::all_of(r->begin() + 8292, r->begin() + 8342, [&](std::uint8_t b) { return b == seed[99]; }));

  // The compressor reaches 8192 bytes back, and no further.
  Buf twice = seed;
  twice.insert(twice.end(), seed.begin(), seed.end());
  CHECK(round_trip(twice) < 8192 + 8192 / 8 + 100);
  Buf gap = random_bytes(8193, 4);
  gap.insert(gap.end(), gap.begin(), gap.begin() + 8193);
  CHECK(round_trip(gap) > gap.size());
}

TEST_CASE("xpress: round trips") {
  SUBCASE("empty") {
    const Buf packed = xpress_compress({});
    CHECK(packed == Buf{0xff, 0xff, 0xff, 0xff});
    std::span<std::uint8_t> none;
    auto r = xpress_decompress(packed, none);
    REQUIRE(r.ok());
    CHECK(*r == 0);
  }
  SUBCASE("random data of sizes around the flag words") {
    for (std::size_t n : {1u, 2u, 3u, 4u, 31u, 32u, 33u, 63u, 64u, 65u, 1000u, 65536u}) {
      CAPTURE(n);
      const Buf plain = random_bytes(n, static_cast<std::uint32_t>(n));
      CHECK(round_trip(plain) <= n + 4 * (n / 32 + 1));
    }
  }
  SUBCASE("all zero, 64 KB") {
    CHECK(round_trip(Buf(65536, 0)) < 32);
  }
  SUBCASE("runs") {
    std::mt19937 rng(5);
    Buf plain;
    while (plain.size() < 100000) plain.insert(plain.end(), rng() % 300 + 1, static_cast<std::uint8_t>(rng()));
    CHECK(round_trip(plain) < plain.size() / 4);
  }
  SUBCASE("long matches") {
    for (std::size_t len : {3u, 9u, 10u, 24u, 25u, 279u, 280u, 281u, 65538u, 65539u, 100000u}) {
      for (std::size_t distance : {1u, 7u, 300u}) {
        CAPTURE(len);
        CAPTURE(distance);
        Buf plain = random_bytes(300, static_cast<std::uint32_t>(len));
        for (std::size_t i = 0; i < len; ++i) plain.push_back(plain[plain.size() - distance]);
        const Buf tail = random_bytes(50, 99);
        plain.insert(plain.end(), tail.begin(), tail.end());
        const std::size_t unmatched = plain.size() - len;
        CHECK(round_trip(plain) <= unmatched + unmatched / 8 + 16 + 8 * (len / 65538));
      }
    }
  }
  SUBCASE("text") {
    std::string s;
    for (int i = 0; i < 3000; ++i) s += "event " + std::to_string(i * 7919 % 1000) + " of provider Microsoft-Windows-DotNETRuntime\n";
    CHECK(round_trip(bytes_of(s)) < s.size() / 3);
  }
}

TEST_CASE("xpress: truncated and malformed input") {
  SUBCASE("input ends inside a flag word") {
    check_error(decompress({}, 10), 0, "input ends inside a flag word");
    check_error(decompress({0x00, 0x00, 0x00}, 10), 0, "input ends inside a flag word");
    // 32 literals, then no second flag word.
    Buf b(4, 0);
    b.insert(b.end(), 32, 'q');
    check_error(decompress(b, 100), 36, "input ends inside a flag word");
  }
  SUBCASE("input ends at a literal") {
    check_error(decompress({0x00, 0x00, 0x00, 0x00}, 10), 4, "input ends inside a literal");
    check_error(decompress({0x00, 0x00, 0x00, 0x00, 'a', 'b'}, 10), 6, "input ends inside a literal");
  }
  SUBCASE("input ends inside a match") {
    const Buf head = {0xff, 0xff, 0xff, 0x7f, 'a'};  // a literal, then matches
    auto with = [&](std::initializer_list<std::uint8_t> tail) {
      Buf b = head;
      b.insert(b.end(), tail);
      return b;
    };
    check_error(decompress(with({0x07}), 100), 5, "input ends inside a match");                    // half a token
    check_error(decompress(with({0x07, 0x00}), 100), 5, "input ends inside a match");              // no half byte
    check_error(decompress(with({0x07, 0x00, 0x0f}), 100), 5, "input ends inside a match");        // no byte
    check_error(decompress(with({0x07, 0x00, 0x0f, 0xff, 0x30}), 100), 5, "input ends inside a match");  // half a 16-bit
    check_error(decompress(with({0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x01, 0x00, 0x01}), 1000000), 5,
                "input ends inside a match");  // three bytes of a 32-bit length
    // Complete, the 32-bit form decodes (length 65536 + 3).
    auto r = decompress(with({0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00}), 1000000);
    REQUIRE(r.ok());
    CHECK(r->size() == 1 + 65539);
    // The second match of a pair takes its length from the first one's half byte.
    r = decompress(with({0x07, 0x00, 0x32, 0x07, 0x00}), 100);
    REQUIRE(r.ok());
    CHECK(*r == Buf(1 + (2 + 10) + (3 + 10), 'a'));
  }
  SUBCASE("a 16- or 32-bit length below what the shorter forms reach") {
    const Buf b16 = {0xff, 0xff, 0xff, 0x7f, 'a', 0x07, 0x00, 0x0f, 0xff, 21, 0x00};
    check_error(decompress(b16, 1000), 5, "match length field 21 is below 22");
    const Buf b32 = {0xff, 0xff, 0xff, 0x7f, 'a', 0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 5, 0, 0, 0};
    check_error(decompress(b32, 1000), 5, "match length field 5 is below 22");
    const Buf ok16 = {0xff, 0xff, 0xff, 0x7f, 'a', 0x07, 0x00, 0x0f, 0xff, 22, 0x00};
    auto r = decompress(ok16, 1000);
    REQUIRE(r.ok());
    CHECK(r->size() == 1 + 25);
  }
  SUBCASE("a match before the start of the output") {
    // A match first of all.
    check_error(decompress({0xff, 0xff, 0xff, 0xff, 0x00, 0x00}, 10), 4,
                "match reaches 1 bytes before the start of the output");
    // Two literals, then offset 8192.
    check_error(decompress({0xff, 0xff, 0xff, 0x3f, 'a', 'b', 0xf8, 0xff}, 10000), 6,
                "match reaches 8190 bytes before the start of the output");
    // Offset 3 after three literals is fine, offset 4 is not.
    CHECK(decompress({0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x10, 0x00}, 10).ok());
    check_error(decompress({0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x18, 0x00}, 10), 7,
                "match reaches 1 bytes before the start of the output");
  }
  SUBCASE("output overflow") {
    const Buf abc = {0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01};
    check_error(decompress(abc, 299), 7, "output larger than 299 bytes");  // the match
    check_error(decompress(abc, 2), 6, "output larger than 2 bytes");      // the third literal
    check_error(decompress(abc, 0), 4, "output larger than 0 bytes");
    CHECK(decompress(abc, 300).ok());
  }
}

CLRETW_SHARED_CASE("xpress: the compressed buffers of a real ETL file") {
  bool found = false;
  const auto all = etl_buffers(found);
  if (!found) return;
  REQUIRE(all.size() == 360);
  CHECK(all[0].flags == 0x1);
  CHECK(all[0].buffer_size == 512);

  std::size_t compressed = 0, packed_total = 0, ours_total = 0;
  Buf out(65536);
  for (const auto& b : all) {
    if ((b.flags & 0x40) == 0) continue;
    CAPTURE(b.file_offset);
    ++compressed;
    REQUIRE(b.saved_offset >= kBufferHeader);
    auto r = xpress_decompress(b.data, out);
    REQUIRE_MESSAGE(r.ok(), r.error().detail << " at " << r.error().offset);
    // SavedOffset counts the 72-byte header, which is not compressed.
    CHECK(*r == b.saved_offset - kBufferHeader);
    const Buf plain(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*r));
    CHECK_MESSAGE(plausible_event_header(plain), "the data starts " << int(plain[0]) << ' ' << int(plain[1]) << ' '
                                                                    << int(plain[2]) << ' ' << int(plain[3]));
    // Exactly the room it needs is enough.
    auto exact = decompress(b.data, *r);
    REQUIRE(exact.ok());
    CHECK(*exact == plain);
    packed_total += b.data.size();
    ours_total += round_trip(plain);
  }
  CHECK(compressed == 359);
  // Greedy and one candidate per hash: not as tight as Windows, but not far off.
  CHECK(ours_total < packed_total * 3 / 2);
}

CLRETW_SHARED_CASE("xpress: damage to a real buffer") {
  bool found = false;
  const auto bufs = compressed_buffers(found);
  if (!found) return;
  REQUIRE(bufs.size() >= 3);

  SUBCASE("every truncation gives an error or a prefix of the output") {
    for (std::size_t k = 0; k < 3; ++k) {
      const Buf& data = bufs[k].data;
      auto full = decompress(data, 65536);
      REQUIRE(full.ok());
      std::size_t errors = 0, shorter = 0;
      Buf out(65536);
      for (std::size_t len = 0; len < data.size(); ++len) {
        auto r = xpress_decompress(Bytes(data.data(), len), out);
        if (!r) {
          ++errors;
          if (r.error().offset > len) FAIL("error offset " << r.error().offset << " past the input of " << len);
          continue;
        }
        ++shorter;
        if (*r >= full->size() || !std::equal(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*r), full->begin()))
          FAIL("truncation to " << len << " bytes gave " << *r << " bytes that are not a shorter prefix");
      }
      CHECK(errors + shorter == data.size());
      CHECK(errors > data.size() / 2);
    }
  }
  SUBCASE("an offset before the start, at the token's position") {
    // The first buffer starts with a flag word and 13 literals; its first match, at 17,
    // is 00 00 (offset 1, length 3). Make it offset 8192.
    Buf data = bufs[0].data;
    REQUIRE((load_le<std::uint32_t>(data.data()) >> 18) == 1u);  // 13 literal flags, then a match
    REQUIRE(data[17] == 0x00);
    REQUIRE(data[18] == 0x00);
    data[17] = 0xf8;
    data[18] = 0xff;
    check_error(decompress(data, 65536), 17, "match reaches 8179 bytes before the start of the output");
  }
  SUBCASE("an output buffer one byte short") {
    const auto& b = bufs[0];
    auto r = decompress(b.data, b.saved_offset - kBufferHeader - 1);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::bad_format);
    CHECK(r.error().detail == "output larger than " + std::to_string(b.saved_offset - kBufferHeader - 1) + " bytes");
    CHECK(r.error().offset < b.data.size());
  }
  SUBCASE("flipped bytes never read or write out of range") {
    std::mt19937 rng(7);
    Buf out(65536);
    for (int i = 0; i < 2000; ++i) {
      Buf data = bufs[static_cast<std::size_t>(i) % bufs.size()].data;
      for (int j = 0; j < 4; ++j) data[rng() % data.size()] = static_cast<std::uint8_t>(rng());
      auto r = xpress_decompress(data, out);
      if (r) CHECK(*r <= out.size());
      else CHECK(r.error().offset <= data.size());
    }
  }
}
