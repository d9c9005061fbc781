// TraceLogging schemas (extended data items 11 and 12) and the payloads they describe.
#include "tracelogging.h"

#include <cstring>

#include "clretw/layout.h"
#include "clretw/schema.h"
#include "clretw/text.h"
#include "guid_key.h"

namespace clretw::etl::detail {
namespace {

constexpr std::uint8_t kInTypeMask = 0x1F, kInCountMask = 0x60, kInChain = 0x80;
constexpr std::uint8_t kInConstant = 0x20, kInVariable = 0x40, kInCustom = 0x60;
constexpr std::uint8_t kOutTypeMask = 0x7F, kOutChain = 0x80;
// Nesting of structs: far beyond what a writer makes (TraceLoggingDynamic has no limit, the
// macros a handful), low enough that walking recursion stays shallow.
constexpr unsigned kMaxDepth = 32;

// TraceLogging out-types (TlgOut_t) this reader shows differently from the in-type's default.
enum TlgOut : std::uint8_t {
  kOutString = 2, kOutBoolean = 3, kOutHex = 4, kOutPid = 5, kOutTid = 6, kOutPort = 7, kOutIPv4 = 8,
  kOutXml = 11, kOutJson = 12, kOutWin32Error = 13, kOutNtStatus = 14, kOutHResult = 15, kOutUtf8 = 35,
  kOutCodePointer = 37,
};

Error schema_error(std::string what, std::size_t at, std::size_t size, std::string_view item) {
  return Error{Errc::bad_format, at, {},
               std::string(item) + ": " + what + " at byte " + std::to_string(at) + " of its " + std::to_string(size) + " bytes"};
}

// Reads a schema or traits blob, never past `end`.
struct SchemaCursor {
  Bytes b;
  std::size_t pos = 0;
  std::size_t end = 0;

  bool u8(std::uint8_t& v) {
    if (pos >= end) return false;
    v = b[pos++];
    return true;
  }
  bool u16(std::uint16_t& v) {
    if (end - pos < 2) return false;
    v = load_le<std::uint16_t>(b.data() + pos);
    pos += 2;
    return true;
  }
  // A NUL-terminated UTF-8 string (the NUL is consumed).
  bool utf8z(std::string& s) {
    const void* nul = pos < end ? std::memchr(b.data() + pos, 0, end - pos) : nullptr;
    if (!nul) return false;
    const std::size_t n = static_cast<const std::uint8_t*>(nul) - (b.data() + pos);
    s.assign(reinterpret_cast<const char*>(b.data() + pos), n);
    if (!is_valid_utf8(s)) s = ansi_to_utf8(s);  // names reach JSON: keep them UTF-8
    pos += n + 1;
    return true;
  }
  // Tag bytes: each with the high bit set says another follows.
  bool tags() {
    for (std::uint8_t t = 0x80; t & 0x80;)
      if (!u8(t)) return false;
    return true;
  }
};

// The descriptor formatters see for a field of TraceLogging type t shown as out-type `out`.
FieldDesc describe(const TlField& f) {
  FieldDesc d;
  d.name = f.name;
  const std::uint8_t out = f.out;
  auto hex = [&](OutType h) { d.out = out == kOutHex ? h : out == kOutCodePointer ? OutType::CodePointer : OutType::Default; };
  switch (f.type) {
    case TlgIn::UnicodeString: case TlgIn::CountedString:
      d.type = InType::UnicodeString;
      d.out = out == kOutXml ? OutType::Xml : out == kOutJson ? OutType::Json : OutType::Default;
      break;
    case TlgIn::AnsiString: case TlgIn::CountedAnsiString:
      d.type = InType::AnsiString;
      d.out = out == kOutUtf8 ? OutType::Utf8 : out == kOutXml ? OutType::Xml : out == kOutJson ? OutType::Json : OutType::Default;
      break;
    case TlgIn::Int8:
      d.type = out == kOutString ? InType::AnsiString : InType::Int8;  // a CP1252 character
      break;
    case TlgIn::UInt8:
      // .NET's EventSource writes bool as UINT8 with out-type BOOLEAN: one byte (BOOL32 is four).
      d.type = out == kOutBoolean ? InType::Boolean : out == kOutString ? InType::AnsiString : InType::UInt8;
      if (out == kOutHex) d.out = OutType::HexInt8;
      break;
    case TlgIn::Int16: d.type = InType::Int16; break;
    case TlgIn::UInt16:
      d.type = out == kOutString ? InType::UnicodeString : InType::UInt16;  // a UTF-16 unit
      d.out = out == kOutHex ? OutType::HexInt16 : out == kOutPort ? OutType::Port : OutType::Default;
      break;
    case TlgIn::Int32:
      d.type = InType::Int32;
      if (out == kOutHResult) d.out = OutType::HResult;
      break;
    case TlgIn::UInt32:
      d.type = InType::UInt32;
      switch (out) {
        case kOutHex: d.out = OutType::HexInt32; break;
        case kOutPid: d.out = OutType::Pid; break;
        case kOutTid: d.out = OutType::Tid; break;
        case kOutIPv4: d.out = OutType::IPv4; break;
        case kOutWin32Error: d.out = OutType::Win32Error; break;
        case kOutNtStatus: d.out = OutType::NtStatus; break;
        case kOutHResult: d.out = OutType::HResult; break;
        case kOutCodePointer: d.out = OutType::CodePointer; break;
        default: break;
      }
      break;
    case TlgIn::Int64: d.type = InType::Int64; break;
    case TlgIn::UInt64: d.type = InType::UInt64, hex(OutType::HexInt64); break;
    case TlgIn::Float: d.type = InType::Float; break;
    case TlgIn::Double: d.type = InType::Double; break;
    case TlgIn::Bool32: d.type = InType::Boolean; break;
    case TlgIn::Guid: d.type = InType::Guid; break;
    case TlgIn::FileTime: d.type = InType::FileTime; break;
    case TlgIn::SystemTime: d.type = InType::SystemTime; break;
    case TlgIn::Sid: d.type = InType::Sid; break;
    case TlgIn::HexInt32: d.type = InType::HexInt32, hex(OutType::Default); break;
    case TlgIn::HexInt64: d.type = InType::HexInt64, hex(OutType::Default); break;
    case TlgIn::Struct: d.type = InType::Struct; break;
    default: d.type = InType::Binary; break;  // Binary, CountedBinary, custom-serialized fields
  }
  if (f.count == TlField::Count::custom) d.type = InType::Binary, d.out = OutType::Default;
  return d;
}

// Bytes a value of type t takes, 0 when its size is in the payload.
std::size_t fixed_size(TlgIn t) {
  switch (t) {
    case TlgIn::Int8: case TlgIn::UInt8: return 1;
    case TlgIn::Int16: case TlgIn::UInt16: return 2;
    case TlgIn::Int32: case TlgIn::UInt32: case TlgIn::Float: case TlgIn::Bool32: case TlgIn::HexInt32: return 4;
    case TlgIn::Int64: case TlgIn::UInt64: case TlgIn::Double: case TlgIn::FileTime: case TlgIn::HexInt64: return 8;
    case TlgIn::Guid: case TlgIn::SystemTime: return 16;
    default: return 0;
  }
}

// The flat list of a schema's fields, as written.
struct FlatField {
  TlField field;
  std::size_t at = 0;       // byte of the schema where it begins
  unsigned struct_size = 0;  // Struct: members that follow
};

// Builds fields[i...] into `out` until `n` fields are taken (or all, when n is npos).
Status build_tree(std::vector<FlatField>& flat, std::size_t& i, std::size_t n, std::vector<TlField>& out, unsigned depth,
                  std::size_t schema_size) {
  for (std::size_t k = 0; k < n && i < flat.size(); ++k) {
    FlatField& ff = flat[i++];
    if (ff.field.type == TlgIn::Struct && ff.field.count != TlField::Count::custom) {
      if (depth >= kMaxDepth)
        return schema_error("struct '" + ff.field.name + "' nests deeper than " + std::to_string(kMaxDepth), ff.at, schema_size,
                            "TraceLogging schema");
      if (flat.size() - i < ff.struct_size)
        return schema_error("struct '" + ff.field.name + "' declares " + std::to_string(ff.struct_size) + " members; " +
                                std::to_string(flat.size() - i) + " fields follow it",
                            ff.at, schema_size, "TraceLogging schema");
      if (Status s = build_tree(flat, i, ff.struct_size, ff.field.members, depth + 1, schema_size); !s) return s;
    }
    out.push_back(std::move(ff.field));
  }
  return {};
}

// The descriptors, set once the tree no longer moves (desc.name points into the field's name).
void set_descs(std::vector<TlField>& fields) {
  for (TlField& f : fields) {
    f.desc = describe(f);
    set_descs(f.members);
  }
}

// Walks a payload by the schema; reports to the visitor when there is one.
class Walker {
 public:
  Walker(Bytes payload, FieldVisitor* v) : p_(payload), v_(v), budget_(payload.size() + 65536) {}

  bool fields(const std::vector<TlField>& fs) {
    for (const TlField& f : fs)
      if (!field(f)) return false;
    return true;
  }
  std::size_t pos() const { return pos_; }
  Error error() const { return Error{code_, pos_, failed_}; }

 private:
  bool fail(const TlField& f, Errc code) {
    failed_ = f.name;
    code_ = code;
    return false;
  }
  std::size_t remaining() const { return p_.size() - pos_; }
  // Values take a byte or more, except empty structs and arrays of none: constant-count arrays of
  // those, nested, would take no bytes and forever. Every value and element counts against a budget
  // no well-formed payload comes near.
  bool step(const TlField& f) {
    if (++steps_ <= budget_) return true;
    return fail(f, Errc::too_deep);
  }

  bool field(const TlField& f) {
    if (f.count == TlField::Count::scalar || f.count == TlField::Count::custom) return value(f);
    std::uint64_t n = f.fixed_count;
    if (f.count == TlField::Count::variable) {  // a u16 count before the elements
      if (remaining() < 2) return fail(f, Errc::truncated);
      n = load_le<std::uint16_t>(p_.data() + pos_);
      pos_ += 2;
    }
    const std::size_t size = fixed_size(f.type);
    if (size && n * size > remaining()) {  // fixed-size elements: checked at once
      if (!v_) pos_ += remaining() / size * size;
      return fail(f, Errc::count_too_large);
    }
    if (!v_ && size) {  // checking only: skipped at once, counted as the visit counts them
      pos_ += static_cast<std::size_t>(n) * size;
      steps_ += static_cast<std::size_t>(n);
      return steps_ <= budget_ || fail(f, Errc::too_deep);
    }
    if (v_) v_->begin_array(f.desc, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      if (f.type == TlgIn::Struct) {
        if (!step(f)) return false;
        if (v_) v_->begin_element(k);
        if (!fields(f.members)) return false;
        if (v_) v_->end_element();
      } else if (!value(f)) {
        return false;
      }
    }
    if (v_) v_->end_array(f.desc);
    return true;
  }

  void report(const TlField& f, std::size_t at, std::size_t size) {
    if (v_) v_->scalar(Scalar{&f.desc, p_.data() + at, static_cast<std::uint32_t>(size)});
  }

  // One value (a scalar, or one element of an array).
  bool value(const TlField& f) {
    if (!step(f)) return false;
    if (f.type == TlgIn::Struct && f.count != TlField::Count::custom) {
      if (v_) v_->begin_struct(f.desc);
      if (!fields(f.members)) return false;
      if (v_) v_->end_struct(f.desc);
      return true;
    }
    const std::size_t rest = remaining();
    const std::uint8_t* here = p_.data() + pos_;
    if (f.count == TlField::Count::custom) return counted(f, 1);
    switch (f.type) {
      case TlgIn::UnicodeString: {
        const std::size_t units = rest / 2, n = clretw::detail::find_nul16(here, units);
        if (n == units) return fail(f, Errc::unterminated_string);
        report(f, pos_, 2 * n);
        pos_ += 2 * n + 2;
        return true;
      }
      case TlgIn::AnsiString: {
        const void* nul = rest ? std::memchr(here, 0, rest) : nullptr;
        if (!nul) return fail(f, Errc::unterminated_string);
        const std::size_t n = static_cast<const std::uint8_t*>(nul) - here;
        report(f, pos_, n);
        pos_ += n + 1;
        return true;
      }
      case TlgIn::CountedString: return counted(f, 2);
      case TlgIn::CountedAnsiString: case TlgIn::Binary: case TlgIn::CountedBinary: return counted(f, 1);
      case TlgIn::Sid: {
        if (rest < 8) return fail(f, Errc::truncated);
        const std::size_t size = 8 + 4 * std::size_t{here[1]};
        if (size > rest) return fail(f, Errc::truncated);
        report(f, pos_, size);
        pos_ += size;
        return true;
      }
      default: {
        const std::size_t size = fixed_size(f.type);
        if (size > rest) return fail(f, Errc::truncated);
        report(f, pos_, size);
        pos_ += size;
        return true;
      }
    }
  }

  // A u16 byte count, then the bytes; text in units of `unit` bytes (a stray odd byte is not shown).
  bool counted(const TlField& f, unsigned unit) {
    if (remaining() < 2) return fail(f, Errc::truncated);
    const std::size_t bytes = load_le<std::uint16_t>(p_.data() + pos_);
    if (bytes > remaining() - 2) return fail(f, Errc::count_too_large);
    report(f, pos_ + 2, bytes / unit * unit);
    pos_ += 2 + bytes;
    return true;
  }

  Bytes p_;
  std::size_t pos_ = 0;
  FieldVisitor* v_;
  std::string_view failed_;
  Errc code_ = Errc::truncated;
  std::size_t steps_ = 0, budget_;
};

// Standard opcode names, as TraceEvent shows them (TDH's "win:" names without the prefix).
std::string_view opcode_name(std::uint8_t opcode) {
  switch (opcode) {
    case 1: return "Start";
    case 2: return "Stop";
    case 3: return "DC_Start";
    case 4: return "DC_Stop";
    case 5: return "Extension";
    case 6: return "Reply";
    case 7: return "Resume";
    case 8: return "Suspend";
    case 9: return "Send";
    case 240: return "Receive";
    default: return {};
  }
}

}  // namespace

Result<std::unique_ptr<TraceLoggingEvent>> TraceLoggingEvent::parse(Bytes schema, Bytes traits, std::uint8_t opcode) {
  std::unique_ptr<TraceLoggingEvent> e(new TraceLoggingEvent());
  e->opcode_ = opcode;
  if (!traits.empty()) {
    constexpr std::string_view kItem = "TraceLogging provider traits";
    std::uint16_t size = 0;
    SchemaCursor c{traits, 0, traits.size()};
    if (!c.u16(size)) return schema_error("the size is cut short", 0, traits.size(), kItem);
    if (size < 3 || size > traits.size())
      return schema_error("the size " + std::to_string(size) + " is outside 3.." + std::to_string(traits.size()), 0, traits.size(), kItem);
    c.end = size;
    if (!c.utf8z(e->provider_)) return schema_error("the provider name has no NUL", 2, traits.size(), kItem);
    // The traits after the name (a group GUID, ...) say nothing a decoder needs.
  }

  constexpr std::string_view kItem = "TraceLogging schema";
  const std::size_t total = schema.size();
  SchemaCursor c{schema, 0, schema.size()};
  std::uint16_t size = 0;
  if (!c.u16(size)) return schema_error("the size is cut short", 0, total, kItem);
  if (size < 4 || size > total)
    return schema_error("the size " + std::to_string(size) + " is outside 4.." + std::to_string(total), 0, total, kItem);
  c.end = size;
  if (!c.tags()) return schema_error("the event's tags run past the end", c.pos, total, kItem);
  const std::size_t name_at = c.pos;
  if (!c.utf8z(e->name_)) return schema_error("the event name has no NUL", name_at, total, kItem);

  std::vector<FlatField> flat;
  while (c.pos < c.end) {
    FlatField ff;
    ff.at = c.pos;
    TlField& f = ff.field;
    if (!c.utf8z(f.name)) return schema_error("field " + std::to_string(flat.size() + 1) + "'s name has no NUL", ff.at, total, kItem);
    const std::size_t meta_at = c.pos;
    std::uint8_t in = 0, out = 0;
    if (!c.u8(in)) return schema_error("field '" + f.name + "' ends before its type", meta_at, total, kItem);
    if ((in & kInChain) && !c.u8(out)) return schema_error("field '" + f.name + "' ends before its out-type", c.pos, total, kItem);
    if ((out & kOutChain) && !c.tags()) return schema_error("field '" + f.name + "''s tags run past the end", c.pos, total, kItem);
    f.type = static_cast<TlgIn>(in & kInTypeMask);
    f.out = out & kOutTypeMask;
    switch (in & kInCountMask) {
      case kInConstant:
        f.count = TlField::Count::constant;
        if (!c.u16(f.fixed_count)) return schema_error("field '" + f.name + "' ends before its element count", c.pos, total, kItem);
        break;
      case kInVariable: f.count = TlField::Count::variable; break;
      case kInCustom: {
        f.count = TlField::Count::custom;
        std::uint16_t bytes = 0;
        if (!c.u16(bytes) || bytes > c.end - c.pos)
          return schema_error("field '" + f.name + "''s custom schema runs past the end", c.pos, total, kItem);
        c.pos += bytes;
        break;
      }
      default: break;
    }
    if (f.count != TlField::Count::custom) {
      const auto t = static_cast<std::uint8_t>(f.type);
      if (t == 0 || t == 16 || t > static_cast<std::uint8_t>(TlgIn::CountedBinary))
        return schema_error("field '" + f.name + "' has type " + std::to_string(t) + ", which TraceLogging does not define", meta_at,
                            total, kItem);
      if (f.type == TlgIn::Struct) ff.struct_size = f.out;  // the member count takes the out-type's place
    }
    flat.push_back(std::move(ff));
  }
  std::size_t i = 0;
  if (Status s = build_tree(flat, i, flat.size(), e->fields_, 0, total); !s) return std::move(s).error();
  set_descs(e->fields_);
  return e;
}

void TraceLoggingEvent::append_display_name(std::string& out) const {
  out += name_;
  if (opcode_ == 0) return;
  out += '/';
  const std::string_view op = opcode_name(opcode_);
  if (!op.empty()) out += op;
  else out += std::to_string(opcode_);
}

Result<std::uint32_t> TraceLoggingEvent::visit(Bytes payload, FieldVisitor& visitor) const {
  // Check everything first, so the visitor never sees half an event.
  Walker check(payload, nullptr);
  if (!check.fields(fields_)) return check.error();
  Walker report(payload, &visitor);
  report.fields(fields_);
  return static_cast<std::uint32_t>(check.pos());
}

Result<std::uint32_t> TraceLoggingEvent::check(Bytes payload) const {
  Walker check(payload, nullptr);
  if (!check.fields(fields_)) return check.error();
  return static_cast<std::uint32_t>(check.pos());
}

Result<const TraceLoggingEvent*> TraceLoggingSchemas::find(const Guid& guid, std::uint8_t opcode, Bytes traits, Bytes schema) {
  key_.clear();
  const GuidKey g = guid_key(guid);
  key_.append(reinterpret_cast<const char*>(g.data()), g.size());
  key_.push_back(static_cast<char>(opcode));
  const auto traits_size = static_cast<std::uint16_t>(traits.size());  // (items are at most 64 KB)
  key_.append(reinterpret_cast<const char*>(&traits_size), 2);
  key_.append(reinterpret_cast<const char*>(traits.data()), traits.size());
  key_.append(reinterpret_cast<const char*>(schema.data()), schema.size());
  if (last_ && key_ == last_key_) return last_;
  auto it = known_.find(key_);
  if (it == known_.end()) {
    auto parsed = TraceLoggingEvent::parse(schema, traits, opcode);
    if (!parsed) return std::move(parsed).error();
    it = known_.emplace(key_, std::move(*parsed)).first;
  }
  last_ = it->second.get();
  last_key_ = key_;
  return last_;
}

const UnreadableTraceLogging* TraceLoggingSchemas::unreadable(Error why) {
  auto& kept = unreadable_[key_];
  if (!kept) kept = std::make_unique<UnreadableTraceLogging>(std::move(why));
  return kept.get();
}

}  // namespace clretw::etl::detail
