#include "clretw/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "clretw/layout.h"
#include "numbers.h"

namespace clretw {

namespace {

// Whether the field's name says it holds a quantity: a word of it (a capital and what follows, up
// to the next capital, digit or the end) is one of these. ClrEtwAll.man declares many sizes and
// counts win:HexInt64 (GCHeapStats' GenerationSize0, AllocationTick's AllocationAmount, MethodSize),
// which read better in decimal, as TraceEvent shows most of them.
bool names_quantity(std::string_view name) noexcept {
  static constexpr std::string_view kWords[] = {"Size",      "Count",      "Amount",   "Length", "Bytes",
                                                "Allocated", "Allocation", "Survived", "Surv",   "Desired"};
  for (std::string_view w : kWords)
    for (std::size_t at = name.find(w); at != std::string_view::npos; at = name.find(w, at + 1)) {
      const std::size_t end = at + w.size();
      if (end == name.size() || (name[end] >= 'A' && name[end] <= 'Z') || (name[end] >= '0' && name[end] <= '9')) return true;
    }
  return false;
}

// Text shows in hex what the manifest declares hex - addresses, ids, tokens, flags, error codes -
// except the sizes and counts it declares so: those are numbers to read, in decimal.
bool shows_hex(const FieldDesc& f) {
  switch (f.out) {
    case OutType::Win32Error: case OutType::NtStatus: case OutType::HResult: case OutType::HexBinary:
    case OutType::CodePointer:
      return true;
    case OutType::HexInt8: case OutType::HexInt16: case OutType::HexInt32: case OutType::HexInt64:
      return !names_quantity(f.name);
    default:
      return (f.type == InType::HexInt32 || f.type == InType::HexInt64 || f.type == InType::Pointer) &&
             !names_quantity(f.name);
  }
}

void append_quoted(std::string& out, std::string_view utf8) {
  out.push_back('"');
  append_json_escaped(out, utf8);
  out.push_back('"');
}

void append_bytes_hex(std::string& out, Bytes b) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "0x";
  for (std::uint8_t c : b) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
}

std::string sid_text(Bytes b) {
  // S-<revision>-<48-bit authority>-<sub-authorities...>
  std::string s = "S-" + std::to_string(b[0]) + "-";
  std::uint64_t authority = 0;
  for (int i = 2; i < 8; ++i) authority = (authority << 8) | b[i];
  s += std::to_string(authority);
  for (std::size_t k = 0; k < b[1]; ++k) s += "-" + std::to_string(load_le<std::uint32_t>(b.data() + 8 + 4 * k));
  return s;
}

// SYSTEMTIME as ISO 8601 with milliseconds, e.g. 2024-05-01T12:34:56.789, quoted and appended.
void append_systemtime(std::string& out, const SystemTime& t) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", unsigned{t.year}, t.month % 100u, t.day % 100u,
                              t.hour % 100u, t.minute % 100u, t.second % 100u, t.milliseconds % 1000u);
  append_quoted(out, std::string_view(buf, static_cast<std::size_t>(n)));
}

// A FILETIME (100 ns ticks since 1601-01-01 UTC) as ISO 8601 UTC with 7 fractional digits, as .NET's
// DateTime.ToString("o") writes it.
void append_filetime(std::string& out, std::uint64_t ticks) {
  constexpr std::uint64_t kTicksPerDay = 864'000'000'000ull;
  const auto days = static_cast<std::int64_t>(ticks / kTicksPerDay);
  std::uint64_t rest = ticks % kTicksPerDay;
  // Days since 0000-03-01 in the proleptic Gregorian calendar, then eras of 400 years.
  const std::int64_t z = days + 584'694;  // 1601-01-01 is day 584,694 after 0000-03-01
  const std::int64_t era = z / 146'097;
  const std::int64_t doe = z - era * 146'097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const std::uint64_t fraction = rest % 10'000'000;
  rest /= 10'000'000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02llu:%02llu:%02llu.%07lluZ", static_cast<long long>(year),
                static_cast<long long>(month), static_cast<long long>(day), static_cast<unsigned long long>(rest / 3600),
                static_cast<unsigned long long>(rest / 60 % 60), static_cast<unsigned long long>(rest % 60),
                static_cast<unsigned long long>(fraction));
  append_quoted(out, buf);
}

// A UTF-16 string as a quoted JSON string, converted and escaped straight into `out`.
void append_quoted_utf16(std::string& out, Utf16View text) {
  out.push_back('"');
  const std::size_t start = out.size();
  text.append_utf8(out);
  const std::string_view written = std::string_view(out).substr(start);
  if (json_escaper().find_special(written) != written.size()) {  // rare: escape a copy of what was written
    thread_local std::string plain;
    plain.assign(out, start);
    out.resize(start);
    append_json_escaped(out, plain);
  }
  out.push_back('"');
}


// Network values (win:IPv4, win:IPv6, win:SocketAddress): the bytes are in network order.
void append_ipv4(std::string& out, const std::uint8_t* a) {
  for (int i = 0; i < 4; ++i) {
    if (i) out.push_back('.');
    detail::append_decimal(out, std::uint64_t{a[i]});
  }
}

// RFC 5952: lowercase hex without leading zeros, the longest run of two or more zero groups (the
// first of equal runs) as "::"; an IPv4-mapped address (::ffff:0:0/96) ends in its dotted quad.
void append_ipv6(std::string& out, const std::uint8_t* a) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::uint16_t g[8];
  for (int i = 0; i < 8; ++i) g[i] = static_cast<std::uint16_t>(a[2 * i] << 8 | a[2 * i + 1]);
  if (!g[0] && !g[1] && !g[2] && !g[3] && !g[4] && g[5] == 0xFFFF) {
    out += "::ffff:";
    append_ipv4(out, a + 12);
    return;
  }
  int best = -1, best_len = 1;
  for (int i = 0; i < 8;) {
    if (g[i]) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && !g[j]) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j;
  }
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (i && i != best + best_len) out.push_back(':');
    bool digits = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const unsigned nibble = (g[i] >> shift) & 15u;
      if (nibble || digits || shift == 0) {
        out.push_back(kHex[nibble]);
        digits = true;
      }
    }
  }
}

// A SOCKADDR_IN (family 2: port, address) or SOCKADDR_IN6 (family 23: port, flow information,
// address, scope) as "a.b.c.d:port" or "[v6]:port"; false for any other bytes.
bool append_socket_address(std::string& out, Bytes b) {
  if (b.size() < 8) return false;
  const auto family = load_le<std::uint16_t>(b.data());
  const unsigned port = unsigned{b[2]} << 8 | b[3];
  if (family == 2) {
    append_ipv4(out, b.data() + 4);
  } else if (family == 23 && b.size() >= 24) {
    out.push_back('[');
    append_ipv6(out, b.data() + 8);
    out.push_back(']');
  } else {
    return false;
  }
  out.push_back(':');
  detail::append_decimal(out, std::uint64_t{port});
  return true;
}

// A network value of f, written as format_value() writes it; false when f is none or its bytes do not
// fit its out-type (those are shown as their in-type says).
bool append_network(std::string& out, const FieldDesc& f, Bytes b, bool json) {
  const std::size_t start = out.size();
  if (json) out.push_back('"');
  bool ok = false;
  if (f.out == OutType::IPv4 && b.size() == 4 && is_integer(f.type)) {
    append_ipv4(out, b.data()), ok = true;
  } else if (f.out == OutType::IPv6 && b.size() == 16 && f.type == InType::Binary) {
    append_ipv6(out, b.data()), ok = true;
  } else if (f.out == OutType::SocketAddress && f.type == InType::Binary) {
    ok = append_socket_address(out, b);
  }
  if (!ok) {
    out.resize(start);
    return false;
  }
  if (json) out.push_back('"');
  return true;
}

}  // namespace

void format_value(const Scalar& s, std::string& out, Format fmt) {
  const FieldDesc& f = *s.field;
  const bool json = fmt == Format::json;
  switch (f.type) {
    case InType::Int8: case InType::Int16: case InType::Int32: case InType::Int64:
    case InType::UInt8: case InType::UInt16: case InType::UInt32: case InType::UInt64:
    case InType::HexInt32: case InType::HexInt64: case InType::Pointer: {
      const bool sign = is_signed(f.type);
      std::uint64_t u = sign ? static_cast<std::uint64_t>(s.as_int()) : s.as_uint();
      if (f.out == OutType::Port && s.size == 2) u = (u & 0xFF) << 8 | u >> 8;  // network byte order
      else if (f.out == OutType::IPv4 && append_network(out, f, s.as_bytes(), json)) return;
      if (f.map) {
        thread_local std::string text;  // reused: formatting allocates nothing once warm
        text.clear();
        f.map->format(u, text);
        if (json || text.find(' ') != std::string::npos) append_quoted(out, text);
        else out += text;
      } else if (!json && shows_hex(f)) {
        append_hex(out, u);
      } else {
        if (sign) detail::append_decimal(out, s.as_int());
        else detail::append_decimal(out, u);
      }
      return;
    }
    case InType::Float: case InType::Double: {
      double d = s.as_double();
      if (std::isfinite(d)) {
        append_double(out, d);
      } else {  // JSON has no literal for these: a quoted name keeps the value, as .NET's named literals do
        const char* name = std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
        if (json) out += '"';
        out += name;
        if (json) out += '"';
      }
      return;
    }
    case InType::Boolean: out += s.as_bool() ? "true" : "false"; return;
    case InType::FileTime: append_filetime(out, s.as_uint()); return;
    case InType::Guid:
      if (json) out.push_back('"');
      s.as_guid().append_to(out);
      if (json) out.push_back('"');
      return;
    case InType::SystemTime: append_systemtime(out, s.as_systemtime()); return;
    case InType::UnicodeString: append_quoted_utf16(out, s.as_utf16()); return;
    case InType::AnsiString:
      if (is_valid_utf8(s.as_ansi())) append_quoted(out, s.as_ansi());
      else append_quoted(out, ansi_to_utf8(s.as_ansi()));
      return;
    case InType::Binary:
      if (append_network(out, f, s.as_bytes(), json)) return;
      if (json) {
        out.push_back('"');
        append_bytes_hex(out, s.as_bytes());
        out.push_back('"');
      } else {
        append_bytes_hex(out, s.as_bytes());
      }
      return;
    case InType::Sid: append_quoted(out, sid_text(s.as_bytes())); return;
    case InType::Struct: return;
  }
}

FieldFormatter::FieldFormatter(std::string& out, Format fmt) : out_(out), fmt_(fmt) { open('{'); }
void FieldFormatter::finish() { close('}'); }

void FieldFormatter::scalar(const Scalar& s) {
  if (!in_array()) name(*s.field);
  else separator();
  format_value(s, out_, fmt_);
}
void FieldFormatter::begin_array(const FieldDesc& f, std::uint64_t) {
  name(f);
  open('[');
}
void FieldFormatter::end_array(const FieldDesc&) { close(']'); }
void FieldFormatter::begin_element(std::uint64_t) {
  separator();
  open('{');
}
void FieldFormatter::end_element() { close('}'); }
void FieldFormatter::begin_struct(const FieldDesc& f) {
  name(f);
  open('{');
}
void FieldFormatter::end_struct(const FieldDesc&) { close('}'); }

// The top-level braces are printed for JSON only; text is "A=1 B=2".
void FieldFormatter::open(char c) {
  if (c == '{' && (fmt_ == Format::json || depth_ != 0)) out_.push_back('{');
  if (c == '[') out_.push_back('[');
  const std::size_t at = depth_ < kMaxOpen ? depth_ : kMaxOpen - 1;  // (never reached: see kMaxOpen)
  kinds_[at] = c;
  first_[at] = true;
  depth_ = at + 1;
}
void FieldFormatter::close(char c) {
  if (depth_) --depth_;
  if (c == '}' && (fmt_ == Format::json || depth_ != 0)) out_.push_back('}');
  if (c == ']') out_.push_back(']');
}
void FieldFormatter::separator() {
  if (!depth_) return;
  if (!first_[depth_ - 1]) {
    if (fmt_ == Format::json) out_.push_back(',');
    else out_ += in_array() ? std::string_view(", ") : std::string_view(" ");
  }
  first_[depth_ - 1] = false;
}
void FieldFormatter::name(const FieldDesc& f) {
  separator();
  if (fmt_ == Format::json) {
    // "Name": in one append when the name needs no escaping, as names do.
    const std::string_view name = f.name;
    char key[64];
    if (name.size() <= sizeof key - 3 && json_escaper().find_special(name) == name.size()) {
      key[0] = '"';
      std::memcpy(key + 1, name.data(), name.size());
      key[name.size() + 1] = '"';
      key[name.size() + 2] = ':';
      out_.append(key, name.size() + 3);
    } else {
      append_quoted(out_, name);
      out_.push_back(':');
    }
  } else {
    out_ += f.name;
    out_.push_back('=');
  }
}

namespace {

// A value map whose names format_value() writes as they are: they need no JSON escaping, and in
// text no quotes (no spaces).
bool plain_value_map(const MapDesc& map, bool json) {
  if (map.bitmap) return false;
  for (const MapEntry& e : map.entries)
    if (json_escaper().find_special(e.name) != e.name.size() || (!json && e.name.find(' ') != std::string_view::npos))
      return false;
  return true;
}

}  // namespace

std::unique_ptr<FieldPlan> FieldPlan::make(const RecordDesc& record, unsigned ps, Format fmt) {
  if ((ps != 4 && ps != 8) || record.layout_for(ps).segments.size() > kMaxSegments) return nullptr;
  for (const FieldDesc& f : record.fields)
    if (f.count.kind != Extent::Kind::none || f.type == InType::Struct) return nullptr;
  std::unique_ptr<FieldPlan> plan(new FieldPlan(record, ps, fmt));
  const bool json = fmt == Format::json;
  for (std::uint32_t i = 0; i < record.fields.size(); ++i) {
    const FieldDesc& f = record.fields[i];
    std::string& keys = plan->keys_;
    Step step{&f, i, static_cast<std::uint32_t>(keys.size()), 0, Kind::value, is_signed(f.type)};
    if (json) {  // FieldFormatter's separator and name
      keys.push_back(i == 0 ? '{' : ',');
      append_quoted(keys, f.name);
      keys.push_back(':');
    } else {
      if (i != 0) keys.push_back(' ');
      keys += f.name;
      keys.push_back('=');
    }
    step.key_size = static_cast<std::uint32_t>(keys.size() - step.key_at);
    // format_value()'s choices for integers and booleans, made here once.
    switch (f.type) {
      case InType::Int8: case InType::Int16: case InType::Int32: case InType::Int64:
      case InType::UInt8: case InType::UInt16: case InType::UInt32: case InType::UInt64:
      case InType::HexInt32: case InType::HexInt64: case InType::Pointer:
        if (f.out == OutType::Port || f.out == OutType::IPv4) break;  // format_value()'s network values
        if (!f.map) step.kind = !json && shows_hex(f) ? Kind::hex : step.sign ? Kind::sint : Kind::uint;
        else if (plain_value_map(*f.map, json)) step.kind = Kind::value_map;
        break;
      case InType::Boolean: step.kind = Kind::boolean; break;
      default: break;
    }
    if (scalar_size(f.type, ps) == 0) step.kind = Kind::variable;
    plan->steps_.push_back(step);
  }
  plan->keys_.append(detail::Pieces::kShort, '\0');
  return plan;
}

Result<std::uint32_t> FieldPlan::format(Bytes payload, std::string& out) const {
  const Layout& l = record_.layout_for(pointer_size_);
  std::uint32_t seg[kMaxSegments];
  std::uint32_t consumed = 0;
  if (l.fixed() && payload.size() >= l.segments[0].fixed && payload.size() < kVariable) {
    seg[0] = 0;  // as check_fields(): a fixed layout needs only its size
    consumed = l.segments[0].fixed;
  } else {
    const auto end = walk(record_, pointer_size_, payload, 0, seg);
    if (!end) return end;
    consumed = *end;
  }
  const bool json = format_ == Format::json;
  detail::Pieces w(out);
  for (const Step& s : steps_) {
    w.short_text(keys_.data() + s.key_at, s.key_size);
    const FieldPlace& p = l.places[s.index];
    const std::uint32_t at = seg[p.seg] + p.off;
    const std::uint8_t* data = payload.data() + at;
    switch (s.kind) {
      case Kind::uint: w.dec(load_uint(data, p.size)); break;
      case Kind::sint: w.dec(load_int(data, p.size)); break;
      case Kind::hex: w.hex(load_uint(data, p.size)); break;
      case Kind::boolean:
        if (load_uint(data, p.size) != 0) w.lit("true");
        else w.lit("false");
        break;
      case Kind::value_map: {  // as MapDesc::format, quoted in JSON
        const std::uint64_t v = s.sign ? static_cast<std::uint64_t>(load_int(data, p.size)) : load_uint(data, p.size);
        const std::string_view name = s.field->map->find(v);
        if (json) w.ch('"');
        if (name.empty()) w.dec(v);
        else w.bytes(name.data(), name.size());
        if (json) w.ch('"');
        break;
      }
      case Kind::value: format_value(Scalar{s.field, data, p.size}, w.flush(), format_); break;
      case Kind::variable: {
        const std::uint64_t length = element_length(record_, pointer_size_, payload, seg, s.index);
        const ElementExtent e = locate_element(*s.field, length, pointer_size_, payload, at);
        format_value(Scalar{s.field, data, e.text}, w.flush(), format_);
        break;
      }
    }
  }
  if (json) {
    if (steps_.empty()) w.ch('{');
    w.ch('}');
  }
  w.flush();
  return consumed;
}

Result<std::uint32_t> format_fields(const RecordDesc& record, Bytes payload, unsigned ps, std::string& out, Format fmt) {
  std::string text;
  FieldFormatter f(text, fmt);
  auto end = visit_fields(record, payload, ps, f);
  if (!end) return end;
  f.finish();
  out += text;
  return end;
}

}  // namespace clretw
