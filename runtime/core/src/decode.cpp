#include "clretw/decode.h"

#include "clretw/layout.h"

namespace clretw {

namespace {

// Reports the fields of one verified record instance.
class Reporter {
 public:
  Reporter(Bytes payload, unsigned ps, FieldVisitor& v) : payload_(payload), ps_(ps), v_(v) {}

  void record(const RecordDesc& r, std::span<const std::uint32_t> seg) {
    const Layout& l = r.layout_for(ps_);
    for (std::uint32_t i = 0; i < r.fields.size(); ++i) {
      const FieldDesc& f = r.fields[i];
      const FieldPlace& p = l.places[i];
      const std::uint32_t at = seg[p.seg] + p.off;
      if (f.count.kind == Extent::Kind::none && f.type != InType::Struct) {
        element(f, length_of(r, seg, f), at);
        continue;
      }
      const std::uint64_t n = element_count(r, ps_, payload_, seg, i);
      v_.begin_array(f, n);
      const std::uint64_t length = length_of(r, seg, f);
      std::uint32_t pos = at;
      for (std::uint64_t k = 0; k < n; ++k) {
        if (f.type == InType::Struct) v_.begin_element(k);
        pos = element(f, length, pos);
        if (f.type == InType::Struct) v_.end_element();
      }
      v_.end_array(f);
    }
  }

 private:
  std::uint64_t length_of(const RecordDesc& r, std::span<const std::uint32_t> seg, const FieldDesc& f) const {
    switch (f.length.kind) {
      case Extent::Kind::none: return 0;
      case Extent::Kind::constant: return f.length.value;
      case Extent::Kind::field: return read_integer(r, ps_, payload_, seg, f.length.value);
    }
    return 0;
  }

  // Reports one element of f at `at`; returns the offset after it. The
  // payload has been walked already, so every size here is known to fit.
  std::uint32_t element(const FieldDesc& f, std::uint64_t length, std::uint32_t at) {
    const std::uint8_t* p = payload_.data();
    Scalar s{&f, p + at, 0};
    std::uint32_t next = at;
    switch (f.type) {
      case InType::UnicodeString:
        if (f.length.kind == Extent::Kind::none) {
          while (p[at + s.size] != 0 || p[at + s.size + 1] != 0) s.size += 2;
          next = at + s.size + 2;
        } else {
          s.size = static_cast<std::uint32_t>(2 * length);
          next = at + s.size;
        }
        break;
      case InType::AnsiString:
        if (f.length.kind == Extent::Kind::none) {
          while (p[at + s.size] != 0) ++s.size;
          next = at + s.size + 1;
        } else {
          s.size = static_cast<std::uint32_t>(length);
          next = at + s.size;
        }
        break;
      case InType::Binary:
        s.size = static_cast<std::uint32_t>(length);
        next = at + s.size;
        break;
      case InType::Sid:
        s.size = 8 + 4u * p[at + 1];
        next = at + s.size;
        break;
      case InType::Struct: {
        std::uint32_t seg[kMaxSegments];
        auto end = walk(*f.members, ps_, payload_, at, seg);  // cannot fail: verified
        record(*f.members, std::span<const std::uint32_t>(seg, f.members->layout_for(ps_).segments.size()));
        return end ? *end : static_cast<std::uint32_t>(payload_.size());
      }
      default:
        s.size = scalar_size(f.type, ps_);
        next = at + s.size;
        break;
    }
    v_.scalar(s);
    return next;
  }

  Bytes payload_;
  unsigned ps_;
  FieldVisitor& v_;
};

// Builds DynRecord trees from visitor callbacks.
class TreeBuilder final : public FieldVisitor {
 public:
  explicit TreeBuilder(DynRecord& root) { records_.push_back(&root); }

  void scalar(const Scalar& s) override {
    DynValue v = make(s);
    if (!arrays_.empty() && arrays_.back()->kind == DynValue::Kind::array) {
      arrays_.back()->items.push_back(std::move(v));
    } else {
      records_.back()->push_back({s.field->name, std::move(v)});
    }
  }
  void begin_array(const FieldDesc& f, std::uint64_t) override {
    DynValue v;
    v.type = f.type;
    v.kind = f.type == InType::Struct ? DynValue::Kind::records : DynValue::Kind::array;
    records_.back()->push_back({f.name, std::move(v)});
    arrays_.push_back(&records_.back()->back().value);
  }
  void end_array(const FieldDesc&) override { arrays_.pop_back(); }
  void begin_element(std::uint64_t) override {
    arrays_.back()->records.emplace_back();
    records_.push_back(&arrays_.back()->records.back());
  }
  void end_element() override { records_.pop_back(); }

 private:
  static DynValue make(const Scalar& s) {
    DynValue v;
    v.type = s.type();
    switch (s.type()) {
      case InType::Int8: case InType::Int16: case InType::Int32: case InType::Int64:
        v.kind = DynValue::Kind::sint;
        v.i = s.as_int();
        break;
      case InType::Float: case InType::Double:
        v.kind = DynValue::Kind::real;
        v.d = s.as_double();
        break;
      case InType::Boolean:
        v.kind = DynValue::Kind::boolean;
        v.u = s.as_uint();
        break;
      case InType::Guid:
        v.kind = DynValue::Kind::guid;
        v.g = s.as_guid();
        break;
      case InType::SystemTime:
        v.kind = DynValue::Kind::systemtime;
        v.st = s.as_systemtime();
        break;
      case InType::UnicodeString:
        v.kind = DynValue::Kind::text;
        v.text = trim_nuls(s.as_utf16(), s.field->length.kind != Extent::Kind::none);
        break;
      case InType::AnsiString:
        v.kind = DynValue::Kind::text;
        v.text = std::string(s.as_ansi());
        if (s.field->length.kind != Extent::Kind::none) v.text.erase(v.text.find_last_not_of('\0') + 1);
        break;
      case InType::Binary: case InType::Sid:
        v.kind = DynValue::Kind::bytes;
        v.bytes.assign(s.data, s.data + s.size);
        break;
      default:
        v.kind = DynValue::Kind::uint;
        v.u = s.as_uint();
        break;
    }
    return v;
  }
  // Counted strings are padded with NULs to their length; the value is the text before them.
  static std::string trim_nuls(Utf16View s, bool counted) {
    std::size_t n = s.size();
    if (counted)
      while (n && s[n - 1] == 0) --n;
    return Utf16View(s.data(), n).to_utf8();
  }

  std::vector<DynRecord*> records_;
  std::vector<DynValue*> arrays_;
};

}  // namespace

Result<std::uint32_t> visit_fields(const RecordDesc& record, Bytes payload, unsigned ps, FieldVisitor& visitor) {
  if (record.layout_for(ps).segments.size() > kMaxSegments) return Error{Errc::too_deep, 0, record.name};
  std::uint32_t seg[kMaxSegments];
  auto end = walk(record, ps, payload, 0, seg);
  if (!end) return end;
  Reporter(payload, ps, visitor).record(record, std::span<const std::uint32_t>(seg, record.layout_for(ps).segments.size()));
  return end;
}

Result<DynRecord> decode_dynamic(const RecordDesc& record, Bytes payload, unsigned ps) {
  DynRecord root;
  TreeBuilder builder(root);
  auto end = visit_fields(record, payload, ps, builder);
  if (!end) return std::move(end).error();
  return root;
}

}  // namespace clretw
