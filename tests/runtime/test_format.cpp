// Text and JSON formatting through the descriptor tables.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "clretw/format.h"
#include "clretw/layout.h"

using namespace clretw;

namespace {

constexpr MapEntry kReasons[] = {{0, "AllocSmall"}, {1, "Induced"}};
constexpr MapDesc kReasonMap{"GCReasonMap", false, kReasons};
constexpr MapEntry kFlags[] = {{0x1, "Default"}, {0x2, "Executable"}, {0x4, "Shared"}};
constexpr MapDesc kFlagMap{"AppDomainFlagsMap", true, kFlags};

struct Rec {
  std::vector<FieldDesc> fields;
  LayoutData l4, l8;
  RecordDesc r;
  explicit Rec(std::vector<FieldDesc> f) : fields(std::move(f)) {
    l4 = compute_layout(fields, 4);
    l8 = compute_layout(fields, 8);
    r.fields = fields;
    r.layout[0] = {l4.places, l4.segments, l4.min_size};
    r.layout[1] = {l8.places, l8.segments, l8.min_size};
  }
};

// The fields as a FieldPlan writes them, and what its format() answers.
std::string planned(const RecordDesc& r, Bytes payload, unsigned ps, Format format, bool* ok = nullptr) {
  const auto plan = FieldPlan::make(r, ps, format);
  REQUIRE(plan);
  std::string out;
  const auto end = plan->format(payload, out);
  if (ok) *ok = static_cast<bool>(end);
  return out;
}

// What map `m` prints for value `v`.
std::string mapped(const MapDesc& m, std::uint64_t v) {
  std::string s;
  m.format(v, s);
  return s;
}

FieldDesc field(std::string_view name, InType t) {
  FieldDesc f;
  f.name = name;
  f.type = t;
  return f;
}

}  // namespace

TEST_CASE("value maps print by name, unknown values as numbers") {
  CHECK(mapped(kReasonMap, 1) == "Induced");
  CHECK(mapped(kReasonMap, 9) == "9");
}

TEST_CASE("bitmaps join set flags with \", \" and show unknown bits in hex") {
  CHECK(mapped(kFlagMap, 0x3) == "Default, Executable");
  CHECK(mapped(kFlagMap, 0x41) == "Default, 0x40");
  CHECK(mapped(kFlagMap, 0) == "0");
}

TEST_CASE("a payload as text and as JSON") {
  FieldDesc reason = field("Reason", InType::UInt32);
  reason.map = &kReasonMap;
  FieldDesc flags = field("Flags", InType::UInt32);
  flags.map = &kFlagMap;
  FieldDesc hex = field("Address", InType::UInt64);
  hex.out = OutType::HexInt64;
  Rec rec({reason, flags, hex, field("Name", InType::UnicodeString), field("Ratio", InType::Double),
           field("Ok", InType::Boolean), field("P", InType::Pointer), field("Delta", InType::Int32)});
  std::vector<std::uint8_t> b;
  ByteWriter w(b);
  w.put<std::uint32_t>(0);
  w.put<std::uint32_t>(0x5);
  w.put<std::uint64_t>(0x19A00017FE8);
  for (char16_t c : u"a\"b") w.put<std::uint16_t>(c);
  w.put<double>(0.5);
  w.put<std::uint32_t>(1);
  w.put<std::uint32_t>(0xdeadbeef);
  w.put<std::int32_t>(-3);

  std::string text;
  REQUIRE(format_fields(rec.r, b, 4, text, Format::text));
  CHECK(text == "Reason=AllocSmall Flags=\"Default, Shared\" Address=0x19a00017fe8 Name=\"a\\\"b\" Ratio=0.5 Ok=true "
                "P=0xdeadbeef Delta=-3");
  std::string json;
  REQUIRE(format_fields(rec.r, b, 4, json, Format::json));
  CHECK(json == "{\"Reason\":\"AllocSmall\",\"Flags\":\"Default, Shared\",\"Address\":1760936689640,\"Name\":\"a\\\"b\","
                "\"Ratio\":0.5,\"Ok\":true,\"P\":3735928559,\"Delta\":-3}");

  // A FieldPlan writes the same, and on a cut payload fails writing nothing.
  CHECK(planned(rec.r, b, 4, Format::text) == text);
  CHECK(planned(rec.r, b, 4, Format::json) == json);

  std::string untouched = "x";
  b.resize(10);
  CHECK_FALSE(format_fields(rec.r, b, 4, untouched, Format::json));
  CHECK(untouched == "x");
  bool ok = true;
  CHECK(planned(rec.r, b, 4, Format::json, &ok).empty());
  CHECK_FALSE(ok);
}

TEST_CASE("FieldPlan: value maps it writes itself, and those it leaves to format_value") {
  // Names found and not found, a signed field's negative value (shown as MapDesc::format shows it,
  // unsigned), a name with a space (quoted in text), a name with a quote (escaped in JSON).
  static constexpr MapEntry kSpaced[] = {{1, "Two words"}};
  static constexpr MapDesc kSpacedMap{"Spaced", false, kSpaced};
  static constexpr MapEntry kQuoted[] = {{1, "a\"b"}};
  static constexpr MapDesc kQuotedMap{"Quoted", false, kQuoted};
  FieldDesc found = field("Found", InType::UInt32), missing = field("Missing", InType::UInt16);
  FieldDesc negative = field("Negative", InType::Int32), spaced = field("Spaced", InType::UInt8);
  FieldDesc quoted = field("Quoted", InType::UInt8);
  found.map = missing.map = negative.map = &kReasonMap;
  spaced.map = &kSpacedMap;
  quoted.map = &kQuotedMap;
  Rec rec({found, missing, negative, spaced, quoted, field("Empty", InType::UnicodeString)});
  std::vector<std::uint8_t> b;
  ByteWriter w(b);
  w.put<std::uint32_t>(1);
  w.put<std::uint16_t>(7);
  w.put<std::int32_t>(-2);
  w.put<std::uint8_t>(1);
  w.put<std::uint8_t>(1);
  w.put<std::uint16_t>(0);
  for (Format format : {Format::text, Format::json}) {
    std::string visited;
    REQUIRE(format_fields(rec.r, b, 8, visited, format));
    CHECK(planned(rec.r, b, 8, format) == visited);
  }
  CHECK(planned(rec.r, b, 8, Format::text) ==
        "Found=Induced Missing=7 Negative=18446744073709551614 Spaced=\"Two words\" Quoted=a\"b Empty=\"\"");
  CHECK(planned(rec.r, b, 8, Format::json) ==
        "{\"Found\":\"Induced\",\"Missing\":\"7\",\"Negative\":\"18446744073709551614\",\"Spaced\":\"Two words\","
        "\"Quoted\":\"a\\\"b\",\"Empty\":\"\"}");
  // No plan for arrays or structs, or for pointer sizes other than 4 and 8.
  FieldDesc counted = field("Counted", InType::UInt8);
  counted.count = {Extent::Kind::constant, 2};
  CHECK_FALSE(FieldPlan::make(Rec({counted}).r, 8, Format::json));
  CHECK_FALSE(FieldPlan::make(rec.r, 2, Format::json));
  // An empty record: {} in JSON, nothing in text.
  Rec none({});
  CHECK(planned(none.r, {}, 8, Format::json) == "{}");
  CHECK(planned(none.r, {}, 8, Format::text).empty());
}

TEST_CASE("JSON keys: names that need escaping, and names longer than the key buffer, as names that do not") {
  // EventSource field names come from the trace and can hold anything.
  const std::string long_name(100, 'L');
  const std::string long_quoted = std::string(70, 'q') + "\"";
  Rec rec({field("Plain", InType::UInt8), field("a\"b\\c\x01", InType::UInt8), field(long_name, InType::UInt8),
           field(long_quoted, InType::UInt8), field("", InType::UInt8)});
  const std::vector<std::uint8_t> b = {1, 2, 3, 4, 5};
  std::string json;
  REQUIRE(format_fields(rec.r, b, 8, json, Format::json));
  CHECK(json == "{\"Plain\":1,\"a\\\"b\\\\c\\u0001\":2,\"" + long_name + "\":3,\"" + std::string(70, 'q') +
                    "\\\"\":4,\"\":5}");
  CHECK(planned(rec.r, b, 8, Format::json) == json);  // keys longer than its fixed-size copy too
}

TEST_CASE("NaN and infinities: names in text, quoted names in JSON, which has no literal for them") {
  Rec rec({field("A", InType::Double), field("B", InType::Float), field("C", InType::Double)});
  std::vector<std::uint8_t> b;
  ByteWriter w(b);
  w.put<double>(std::numeric_limits<double>::quiet_NaN());
  w.put<float>(std::numeric_limits<float>::infinity());
  w.put<double>(-std::numeric_limits<double>::infinity());
  std::string text;
  REQUIRE(format_fields(rec.r, b, 8, text, Format::text));
  CHECK(text == "A=NaN B=Infinity C=-Infinity");
  std::string json;
  REQUIRE(format_fields(rec.r, b, 8, json, Format::json));
  CHECK(json == "{\"A\":\"NaN\",\"B\":\"Infinity\",\"C\":\"-Infinity\"}");
}

TEST_CASE("network out-types: ports in host order, IPv4 dotted, IPv6 as RFC 5952, socket addresses with their port") {
  auto with_out = [](FieldDesc f, OutType o, std::uint32_t length = 0) {
    f.out = o;
    if (length) f.length = {Extent::Kind::constant, length};
    return f;
  };
  Rec rec({with_out(field("dport", InType::UInt16), OutType::Port), with_out(field("daddr", InType::UInt32), OutType::IPv4),
           with_out(field("v6", InType::Binary), OutType::IPv6, 16), with_out(field("zeros", InType::Binary), OutType::IPv6, 16),
           with_out(field("mapped", InType::Binary), OutType::IPv6, 16),
           with_out(field("sa4", InType::Binary), OutType::SocketAddress, 16),
           with_out(field("sa6", InType::Binary), OutType::SocketAddress, 28),
           with_out(field("odd", InType::Binary), OutType::SocketAddress, 4)});
  std::vector<std::uint8_t> b = {0x01, 0xBD,                                                  // port 445, network order
                                 10, 0, 0, 1,                                                 // 10.0.0.1
                                 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,  // 2001:db8::1
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,              // ::
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2,    // ::ffff:192.168.1.2
                                 2, 0, 0x1F, 0x90, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,      // AF_INET :8080
                                 23, 0, 0x00, 0x35, 0, 0, 0, 0,                               // AF_INET6 :53
                                 0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,  // 2001:0:0:1::1
                                 9, 0, 1, 2};                                                 // no family it knows
  std::string text;
  REQUIRE(format_fields(rec.r, b, 8, text, Format::text));
  CHECK(text ==
        "dport=445 daddr=10.0.0.1 v6=2001:db8::1 zeros=:: mapped=::ffff:192.168.1.2 sa4=127.0.0.1:8080 sa6=[2001:0:0:1::1]:53 "
        "odd=0x09000102");
  std::string json;
  REQUIRE(format_fields(rec.r, b, 8, json, Format::json));
  CHECK(json ==
        "{\"dport\":445,\"daddr\":\"10.0.0.1\",\"v6\":\"2001:db8::1\",\"zeros\":\"::\",\"mapped\":\"::ffff:192.168.1.2\","
        "\"sa4\":\"127.0.0.1:8080\",\"sa6\":\"[2001:0:0:1::1]:53\",\"odd\":\"0x09000102\"}");
  // A FieldPlan writes what format_fields() writes.
  CHECK(planned(rec.r, b, 8, Format::text) == text);
  CHECK(planned(rec.r, b, 8, Format::json) == json);
}

TEST_CASE("FILETIME prints as ISO 8601 UTC with 100 ns digits, as .NET's round-trip format does") {
  const std::pair<std::uint64_t, const char*> cases[] = {
      {133536836967890000ull, "\"2024-02-29T12:34:56.7890000Z\""},  // a leap day
      {0, "\"1601-01-01T00:00:00.0000000Z\""},
      {125963424000000000ull, "\"2000-03-01T00:00:00.0000000Z\""},  // after a 400-year leap day
      {94404997230000000ull, "\"1900-02-28T01:02:03.0000000Z\""},   // 1900 is no leap year
      {2650467743999999999ull, "\"9999-12-31T23:59:59.9999999Z\""},
  };
  FieldDesc f = field("When", InType::FileTime);
  for (const auto& [ticks, text] : cases) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(ticks >> (8 * i));
    std::string out;
    format_value(Scalar{&f, b, 8}, out, Format::json);
    CHECK(out == text);
  }
}

TEST_CASE("write_decimal agrees with std::to_chars at every digit count, its edges and random values") {
  std::vector<std::uint64_t> values = {0, std::numeric_limits<std::uint64_t>::max()};
  for (std::uint64_t p = 1; p <= 10'000'000'000'000'000'000u; p *= 10) {
    values.push_back(p - 1), values.push_back(p), values.push_back(p + 1);
    values.push_back(p * 7 + 3);
    if (p > std::numeric_limits<std::uint64_t>::max() / 10) break;
  }
  // Random values of every bit length: each length covers a digit count or two, with the
  // zeros inside (100000007, 1000000000000000001) that a pair table could get wrong.
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200'000; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const unsigned bits = static_cast<unsigned>(i % 64) + 1;
    values.push_back(bits == 64 ? state : state & ((std::uint64_t{1} << bits) - 1));
  }
  std::size_t wrong = 0;
  std::uint64_t first = 0;
  for (std::uint64_t v : values) {
    char ours[20], theirs[24];  // exactly the room write_decimal may use
    const std::string_view a(ours, static_cast<std::size_t>(clretw::write_decimal(ours, v) - ours));
    const std::string_view b(theirs, static_cast<std::size_t>(std::to_chars(theirs, theirs + sizeof theirs, v).ptr - theirs));
    if (a != b && !wrong++) first = v;
  }
  CHECK_MESSAGE(wrong == 0, "first: ", first);
}

TEST_CASE("append_fixed4 writes what std::to_chars writes with four fixed decimals, ties and edges included") {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.00005, 0.00015, 0.00025, 1.23445, 1.23455, 9.99995, 99999.99995,
                                0.5e-4, 4503599627.3704995, 4503599627.3705, 450359962737.0496, 1e300, -1e-300,
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max()};
  std::uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 100'000; ++i) {
    // Milliseconds of traces from a microsecond to days long, at random...
    const double scale = static_cast<double>(std::uint64_t{1} << (i % 40));
    values.push_back(static_cast<double>(next() >> 11) * 0x1p-53 * scale);
    // ...and next to every kind of tie: k + 0.5 ten-thousandths, and the doubles either side.
    const double tie = (static_cast<double>(next() % 100'000'000'000ull) + 0.5) / 10000.0;
    values.push_back(tie);
    values.push_back(std::nextafter(tie, 0.0));
    values.push_back(std::nextafter(tie, 1e300));
    // Exact ties: odd multiples of 1/32 have five decimals, the last a 5 (to_chars rounds them
    // to even).
    values.push_back(static_cast<double>(next() % 1'000'000) + static_cast<double>(2 * (next() % 16) + 1) / 32);
  }
  std::size_t wrong = 0;
  double first = 0;
  for (double v : values) {
    std::string ours = "<";  // appended to what is there
    clretw::append_fixed4(ours, v);
    char buf[400];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 4);
    REQUIRE(r.ec == std::errc{});
    if (ours != "<" + std::string(buf, r.ptr) && !wrong++) first = v;
  }
  CHECK_MESSAGE(wrong == 0, "first: ", first);
}
