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
      if (f.count.kind == Extent::Kind::none && scalar_size(f.type, ps_) != 0) {  // a scalar: placed and sized
        v_.scalar(Scalar{&f, payload_.data() + at, p.size});
        continue;
      }
      const std::uint64_t length = element_length(r, ps_, payload_, seg, i);
      if (f.count.kind == Extent::Kind::none && f.type != InType::Struct) {
        element(f, length, at);
        continue;
      }
      const std::uint64_t n = element_count(r, ps_, payload_, seg, i);
      v_.begin_array(f, n);
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
  // Reports one element of f at `at`; returns the offset after it. The
  // payload has been walked already, so the layout engine cannot fail here.
  std::uint32_t element(const FieldDesc& f, std::uint64_t length, std::uint32_t at) {
    if (f.type == InType::Struct) {
      std::uint32_t seg[kMaxSegments];
      auto end = walk(*f.members, ps_, payload_, at, seg);
      record(*f.members, std::span<const std::uint32_t>(seg, f.members->layout_for(ps_).segments.size()));
      return end ? *end : static_cast<std::uint32_t>(payload_.size());
    }
    const ElementExtent e = locate_element(f, length, ps_, payload_, at);
    v_.scalar(Scalar{&f, payload_.data() + at, e.text});
    return at + e.size;
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
    using K = DynValue::Kind;
    DynValue v;
    v.type = s.type();
    switch (s.type()) {
      case InType::Int8: case InType::Int16: case InType::Int32: case InType::Int64:
        v.kind = K::sint, v.i = s.as_int();
        break;
      case InType::Float: case InType::Double: v.kind = K::real, v.d = s.as_double(); break;
      case InType::Boolean: v.kind = K::boolean, v.u = s.as_uint(); break;
      case InType::Guid: v.kind = K::guid, v.g = s.as_guid(); break;
      case InType::SystemTime: v.kind = K::systemtime, v.st = s.as_systemtime(); break;
      case InType::UnicodeString: v.kind = K::text, v.text = s.as_utf16().to_utf8(); break;
      case InType::AnsiString: v.kind = K::text, v.text = std::string(s.as_ansi()); break;
      case InType::Binary: case InType::Sid: v.kind = K::bytes, v.bytes.assign(s.data, s.data + s.size); break;
      default: v.kind = K::uint, v.u = s.as_uint(); break;
    }
    return v;
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

Result<std::uint32_t> check_fields(const RecordDesc& record, Bytes payload, unsigned ps) noexcept {
  if ((ps == 4 || ps == 8) && payload.size() < kVariable) {
    const Layout& l = record.layout_for(ps);
    if (l.fixed() && payload.size() >= l.segments[0].fixed) return l.segments[0].fixed;
  }
  if (record.layout_for(ps).segments.size() > kMaxSegments) return Error{Errc::too_deep, 0, record.name};
  std::uint32_t seg[kMaxSegments];
  if (record.check && (ps == 4 || ps == 8))
    if (const std::uint32_t consumed = record.check(payload, ps, seg); consumed != kVariable) return consumed;
  return walk(record, ps, payload, 0, seg);
}

Result<DynRecord> decode_dynamic(const RecordDesc& record, Bytes payload, unsigned ps) {
  DynRecord root;
  TreeBuilder builder(root);
  auto end = visit_fields(record, payload, ps, builder);
  if (!end) return std::move(end).error();
  return root;
}

}  // namespace clretw
