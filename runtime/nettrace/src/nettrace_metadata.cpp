// Metadata records (V5 and V6 encodings) and self-describing payloads.
#include "nettrace_metadata.h"

#include <cstring>

#include "clretw/layout.h"

namespace clretw::nettrace {

using detail::Cursor;

Guid provider_guid_for(std::string_view name) {
  // The runtime's manifest-based providers keep their ETW GUIDs; every other
  // EventPipe provider is an EventSource, whose GUID derives from its name.
  static const struct {
    std::string_view name;
    Guid guid;
  } kKnown[] = {
      {"Microsoft-Windows-DotNETRuntime", *Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")},
      {"Microsoft-Windows-DotNETRuntimeRundown", *Guid::parse("a669021c-c450-4609-a035-5af59af4df18")},
      {"Microsoft-Windows-DotNETRuntimeStress", *Guid::parse("cc2bcbba-16b6-4cf3-8990-d74c2e8af500")},
      {"Microsoft-Windows-DotNETRuntimePrivate", *Guid::parse("763fd754-7086-4dfe-95eb-c01a46faf4ca")},
  };
  for (const auto& k : kKnown)
    if (k.name == name) return k.guid;
  return Guid::from_eventsource_name(name);
}

namespace detail {

namespace {

constexpr unsigned kMaxFieldDepth = 16;

bool has_array(const std::vector<MetaField>& fields) {
  for (const MetaField& f : fields)
    if (f.type == TypeCode::Array || f.type == TypeCode::FixedLengthArray || f.type == TypeCode::RelLoc ||
        f.type == TypeCode::DataLoc || has_array(f.members) || has_array(f.element))
      return true;
  return false;
}

// V1: int32 count, then per field: int32 type, [nested description if Object], UTF-16 name.
bool parse_v1_fields(Cursor& c, std::vector<MetaField>& out, unsigned depth) {
  const std::uint32_t count = c.u32();
  if (!c.ok || depth > kMaxFieldDepth || count > c.remaining()) return false;
  for (std::uint32_t i = 0; i < count && c.ok; ++i) {
    MetaField f;
    f.type = static_cast<TypeCode>(c.u32());
    if (f.type == TypeCode::Object && !parse_v1_fields(c, f.members, depth + 1)) return false;
    f.name = c.utf16z();
    out.push_back(std::move(f));
  }
  return c.ok;
}

// V5 V2Params tag: int32 count, then per field: int32 size (inclusive), UTF-16 name, int32 type,
// [int32 element type [nested description if Object] if Array], [nested description if Object], padding.
bool parse_v2_fields(Cursor& c, std::vector<MetaField>& out) {
  const std::uint32_t count = c.u32();
  if (!c.ok || count > c.remaining()) return false;
  for (std::uint32_t i = 0; i < count && c.ok; ++i) {
    const std::size_t start = c.pos();
    const std::uint32_t size = c.u32();
    MetaField f;
    f.name = c.utf16z();
    f.type = static_cast<TypeCode>(c.u32());
    if (f.type == TypeCode::Array) {
      MetaField e;
      e.type = static_cast<TypeCode>(c.u32());
      if (e.type == TypeCode::Object && !parse_v1_fields(c, e.members, 1)) return false;
      f.element.push_back(std::move(e));
    } else if (f.type == TypeCode::Object && !parse_v1_fields(c, f.members, 1)) {
      return false;
    }
    if (!c.ok || size < 4 || start + size < c.pos()) return false;
    c.skip(start + size - c.pos());
    out.push_back(std::move(f));
  }
  return c.ok;
}

void put_v1_fields(ByteWriter& w, const std::vector<MetaField>& fields) {
  w.put(static_cast<std::uint32_t>(fields.size()));
  for (const MetaField& f : fields) {
    w.put(static_cast<std::uint32_t>(f.type));
    if (f.type == TypeCode::Object) put_v1_fields(w, f.members);
    put_utf16z(w, f.name);
  }
}

// The count of `fields`, then each field's body as `put_body` writes it after its size. Count is the
// integer both are written as; a V2Params size counts its own 4 bytes (`own_size`), a V6 one does not.
template <class Count, class PutBody>
void put_sized_fields(ByteWriter& w, const std::vector<MetaField>& fields, std::size_t own_size, PutBody put_body) {
  w.put(static_cast<Count>(fields.size()));
  for (const MetaField& f : fields) {
    std::vector<std::uint8_t> body;
    ByteWriter b(body);
    put_body(b, f);
    w.put(static_cast<Count>(body.size() + own_size));
    w.bytes(body);
  }
}

void put_v2_fields(ByteWriter& w, const std::vector<MetaField>& fields) {
  put_sized_fields<std::uint32_t>(w, fields, 4, [](ByteWriter& b, const MetaField& f) {
    put_utf16z(b, f.name);
    b.put(static_cast<std::uint32_t>(f.type));
    if (f.type == TypeCode::Array) {
      b.put(static_cast<std::uint32_t>(f.element.at(0).type));
      if (f.element[0].type == TypeCode::Object) put_v1_fields(b, f.element[0].members);
    } else if (f.type == TypeCode::Object) {
      put_v1_fields(b, f.members);
    }
  });
}

// V6 Type: uint8 code, [Type element], [uint16 count], [FieldDescriptions members].
bool parse_v6_type(Cursor& c, MetaField& f, unsigned depth);
bool parse_v6_fields(Cursor& c, std::vector<MetaField>& out, unsigned depth) {
  const std::uint16_t count = c.u16();
  if (!c.ok || depth > kMaxFieldDepth) return false;
  for (std::uint16_t i = 0; i < count && c.ok; ++i) {
    const std::uint16_t size = c.u16();
    if (!c.need(size)) return false;
    Cursor fc(Bytes(c.here(), size));
    MetaField f;
    f.name = fc.utf8();
    if (!parse_v6_type(fc, f, depth + 1) || !fc.ok) return false;
    c.skip(size);
    out.push_back(std::move(f));
  }
  return c.ok;
}
bool parse_v6_type(Cursor& c, MetaField& f, unsigned depth) {
  if (depth > kMaxFieldDepth) return false;
  f.type = static_cast<TypeCode>(c.u8());
  if (f.type == TypeCode::Array || f.type == TypeCode::FixedLengthArray || f.type == TypeCode::RelLoc ||
      f.type == TypeCode::DataLoc) {
    MetaField e;
    if (!parse_v6_type(c, e, depth + 1)) return false;
    f.element.push_back(std::move(e));
    if (f.type == TypeCode::FixedLengthArray) f.fixed_count = c.u16();
  } else if (f.type == TypeCode::Object) {
    if (!parse_v6_fields(c, f.members, depth + 1)) return false;
  }
  return c.ok;
}

void put_v6_type(ByteWriter& w, const MetaField& f);
void put_v6_fields(ByteWriter& w, const std::vector<MetaField>& fields) {
  put_sized_fields<std::uint16_t>(w, fields, 0, [](ByteWriter& b, const MetaField& f) {
    put_utf8(b, f.name);
    put_v6_type(b, f);
  });
}
void put_v6_type(ByteWriter& w, const MetaField& f) {
  w.put(static_cast<std::uint8_t>(f.type));
  if (!f.element.empty()) {
    put_v6_type(w, f.element[0]);
    if (f.type == TypeCode::FixedLengthArray) w.put(f.fixed_count);
  } else if (f.type == TypeCode::Object) {
    put_v6_fields(w, f.members);
  }
}

}  // namespace

namespace {

// "<what> at byte N of the M-byte record", located at byte N.
Error problem(std::string_view what, std::size_t at, std::size_t size) {
  return Error{Errc::bad_format, at, {},
               std::string(what) + " at byte " + std::to_string(at) + " of the " + std::to_string(size) + "-byte record"};
}

}  // namespace

namespace {

// An event's own metadata, from `c` (at its event id) to the end of `payload`: what a V4/V5
// metadata record holds after its metadata id and provider name.
Status parse_event_part(Cursor& c, Bytes payload, Metadata& m) {
  m.event_id = c.u32();
  m.event_name = c.utf16z();
  if (!c.ok) return problem("the record ends in the event id or name", c.pos(), payload.size());
  m.keywords = c.u64();
  m.version = static_cast<std::uint8_t>(c.u32());
  m.level = static_cast<std::uint8_t>(c.u32());
  if (!c.ok) return problem("the record ends in the keywords, version or level", c.pos(), payload.size());
  if (c.at_end()) return {};
  m.describes_fields = true;
  const std::size_t fields_at = c.pos();
  if (!parse_v1_fields(c, m.fields, 0)) return problem("the field list is malformed", fields_at, payload.size());
  while (!c.at_end()) {  // V5 tags
    const std::size_t tag_at = c.pos();
    const std::uint32_t size = c.u32();
    const std::uint8_t kind = c.u8();
    Bytes tag = c.bytes(size);
    if (!c.ok) return problem("a tag runs past the end", tag_at, payload.size());
    Cursor t(tag);
    if (kind == kTagOpcode) {
      m.opcode = t.u8();
      m.has_opcode = true;
    } else if (kind == kTagV2Params) {
      m.fields.clear();
      if (!parse_v2_fields(t, m.fields)) return problem("the V2 parameter tag is malformed", tag_at, payload.size());
    }
    if (!t.ok) return problem("tag " + std::to_string(kind) + " is shorter than its content", tag_at, payload.size());
  }
  return {};
}

}  // namespace

Status parse_metadata_v5(Bytes payload, Metadata& m) {
  Cursor c(payload);
  m.id = c.u32();
  m.provider_name = c.utf16z();
  if (!c.ok) return problem("the record ends in its metadata id or provider name", c.pos(), payload.size());
  m.provider_guid = provider_guid_for(m.provider_name);
  return parse_event_part(c, payload, m);
}

Status parse_metadata_v6(Bytes row, Metadata& m) {
  Cursor c(row);
  m.id = c.varuint32();
  m.provider_name = c.utf8();
  m.event_id = c.varuint32();
  m.event_name = c.utf8();
  if (!c.ok) return problem("the row ends in its ids or names", c.pos(), row.size());
  m.provider_guid = provider_guid_for(m.provider_name);
  m.describes_fields = true;
  const std::size_t fields_at = c.pos();
  if (!parse_v6_fields(c, m.fields, 0)) return problem("the field list is malformed", fields_at, row.size());
  const std::size_t optional_at = c.pos();
  const std::uint16_t size = c.u16();
  Cursor o(c.bytes(size));
  if (!c.ok) return problem("the optional metadata runs past the end", optional_at, row.size());
  while (!o.at_end() && o.ok) {
    const std::size_t at = optional_at + 2 + o.pos();
    const auto kind = o.u8();
    switch (static_cast<OptionalKind>(kind)) {
      case OptionalKind::OpCode: m.opcode = o.u8(), m.has_opcode = true; break;
      case OptionalKind::Keyword: m.keywords = o.u64(); break;
      case OptionalKind::MessageTemplate: case OptionalKind::Description: o.utf8(); break;
      case OptionalKind::KeyValue: o.utf8(), o.utf8(); break;
      case OptionalKind::ProviderGuid: m.provider_guid = o.guid(); break;
      case OptionalKind::Level: m.level = o.u8(); break;
      case OptionalKind::Version: m.version = o.u8(); break;
      default:  // unknown kinds cannot be skipped: their size is not encoded
        return problem("unknown optional metadata kind " + std::to_string(kind), at, row.size());
    }
  }
  if (!o.ok) return problem("the optional metadata is shorter than its content", optional_at, row.size());
  return {};
}

std::vector<std::uint8_t> encode_metadata_v5(const Metadata& m, unsigned format) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.put(m.id);
  put_utf16z(w, m.provider_name);
  w.put(m.event_id);
  put_utf16z(w, m.event_name);
  w.put(m.keywords);
  w.put(static_cast<std::uint32_t>(m.version));
  w.put(static_cast<std::uint32_t>(m.level));
  const bool v2 = format >= 5 && has_array(m.fields);
  if (m.describes_fields || !m.fields.empty() || (format >= 5 && m.has_opcode)) put_v1_fields(w, v2 ? std::vector<MetaField>{} : m.fields);
  if (format >= 5 && m.has_opcode) {
    w.put<std::uint32_t>(1);
    w.put(kTagOpcode);
    w.put(m.opcode);
  }
  if (v2) {
    std::vector<std::uint8_t> params;
    ByteWriter p(params);
    put_v2_fields(p, m.fields);
    w.put(static_cast<std::uint32_t>(params.size()));
    w.put(kTagV2Params);
    w.bytes(params);
  }
  return out;
}

std::vector<std::uint8_t> encode_metadata_v6(const Metadata& m) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  put_varuint(w, m.id);
  put_utf8(w, m.provider_name);
  put_varuint(w, m.event_id);
  put_utf8(w, m.event_name);
  put_v6_fields(w, m.fields);
  std::vector<std::uint8_t> opt;
  ByteWriter o(opt);
  if (m.has_opcode) o.put(static_cast<std::uint8_t>(OptionalKind::OpCode)), o.put(m.opcode);
  if (m.keywords) o.put(static_cast<std::uint8_t>(OptionalKind::Keyword)), o.put(m.keywords);
  if (m.level) o.put(static_cast<std::uint8_t>(OptionalKind::Level)), o.put(m.level);
  if (m.version) o.put(static_cast<std::uint8_t>(OptionalKind::Version)), o.put(m.version);
  w.put(static_cast<std::uint16_t>(opt.size()));
  w.bytes(opt);
  return out;
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Self-describing payloads

namespace {

class SelfDescribing {
 public:
  SelfDescribing(Bytes payload, unsigned format, FieldVisitor* v) : c_(payload), payload_(payload), format_(format), v_(v) {}

  bool fields(const std::vector<MetaField>& fs, unsigned depth) {
    for (const MetaField& f : fs)
      if (!field(f, f.name, depth)) return false;
    return true;
  }
  std::size_t pos() const { return c_.pos(); }
  std::string_view failed_field() const { return failed_; }

 private:
  // The descriptor formatters see for a value of type t.
  FieldDesc desc(std::string_view name, TypeCode t) const {
    FieldDesc d;
    d.name = name;
    switch (t) {
      case TypeCode::Boolean32: case TypeCode::Boolean8: d.type = InType::Boolean; break;
      case TypeCode::Char16: d.type = InType::UnicodeString, d.length = {Extent::Kind::constant, 1}; break;
      case TypeCode::Char8: d.type = InType::AnsiString, d.length = {Extent::Kind::constant, 1}; break;
      case TypeCode::SByte: d.type = InType::Int8; break;
      case TypeCode::Byte: d.type = InType::UInt8; break;
      case TypeCode::Int16: d.type = InType::Int16; break;
      case TypeCode::UInt16: d.type = InType::UInt16; break;
      case TypeCode::Int32: d.type = InType::Int32; break;
      case TypeCode::UInt32: d.type = InType::UInt32; break;
      case TypeCode::Int64: case TypeCode::VarInt: d.type = InType::Int64; break;
      case TypeCode::UInt64: case TypeCode::VarUInt: d.type = InType::UInt64; break;
      case TypeCode::Single: d.type = InType::Float; break;
      case TypeCode::Double: d.type = InType::Double; break;
      case TypeCode::Decimal: d.type = InType::Binary, d.length = {Extent::Kind::constant, 16}; break;
      case TypeCode::DateTime: d.type = format_ >= 6 ? InType::SystemTime : InType::FileTime; break;
      case TypeCode::Guid: d.type = InType::Guid; break;
      case TypeCode::String: d.type = InType::UnicodeString; break;
      default: d.type = InType::Struct; break;
    }
    return d;
  }

  // Fixed size of a value of type t, 0 when variable.
  std::size_t fixed_size(const MetaField& f) const {
    switch (f.type) {
      case TypeCode::Boolean8: case TypeCode::SByte: case TypeCode::Byte: case TypeCode::Char8: return 1;
      case TypeCode::Char16: case TypeCode::Int16: case TypeCode::UInt16: return 2;
      case TypeCode::Boolean32: case TypeCode::Int32: case TypeCode::UInt32: case TypeCode::Single: return 4;
      case TypeCode::Int64: case TypeCode::UInt64: case TypeCode::Double: return 8;
      case TypeCode::DateTime: return format_ >= 6 ? 16 : 8;
      case TypeCode::Decimal: case TypeCode::Guid: return 16;
      default: return 0;
    }
  }

  bool fail(std::string_view name) {
    failed_ = name;
    return false;
  }

  // Reports a scalar of type t to the visitor, if there is one.
  void report(std::string_view name, TypeCode t, const std::uint8_t* p, std::size_t size) {
    if (!v_) return;
    const FieldDesc d = desc(name, t);
    v_->scalar(Scalar{&d, p, static_cast<std::uint32_t>(size)});
  }

  bool scalar(const MetaField& f, std::string_view name) {
    if (f.type == TypeCode::VarInt || f.type == TypeCode::VarUInt) {
      std::uint64_t v = c_.varuint64();
      if (!c_.ok) return fail(name);
      if (f.type == TypeCode::VarInt) v = (v >> 1) ^ (~(v & 1) + 1);  // zigzag
      std::uint8_t bytes[8];
      for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(v >> (8 * i));
      report(name, f.type, bytes, 8);
      return true;
    }
    if (f.type == TypeCode::String) {  // UTF-16, NUL-terminated
      const std::size_t units = c_.remaining() / 2, n = clretw::detail::find_nul16(c_.here(), units);
      if (n == units) return fail(name);
      report(name, f.type, c_.here(), 2 * n);
      c_.skip(2 * n + 2);
      return true;
    }
    const std::size_t size = fixed_size(f);
    if (size == 0 || !c_.need(size)) return fail(name);
    report(name, f.type, c_.here(), size);
    c_.skip(size);
    return true;
  }

  static constexpr unsigned kMaxDepth = 16;

  bool field(const MetaField& f, std::string_view name, unsigned depth) {
    if (depth > kMaxDepth) return fail(name);
    switch (f.type) {
      case TypeCode::Object: {
        FieldDesc d = desc(name, f.type);
        if (v_) v_->begin_struct(d);
        if (!fields(f.members, depth + 1)) return false;
        if (v_) v_->end_struct(d);
        return true;
      }
      case TypeCode::Array: case TypeCode::FixedLengthArray: {
        if (f.element.empty()) return fail(name);
        const std::uint64_t n = f.type == TypeCode::Array ? c_.u16() : f.fixed_count;
        if (!c_.ok) return fail(name);
        return elements(f.element[0], name, n, depth);
      }
      case TypeCode::RelLoc: case TypeCode::DataLoc: {
        if (f.element.empty()) return fail(name);
        const std::uint32_t loc = c_.u32();
        if (!c_.ok) return fail(name);
        const std::size_t size = loc >> 16, off = loc & 0xFFFF;
        const std::size_t at = f.type == TypeCode::RelLoc ? c_.pos() + off : off;
        const std::size_t elem = fixed_size(f.element[0]);
        if (elem == 0 || at + size > payload_.size()) return fail(name);
        SelfDescribing inner(payload_.subspan(at, size), format_, v_);
        return inner.elements(f.element[0], name, size / elem, depth) || fail(name);
      }
      default: return scalar(f, name);
    }
  }

  bool elements(const MetaField& e, std::string_view name, std::uint64_t n, unsigned depth) {
    if (e.type == TypeCode::Char16 || e.type == TypeCode::Char8) {
      // An array of characters is a string (as .NET's EventSource and TraceEvent see it).
      const std::size_t unit = e.type == TypeCode::Char16 ? 2 : 1;
      if (n > c_.remaining() / unit) return fail(name);
      if (v_) {
        FieldDesc d = desc(name, e.type);
        d.length = {Extent::Kind::constant, static_cast<std::uint32_t>(n)};
        v_->scalar(Scalar{&d, c_.here(), static_cast<std::uint32_t>(n * unit)});
      }
      c_.skip(n * unit);
      return true;
    }
    FieldDesc d = desc(name, e.type);
    if (n > c_.remaining() + 1 && fixed_size(e) != 0) return fail(name);
    if (!v_ && n != 0 && depth + 1 <= kMaxDepth && fixed_size(e) != 0) {
      // Checking only: fixed-size elements are skipped at once, failing where the first that
      // does not fit begins, as the loop below would.
      const std::size_t size = fixed_size(e), fit = c_.remaining() / size;
      if (n > fit) {
        c_.skip(fit * size);
        return fail(name);
      }
      c_.skip(static_cast<std::size_t>(n) * size);
      return true;
    }
    if (v_) v_->begin_array(d, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      if (e.type == TypeCode::Object) {
        if (v_) v_->begin_element(k);
        if (!fields(e.members, depth + 1)) return false;
        if (v_) v_->end_element();
      } else if (!field(e, name, depth + 1)) {
        return false;
      }
    }
    if (v_) v_->end_array(d);
    return true;
  }

  Cursor c_;
  Bytes payload_;
  unsigned format_;
  FieldVisitor* v_;
  std::string_view failed_;
};

}  // namespace

Result<std::uint32_t> visit_self_describing(const Metadata& m, Bytes payload, FieldVisitor& visitor) {
  // Check everything first, so the visitor never sees half an event.
  SelfDescribing check(payload, m.format, nullptr);
  if (!check.fields(m.fields, 0)) return Error{Errc::truncated, check.pos(), check.failed_field()};
  SelfDescribing report(payload, m.format, &visitor);
  report.fields(m.fields, 0);
  return static_cast<std::uint32_t>(check.pos());
}

}  // namespace clretw::nettrace

namespace clretw::nettrace {

void Metadata::append_display_name(std::string& out) const {
  out += event_name;
  if (has_opcode && opcode != 0) {
    out += '/';
    if (opcode == 1) out += "Start";
    else if (opcode == 2) out += "Stop";
    else out += std::to_string(opcode);  // (a short string: no allocation)
  }
}

Result<std::uint32_t> Metadata::visit(Bytes payload, FieldVisitor& visitor) const {
  return visit_self_describing(*this, payload, visitor);
}

Result<std::uint32_t> Metadata::check(Bytes payload) const {
  SelfDescribing check(payload, format, nullptr);
  if (!check.fields(fields, 0)) return Error{Errc::truncated, check.pos(), check.failed_field()};
  return static_cast<std::uint32_t>(check.pos());
}

}  // namespace clretw::nettrace

namespace clretw::nettrace {

Status parse_event_metadata(Bytes blob, std::string_view provider_name, Metadata& m) {
  m.provider_name = std::string(provider_name);
  m.provider_guid = provider_guid_for(provider_name);
  if (blob.empty()) return {};  // an event EventPipe keeps no metadata for: nothing more is known
  detail::Cursor c(blob);
  return detail::parse_event_part(c, blob, m);
}

}  // namespace clretw::nettrace
