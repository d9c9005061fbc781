#include "clretw/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace clretw {

void append_hex(std::string& out, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  out += "0x";
  out.append(buf, r.ptr);
}

void append_double(std::string& out, double v) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

namespace {

bool shows_hex(const FieldDesc& f) {
  switch (f.out) {
    case OutType::HexInt8: case OutType::HexInt16: case OutType::HexInt32: case OutType::HexInt64:
    case OutType::Win32Error: case OutType::NtStatus: case OutType::HResult: case OutType::HexBinary:
    case OutType::CodePointer:
      return true;
    default:
      return f.type == InType::HexInt32 || f.type == InType::HexInt64 || f.type == InType::Pointer;
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

std::string systemtime_text(const SystemTime& t) {
  char buf[64];
  auto two = [](char* p, unsigned v) { p[0] = static_cast<char>('0' + v / 10 % 10), p[1] = static_cast<char>('0' + v % 10); };
  std::string y = std::to_string(t.year);
  std::string s = std::string(y.size() < 4 ? 4 - y.size() : 0, '0') + y;
  two(buf, t.month), two(buf + 2, t.day), two(buf + 4, t.hour), two(buf + 6, t.minute), two(buf + 8, t.second);
  s += '-';
  s.append(buf, 2);
  s += '-';
  s.append(buf + 2, 2);
  s += 'T';
  s.append(buf + 4, 2);
  s += ':';
  s.append(buf + 6, 2);
  s += ':';
  s.append(buf + 8, 2);
  s += '.';
  s += std::to_string(t.milliseconds / 100 % 10) + std::to_string(t.milliseconds / 10 % 10) + std::to_string(t.milliseconds % 10);
  return s;
}

// A FILETIME (100 ns ticks since 1601-01-01 UTC) as ISO 8601 UTC with 7 fractional digits, as .NET's
// DateTime.ToString("o") writes it.
std::string filetime_text(std::uint64_t ticks) {
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
  return buf;
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
      const std::uint64_t u = sign ? static_cast<std::uint64_t>(s.as_int()) : s.as_uint();
      if (f.map) {
        std::string text;
        f.map->format(u, text);
        if (json || text.find(' ') != std::string::npos) append_quoted(out, text);
        else out += text;
      } else if (!json && shows_hex(f)) {
        append_hex(out, u);
      } else {
        out += sign ? std::to_string(s.as_int()) : std::to_string(u);
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
    case InType::FileTime: append_quoted(out, filetime_text(s.as_uint())); return;
    case InType::Guid:
      if (json) append_quoted(out, s.as_guid().to_string());
      else out += s.as_guid().to_string();
      return;
    case InType::SystemTime: append_quoted(out, systemtime_text(s.as_systemtime())); return;
    case InType::UnicodeString: append_quoted(out, s.as_utf16().to_utf8()); return;
    case InType::AnsiString: append_quoted(out, ansi_to_utf8(s.as_ansi())); return;
    case InType::Binary:
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
  if (c == '{' && (fmt_ == Format::json || !kinds_.empty())) out_.push_back('{');
  if (c == '[') out_.push_back('[');
  kinds_.push_back(c);
  first_.push_back(true);
}
void FieldFormatter::close(char c) {
  kinds_.pop_back();
  first_.pop_back();
  if (c == '}' && (fmt_ == Format::json || !kinds_.empty())) out_.push_back('}');
  if (c == ']') out_.push_back(']');
}
void FieldFormatter::separator() {
  if (!first_.back()) out_ += fmt_ == Format::json ? "," : (in_array() ? ", " : " ");
  first_.back() = false;
}
void FieldFormatter::name(const FieldDesc& f) {
  separator();
  if (fmt_ == Format::json) {
    append_quoted(out_, f.name);
    out_.push_back(':');
  } else {
    out_ += f.name;
    out_.push_back('=');
  }
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
