// The layout engine on hand-built records: offsets per pointer size, segment
// starts found by walk(), and located errors for every kind of bad payload.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "clretw/layout.h"

using namespace clretw;

namespace {

// A record built at run time, with its layouts.
struct Rec {
  std::vector<FieldDesc> fields;
  LayoutData l4, l8;
  RecordDesc r;
  explicit Rec(std::vector<FieldDesc> f, std::string_view name = "T") : fields(std::move(f)) {
    l4 = compute_layout(fields, 4);
    l8 = compute_layout(fields, 8);
    r.name = name;
    r.fields = fields;
    r.layout[0] = {l4.places, l4.segments, l4.min_size};
    r.layout[1] = {l8.places, l8.segments, l8.min_size};
  }
};

FieldDesc field(std::string_view name, InType t, Extent count = {}, Extent length = {}) {
  FieldDesc f;
  f.name = name;
  f.type = t;
  f.count = count;
  f.length = length;
  return f;
}
Extent ref(std::uint32_t i) { return {Extent::Kind::field, i}; }
Extent constant(std::uint32_t n) { return {Extent::Kind::constant, n}; }

struct Payload {
  std::vector<std::uint8_t> b;
  ByteWriter w{b};
};

}  // namespace

TEST_CASE("fixed fields: offsets, and a pointer shifts what follows at pointer size 4") {
  Rec rec({field("A", InType::UInt16), field("P", InType::Pointer), field("B", InType::UInt32),
           field("Flag", InType::Boolean), field("G", InType::Guid)});
  CHECK(rec.l8.segments.size() == 1);
  CHECK(rec.l8.places[2].off == 10);
  CHECK(rec.l4.places[2].off == 6);
  CHECK(rec.l4.places[3].size == 4);  // win:Boolean is a 32-bit BOOL
  CHECK(rec.l8.min_size == 2 + 8 + 4 + 4 + 16);
  CHECK(rec.l4.min_size == 2 + 4 + 4 + 4 + 16);

  std::vector<std::uint8_t> p(rec.l4.min_size, 0);
  std::uint32_t seg[1];
  auto end = walk(rec.r, 4, p, 0, seg);
  REQUIRE(end);
  CHECK(*end == 30);
  p.pop_back();
  auto bad = walk(rec.r, 4, p, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::truncated);
  CHECK(bad.error().field == "G");
  CHECK(bad.error().offset == 14);
  CHECK_FALSE(walk(rec.r, 5, p, 0, seg));  // pointer size must be 4 or 8
}

TEST_CASE("strings end segments; walk finds where each segment starts") {
  Rec rec({field("Count", InType::UInt32), field("Name", InType::UnicodeString), field("P", InType::Pointer),
           field("Ansi", InType::AnsiString), field("Tail", InType::UInt16)});
  REQUIRE(rec.l8.segments.size() == 3);
  CHECK(rec.l8.places[2].seg == 1);
  CHECK(rec.l8.places[2].off == 0);
  CHECK(rec.l8.places[4].seg == 2);
  Payload p;
  p.w.put<std::uint32_t>(7);
  for (char16_t c : u"hey") p.w.put<std::uint16_t>(c);  // includes the terminator
  p.w.put<std::uint64_t>(0x1122334455667788);
  p.w.bytes("ab", 3);
  p.w.put<std::uint16_t>(9);
  std::uint32_t seg[3];
  auto end = walk(rec.r, 8, p.b, 0, seg);
  REQUIRE(end);
  CHECK(*end == p.b.size());
  CHECK(seg[0] == 0);
  CHECK(seg[1] == 4 + 8);
  CHECK(seg[2] == 4 + 8 + 8 + 3);

  // Cut inside the UTF-16 string: unterminated, located at the string's start.
  std::vector<std::uint8_t> cut(p.b.begin(), p.b.begin() + 9);
  auto bad = walk(rec.r, 8, cut, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::unterminated_string);
  CHECK(bad.error().field == "Name");
  CHECK(bad.error().offset == 4);
}

TEST_CASE("a win:Binary without a length, last in its record, holds the rest of the payload") {
  Rec rec({field("Version", InType::UInt32), field("Name", InType::AnsiString), field("Rest", InType::Binary)});
  REQUIRE(rec.l8.segments.size() == 3);  // the string and the rest each end a segment
  Payload p;
  p.w.put<std::uint32_t>(1);
  p.w.bytes("ab", 3);
  for (std::uint8_t b : {0xDE, 0xAD, 0xBE, 0xEF, 0x00}) p.w.put<std::uint8_t>(b);
  std::uint32_t seg[3];
  auto end = walk(rec.r, 8, p.b, 0, seg);
  REQUIRE(end);
  CHECK(*end == p.b.size());  // nothing left over: the rest is the field's
  CHECK(seg[1] == 7);
  CHECK(seg[2] == p.b.size());
  const ElementExtent e = locate_element(rec.fields[2], 0, 8, p.b, 7);
  REQUIRE(e.ok());
  CHECK(e.size == 5);
  CHECK(e.text == 5);
  // Empty: the payload ends where the field starts.
  std::vector<std::uint8_t> bare(p.b.begin(), p.b.begin() + 7);
  end = walk(rec.r, 8, bare, 0, seg);
  REQUIRE(end);
  CHECK(*end == 7);
  // Cut before it: the string is unterminated, as without the field.
  std::vector<std::uint8_t> cut(p.b.begin(), p.b.begin() + 5);
  CHECK_FALSE(walk(rec.r, 8, cut, 0, seg));
}

TEST_CASE("counts and lengths from earlier fields are bounds-checked") {
  Rec rec({field("Count", InType::UInt32), field("Values", InType::UInt64, ref(0)), field("Size", InType::UInt16),
           field("Blob", InType::Binary, {}, ref(2)), field("NameLength", InType::UInt8),
           field("Name", InType::UnicodeString, {}, ref(4))});
  Payload p;
  p.w.put<std::uint32_t>(2);
  p.w.put<std::uint64_t>(1);
  p.w.put<std::uint64_t>(2);
  p.w.put<std::uint16_t>(3);
  p.w.bytes("xyz", 3);
  p.w.put<std::uint8_t>(2);
  p.w.put<std::uint16_t>('o');
  p.w.put<std::uint16_t>('k');
  std::uint32_t seg[4];
  auto end = walk(rec.r, 8, p.b, 0, seg);
  REQUIRE(end);
  CHECK(*end == p.b.size());
  CHECK(element_count(rec.r, 8, p.b, seg, 1) == 2);

  auto huge = p.b;
  huge[0] = 0xFF, huge[1] = 0xFF, huge[2] = 0xFF, huge[3] = 0xFF;
  auto bad = walk(rec.r, 8, huge, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::count_too_large);
  CHECK(bad.error().field == "Values");

  auto long_name = p.b;
  long_name[4 + 16 + 2 + 3] = 200;  // NameLength far beyond the payload
  bad = walk(rec.r, 8, long_name, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "Name");
  CHECK(bad.error().code == Errc::count_too_large);
}

TEST_CASE("struct arrays with variable-size elements (BulkType shape)") {
  auto elem = std::make_unique<Rec>(std::vector<FieldDesc>{field("TypeID", InType::UInt64), field("Name", InType::UnicodeString),
                                                           field("TypeParameterCount", InType::UInt32),
                                                           field("TypeParameters", InType::UInt64, ref(2))},
                                    "Values");
  FieldDesc values = field("Values", InType::Struct, ref(0));
  values.members = &elem->r;
  Rec rec({field("Count", InType::UInt32), field("ClrInstanceID", InType::UInt16), values});
  CHECK(element_size(values, 8) == kVariable);

  Payload p;
  p.w.put<std::uint32_t>(2);
  p.w.put<std::uint16_t>(3);
  for (int e = 0; e < 2; ++e) {
    p.w.put<std::uint64_t>(0x1000 + e);
    p.w.put<std::uint16_t>('T');
    p.w.put<std::uint16_t>(0);
    p.w.put<std::uint32_t>(e);  // element 0 has no type parameters, element 1 has one
    for (int k = 0; k < e; ++k) p.w.put<std::uint64_t>(0x2000 + k);
  }
  std::uint32_t seg[2];
  auto end = walk(rec.r, 8, p.b, 0, seg);
  REQUIRE(end);
  CHECK(*end == p.b.size());

  // Claiming a third element makes the payload truncated inside it.
  auto more = p.b;
  more[0] = 3;
  auto bad = walk(rec.r, 8, more, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::truncated);
  CHECK(bad.error().field == "TypeID");
  CHECK(bad.error().offset == p.b.size());

  // A count of 4 billion elements is rejected at once, not looped over.
  auto absurd = p.b;
  absurd[0] = absurd[1] = absurd[2] = absurd[3] = 0xFF;
  bad = walk(rec.r, 8, absurd, 0, seg);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::count_too_large);
}

TEST_CASE("fixed-count arrays and counted strings are fixed-size items") {
  Rec rec({field("Stack", InType::Pointer, constant(2)), field("Fixed", InType::UnicodeString, {}, constant(4)),
           field("Tail", InType::UInt8)});
  CHECK(rec.l4.segments.size() == 1);
  CHECK(rec.l4.places[1].off == 8);
  CHECK(rec.l8.places[1].off == 16);
  CHECK(rec.l8.places[2].off == 24);
}

TEST_CASE("SID: eight bytes, then four per sub-authority") {
  Rec rec({field("Owner", InType::Sid), field("Tail", InType::UInt8)});
  std::vector<std::uint8_t> sid = {1, 2, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 2, 0, 0, 0, 0xEE};
  std::uint32_t seg[2];
  auto end = walk(rec.r, 8, sid, 0, seg);
  REQUIRE(end);
  CHECK(seg[1] == 16);
  sid.resize(12);
  CHECK(walk(rec.r, 8, sid, 0, seg).error().code == Errc::truncated);
}

TEST_CASE("locate_element: each element's size and where its text ends") {
  const FieldDesc terminated = field("Name", InType::UnicodeString);
  const FieldDesc counted = field("Fixed", InType::UnicodeString, {}, constant(3));
  const FieldDesc ansi = field("Tag", InType::AnsiString);
  const FieldDesc sid = field("Owner", InType::Sid);

  // "ab" then its NUL, then another string: the element is 6 bytes, its text 4.
  const std::vector<std::uint8_t> u = {'a', 0, 'b', 0, 0, 0, 'c', 0, 0, 0};
  auto e = locate_element(terminated, 0, 8, u, 0);
  REQUIRE(e.ok());
  CHECK(e.size == 6);
  CHECK(e.text == 4);
  e = locate_element(terminated, 0, 8, u, 6);
  REQUIRE(e.ok());
  CHECK(e.size == 4);
  CHECK(e.text == 2);
  // The last string loses its NUL: unterminated.
  const std::vector<std::uint8_t> cut(u.begin(), u.end() - 2);
  e = locate_element(terminated, 0, 8, cut, 6);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status == Errc::unterminated_string);

  // A counted string takes its whole length; its text stops before the NUL padding.
  e = locate_element(counted, 3, 8, u, 0);
  REQUIRE(e.ok());
  CHECK(e.size == 6);
  CHECK(e.text == 4);
  e = locate_element(counted, 4, 8, u, 0);  // "ab\0c": a NUL inside the text stays
  REQUIRE(e.ok());
  CHECK(e.text == 8);
  CHECK(locate_element(counted, 6, 8, u, 0).status == Errc::count_too_large);

  const std::vector<std::uint8_t> a = {'x', 'y', 0, 'z'};
  e = locate_element(ansi, 0, 8, a, 0);
  REQUIRE(e.ok());
  CHECK(e.size == 3);
  CHECK(e.text == 2);
  CHECK(locate_element(ansi, 0, 8, a, 3).status == Errc::unterminated_string);

  const std::vector<std::uint8_t> s = {1, 1, 0, 0, 0, 0, 0, 5, 7, 0, 0, 0};
  e = locate_element(sid, 0, 8, s, 0);
  REQUIRE(e.ok());
  CHECK(e.size == sid_size(1));
  CHECK(e.size == 12);

  // Scalars have their type's size; a struct is walked, never located.
  e = locate_element(field("P", InType::Pointer), 0, 4, s, 0);
  REQUIRE(e.ok());
  CHECK(e.size == 4);
  CHECK(locate_element(field("P", InType::Pointer), 0, 8, s, 8).status == Errc::truncated);
  CHECK(locate_element(field("S", InType::Struct), 0, 8, s, 0).status == Errc::bad_format);
}

TEST_CASE("string_text: a terminated string ends before its NUL, a counted one before its padding") {
  const std::uint8_t p[] = {'a', 0, 0, 0, 0, 0};
  CHECK(string_text(p, 4, 2, true) == 2);
  CHECK(string_text(p, 6, 2, false) == 2);
  CHECK(string_text(p, 0, 2, false) == 0);
  const std::uint8_t z[] = {0, 0, 0};
  CHECK(string_text(z, 3, 1, false) == 0);
  CHECK(string_text(z, 1, 1, true) == 0);
}

TEST_CASE("a terminated UTF-16 string is found whatever its length and alignment") {
  const FieldDesc f = field("Name", InType::UnicodeString);
  for (std::uint32_t lead = 0; lead < 3; ++lead)
    for (std::uint32_t len = 0; len < 12; ++len) {
      CAPTURE(lead);
      CAPTURE(len);
      std::vector<std::uint8_t> p(lead, 0xAA);
      for (std::uint32_t k = 0; k < len; ++k) {
        p.push_back(static_cast<std::uint8_t>(k == 2 ? 0 : 'a' + k));  // a unit with a zero low byte
        p.push_back(k == 2 ? 1 : 0);
      }
      const std::size_t nul = p.size();
      p.insert(p.end(), {0, 0, 'z', 0, 'z', 0});
      const ElementExtent e = locate_element(f, 0, 8, p, lead);
      REQUIRE(e.ok());
      CHECK(e.size == 2 * len + 2);
      CHECK(e.text == 2 * len);
      p.resize(nul);  // no terminator at all
      CHECK(locate_element(f, 0, 8, p, lead).status == Errc::unterminated_string);
      p.push_back(0);  // half a terminator
      CHECK(locate_element(f, 0, 8, p, lead).status == Errc::unterminated_string);
    }
}

TEST_CASE("find_nul16 finds the first NUL unit at every position, length and alignment, reading no further") {
  // The units sit at the end of an exact-size heap block at every byte alignment, so a read
  // past them is caught under AddressSanitizer; the answer is held to a unit-by-unit scan.
  for (std::size_t units = 0; units <= 40; ++units)
    for (std::size_t shift = 0; shift < 2; ++shift)
      for (std::size_t nul = 0; nul <= units; ++nul) {  // nul == units: none
        auto block = std::make_unique<std::uint8_t[]>(shift + 2 * units);
        std::uint8_t* q = block.get() + shift;
        for (std::size_t k = 0; k < units; ++k) {
          // Units with a zero low or high byte, never both, except at `nul` (and one after it).
          const std::uint16_t u = static_cast<std::uint16_t>(k % 3 == 0 ? 0x0100 : k % 3 == 1 ? 0x0041 : 0x2603);
          q[2 * k] = static_cast<std::uint8_t>(u), q[2 * k + 1] = static_cast<std::uint8_t>(u >> 8);
        }
        if (nul < units) q[2 * nul] = q[2 * nul + 1] = 0;
        if (nul + 2 < units) q[2 * nul + 4] = q[2 * nul + 5] = 0;  // a later NUL does not count
        std::size_t expected = 0;
        while (expected < units && (q[2 * expected] | q[2 * expected + 1]) != 0) ++expected;
        REQUIRE(expected == nul);
        CHECK(detail::find_nul16(q, units) == nul);
      }
  // Two zero bytes that straddle units (one's high byte, the next one's low byte) are no NUL.
  std::vector<std::uint8_t> straddle;
  for (int k = 0; k < 10; ++k) straddle.insert(straddle.end(), {0x41, 0x00, 0x00, 0x42});
  straddle.insert(straddle.end(), {0x00, 0x00});
  CHECK(detail::find_nul16(straddle.data(), 20) == 20);
  CHECK(detail::find_nul16(straddle.data(), 21) == 20);
  CHECK(detail::find_nul16(straddle.data() + 1, 20) == 0);  // from the odd byte, that pair is a unit
}
