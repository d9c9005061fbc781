#include "clretw/payload.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>

namespace clretw {

namespace {
constexpr Segment kEmptySegments[] = {{0, kNoField}};
constexpr RecordDesc kEmptyRecord{.name = "(no payload)", .fields = {}, .layout = {{{}, kEmptySegments, 0}, {{}, kEmptySegments, 0}}};
}  // namespace

const RecordDesc& EmptyPayload::record() noexcept { return kEmptyRecord; }

namespace detail {

// The integer a member holds, as encode's count and length checks and its writer see it: an unsigned
// member zero-extended, a signed one (or an enum of a signed type) sign-extended.
std::uint64_t member_integer(const MemberOps& ops, const void* at) noexcept {
  switch (ops.kind) {
    case MemberKind::boolean: return *static_cast<const bool*>(at) ? 1 : 0;
    case MemberKind::integer:
      switch (ops.size) {
        case 1: {
          const auto v = *static_cast<const std::uint8_t*>(at);
          return ops.value_signed ? static_cast<std::uint64_t>(static_cast<std::int8_t>(v)) : v;
        }
        case 2: {
          const auto v = *static_cast<const std::uint16_t*>(at);
          return ops.value_signed ? static_cast<std::uint64_t>(static_cast<std::int16_t>(v)) : v;
        }
        case 4: {
          const auto v = *static_cast<const std::uint32_t*>(at);
          return ops.value_signed ? static_cast<std::uint64_t>(static_cast<std::int32_t>(v)) : v;
        }
        default: return *static_cast<const std::uint64_t*>(at);
      }
    default: return 0;
  }
}

namespace {

// Where the segments of the instance of `record` at payload[begin] start, found the quick way: a fixed
// layout's one segment, or the record's generated check. Returns the offset past it, or nothing when
// neither applies or the check rejects the instance (walk() then decides, and says why).
std::optional<std::uint32_t> locate_segments(const RecordDesc& record, unsigned ps, Bytes payload, std::uint32_t begin,
                                             std::uint32_t* seg) noexcept {
  if ((ps != 4 && ps != 8) || begin > payload.size()) return std::nullopt;
  const Layout& l = record.layout_for(ps);
  const Bytes rest = payload.subspan(begin);
  if (l.fixed()) {
    if (rest.size() < l.segments[0].fixed) return std::nullopt;
    seg[0] = begin;
    return begin + l.segments[0].fixed;
  }
  if (!record.check || l.segments.size() > kMaxSegments) return std::nullopt;
  const std::uint32_t consumed = record.check(rest, ps, seg);
  if (consumed == kVariable) return std::nullopt;
  for (std::size_t k = 0; k < l.segments.size(); ++k) seg[k] += begin;
  return begin + consumed;
}

// Stores the low bytes of v in an integer member of ops.size bytes.
void store_integer(const MemberOps& ops, void* at, std::uint64_t v) {
  switch (ops.size) {
    case 1: *static_cast<std::uint8_t*>(at) = static_cast<std::uint8_t>(v); break;
    case 2: *static_cast<std::uint16_t*>(at) = static_cast<std::uint16_t>(v); break;
    case 4: *static_cast<std::uint32_t*>(at) = static_cast<std::uint32_t>(v); break;
    default: *static_cast<std::uint64_t*>(at) = v; break;
  }
}

// A scalar of `width` bytes at p into the member at `at` (what load_value() does for one C++ type).
void load_scalar(const MemberOps& ops, void* at, const std::uint8_t* p, unsigned width) {
  switch (ops.kind) {
    case MemberKind::boolean: *static_cast<bool*>(at) = load_uint(p, width) != 0; break;
    case MemberKind::guid: *static_cast<Guid*>(at) = Guid::load(p); break;
    case MemberKind::system_time: *static_cast<SystemTime*>(at) = SystemTime::load(p); break;
    case MemberKind::floating: {
      const double v = width == 4 ? static_cast<double>(load_le<float>(p)) : load_le<double>(p);
      if (ops.size == 4) *static_cast<float*>(at) = static_cast<float>(v);
      else *static_cast<double*>(at) = v;
      break;
    }
    case MemberKind::integer:
      store_integer(ops, at, ops.load_signed ? static_cast<std::uint64_t>(load_int(p, width)) : load_uint(p, width));
      break;
    default: break;  // strings, binary, containers and records are read by their own paths
  }
}

class Reader {
 public:
  Reader(Bytes payload, unsigned ps) : payload_(payload), ps_(ps) {}

  // Reads one verified record instance whose segment starts are in seg into the struct at object.
  void record(const RecordDesc& r, const std::uint32_t* seg, void* object, VisitMembers visit) const {
    Fill fill{this, &r, seg};
    visit(object, &Reader::fill_members, &fill);
  }

 private:
  struct Fill {
    const Reader* reader;
    const RecordDesc* r;
    const std::uint32_t* seg;
  };
  static void fill_members(void* context, const Member* members, std::size_t count) {
    const Fill& c = *static_cast<const Fill*>(context);
    const Reader& reader = *c.reader;
    const RecordDesc& r = *c.r;
    const Layout& l = r.layout_for(reader.ps_);
    const std::uint8_t* data = reader.payload_.data();
    const std::size_t n = std::min(count, r.fields.size());
    for (std::size_t i = 0; i < n; ++i) {
      const FieldPlace place = l.places[i];
      const MemberOps& ops = *members[i].ops;
      if (ops.kind <= MemberKind::system_time) {  // a scalar: the layout placed and sized it
        const std::uint8_t* p = data + c.seg[place.seg] + place.off;
        if (ops.kind == MemberKind::integer && place.size == ops.size && std::endian::native == std::endian::little) {
          std::memcpy(members[i].at, p, ops.size);  // the same width: the bytes are the value
        } else {
          load_scalar(ops, members[i].at, p, place.size);
        }
      } else {
        reader.field(members[i], r, l, static_cast<std::uint32_t>(i), c.seg);
      }
    }
  }

  void field(const Member& m, const RecordDesc& r, const Layout& l, std::uint32_t i, const std::uint32_t* seg) const {
    const FieldDesc& f = r.fields[i];
    const FieldPlace& place = l.places[i];
    std::uint32_t at = seg[place.seg] + place.off;
    const MemberOps& ops = *m.ops;
    // A terminated string ends its segment: the next one starts past its terminator.
    if (ops.kind == MemberKind::string && f.length.kind == Extent::Kind::none && place.size == kVariable &&
        place.seg + 1 < l.segments.size()) {
      const std::uint32_t unit = f.type == InType::UnicodeString ? 2 : 1;
      const std::uint32_t bytes = seg[place.seg + 1] - at;
      const std::uint8_t* p = payload_.data() + at;
      auto& s = *static_cast<std::string*>(m.at);
      if (unit == 2) s = Utf16View(p, (bytes - 2) / 2).to_utf8();
      else s.assign(reinterpret_cast<const char*>(p), bytes - 1);
      return;
    }
    const std::span<const std::uint32_t> segs(seg, l.segments.size());
    const std::uint64_t length = element_length(r, ps_, payload_, segs, i);
    if (ops.kind == MemberKind::vector) {
      const std::uint64_t n = element_count(r, ps_, payload_, segs, i);
      auto* data = static_cast<std::uint8_t*>(ops.resize(m.at, static_cast<std::size_t>(n)));
      for (std::uint64_t k = 0; k < n; ++k) element(*ops.element, data + k * ops.element_size, f, length, at);
    } else if (ops.kind == MemberKind::bytes && f.count.kind != Extent::Kind::none) {  // an array of UInt8/Int8
      const std::uint64_t n = element_count(r, ps_, payload_, segs, i);
      static_cast<std::vector<std::uint8_t>*>(m.at)->assign(payload_.data() + at, payload_.data() + at + n);
    } else {
      element(ops, m.at, f, length, at);
    }
  }

  // One element of f at `at` into the object at `to`; advances `at` past it.
  void element(const MemberOps& ops, void* to, const FieldDesc& f, std::uint64_t length, std::uint32_t& at) const {
    const std::uint8_t* p = payload_.data() + at;
    switch (ops.kind) {
      case MemberKind::record: {
        std::uint32_t seg[kMaxSegments];
        std::optional<std::uint32_t> end = locate_segments(*f.members, ps_, payload_, at, seg);
        if (!end) {
          auto walked = walk(*f.members, ps_, payload_, at, seg);  // verified by the caller's walk
          end = walked ? *walked : static_cast<std::uint32_t>(payload_.size());
        }
        record(*f.members, seg, to, ops.visit);
        at = *end;
        return;
      }
      case MemberKind::string:
      case MemberKind::bytes: {
        const ElementExtent e = locate_element(f, length, ps_, payload_, at);
        at += e.size;
        if (ops.kind == MemberKind::bytes) *static_cast<std::vector<std::uint8_t>*>(to) = std::vector<std::uint8_t>(p, p + e.text);
        else if (f.type == InType::UnicodeString) *static_cast<std::string*>(to) = Utf16View(p, e.text / 2).to_utf8();
        else *static_cast<std::string*>(to) = std::string(reinterpret_cast<const char*>(p), e.text);
        return;
      }
      default: {
        const unsigned w = scalar_size(f.type, ps_);
        at += w;
        load_scalar(ops, to, p, w);
        return;
      }
    }
  }

  Bytes payload_;
  unsigned ps_;
};

class Writer {
 public:
  Writer(ByteWriter& w, unsigned ps) : w_(w), ps_(ps) {}

  Status record(const RecordDesc& r, const void* object, VisitMembers visit) {
    Emit emit{this, &r, {}};
    visit(const_cast<void*>(object), &Writer::emit_members, &emit);
    return std::move(emit.status);
  }

 private:
  struct Emit {
    Writer* writer;
    const RecordDesc* r;
    Status status;
  };
  static void emit_members(void* context, const Member* members, std::size_t count) {
    Emit& c = *static_cast<Emit*>(context);
    const RecordDesc& r = *c.r;
    const std::size_t n = std::min(count, r.fields.size());
    std::vector<std::uint64_t> ints(r.fields.size());
    for (std::size_t i = 0; i < n; ++i) ints[i] = member_integer(*members[i].ops, members[i].at);
    for (std::size_t i = 0; i < n && c.status; ++i) c.status = c.writer->field(members[i], r.fields[i], r, ints);
  }

  Error fail(Errc code, const FieldDesc& f, std::string detail) const {
    return Error{code, w_.size(), f.name, std::move(detail)};
  }

  // Checks that `actual` matches the extent e (a constant, or the value of the field it names).
  Status check_extent(const Extent& e, std::uint64_t actual, const RecordDesc& r, const std::vector<std::uint64_t>& ints,
                      const FieldDesc& f, const char* what) const {
    if (e.kind == Extent::Kind::none) return {};
    const std::uint64_t expected = e.kind == Extent::Kind::constant ? e.value : ints[e.value];
    if (expected == actual) return {};
    std::string detail = std::string(what) + " is " + std::to_string(actual) + " but ";
    detail += e.kind == Extent::Kind::constant ? "the manifest fixes it at " + std::to_string(expected)
                                               : std::string(r.fields[e.value].name) + " says " + std::to_string(expected);
    return fail(Errc::count_mismatch, f, std::move(detail));
  }

  Status field(const Member& m, const FieldDesc& f, const RecordDesc& r, const std::vector<std::uint64_t>& ints) {
    const MemberOps& ops = *m.ops;
    if (ops.kind == MemberKind::vector) {
      const std::size_t n = ops.count(m.at);
      if (Status s = check_extent(f.count, n, r, ints, f, "the number of elements"); !s) return s;
      const auto* data = static_cast<const std::uint8_t*>(ops.data(m.at));
      for (std::size_t k = 0; k < n; ++k)
        if (Status s = element(*ops.element, data + k * ops.element_size, f, r, ints); !s) return s;
      return {};
    }
    if (ops.kind == MemberKind::bytes && f.count.kind != Extent::Kind::none) {
      const auto& bytes = *static_cast<const std::vector<std::uint8_t>*>(m.at);
      if (Status s = check_extent(f.count, bytes.size(), r, ints, f, "the number of elements"); !s) return s;
      w_.bytes(bytes.data(), bytes.size());
      return {};
    }
    return element(ops, m.at, f, r, ints);
  }

  Status element(const MemberOps& ops, const void* e, const FieldDesc& f, const RecordDesc& r,
                 const std::vector<std::uint64_t>& ints) {
    switch (ops.kind) {
      case MemberKind::record: return record(*f.members, e, ops.visit);
      case MemberKind::string: {
        const std::string& s = *static_cast<const std::string*>(e);
        if (s.find('\0') != std::string::npos) return fail(Errc::value_out_of_range, f, "string contains NUL");
        const bool unicode = f.type == InType::UnicodeString;
        const std::uint64_t units = unicode ? utf16_length(s) : s.size();
        if (f.length.kind == Extent::Kind::field) {
          if (Status st = check_extent(f.length, units, r, ints, f, "the string length"); !st) return st;
        } else if (f.length.kind == Extent::Kind::constant && units > f.length.value) {
          return fail(Errc::value_out_of_range, f, "string longer than its fixed length " + std::to_string(f.length.value));
        }
        if (unicode) put_utf16(w_, s);
        else w_.bytes(s.data(), s.size());
        const std::uint64_t pad = f.length.kind == Extent::Kind::constant ? f.length.value - units
                                  : f.length.kind == Extent::Kind::none    ? 1
                                                                          : 0;
        w_.zeros(static_cast<std::size_t>(pad * (unicode ? 2 : 1)));
        return {};
      }
      case MemberKind::bytes: {
        const auto& b = *static_cast<const std::vector<std::uint8_t>*>(e);
        if (f.type == InType::Sid) {
          if (b.size() < 8 || b.size() != sid_size(b[1])) return fail(Errc::value_out_of_range, f, "not a SID");
        } else if (Status s = check_extent(f.length, b.size(), r, ints, f, "the binary length"); !s) {
          return s;
        }
        w_.bytes(b.data(), b.size());
        return {};
      }
      case MemberKind::guid: static_cast<const Guid*>(e)->store(w_); return {};
      case MemberKind::system_time: static_cast<const SystemTime*>(e)->store(w_); return {};
      case MemberKind::floating: {
        const double v = ops.size == 4 ? static_cast<double>(*static_cast<const float*>(e)) : *static_cast<const double*>(e);
        if (f.type == InType::Float) w_.put(static_cast<float>(v));
        else w_.put(v);
        return {};
      }
      case MemberKind::boolean:
        w_.put_uint(*static_cast<const bool*>(e) ? 1 : 0, scalar_size(f.type, ps_));
        return {};
      default: {
        const unsigned width = scalar_size(f.type, ps_);
        const std::uint64_t v = member_integer(ops, e);
        if (width < 8 && !ops.load_signed && (v >> (8 * width)) != 0)
          return fail(Errc::value_out_of_range, f, std::to_string(v) + " does not fit in " + std::to_string(width) + " bytes");
        w_.put_uint(v, width);
        return {};
      }
    }
  }

  ByteWriter& w_;
  unsigned ps_;
};

}  // namespace

Status decode_members(const RecordDesc& record, Bytes payload, unsigned pointer_size, void* object, VisitMembers visit) {
  std::uint32_t seg[kMaxSegments];
  if (!locate_segments(record, pointer_size, payload, 0, seg)) {
    auto end = walk(record, pointer_size, payload, 0, seg);  // says what is wrong
    if (!end) return std::move(end).error();
  }
  Reader(payload, pointer_size).record(record, seg, object, visit);
  return {};
}

Status encode_members(const RecordDesc& record, unsigned pointer_size, const void* object, VisitMembers visit,
                      std::vector<std::uint8_t>& out) {
  if (pointer_size != 4 && pointer_size != 8) return Error{Errc::bad_pointer_size, pointer_size, record.name};
  ByteWriter w(out);
  return Writer(w, pointer_size).record(record, object, visit);
}

}  // namespace detail

}  // namespace clretw
