#include "clretw/layout.h"

#include <cstring>
#include <limits>

namespace clretw {

std::uint32_t element_size(const FieldDesc& f, unsigned ps) noexcept {
  const bool const_length = f.length.kind == Extent::Kind::constant;
  switch (f.type) {
    case InType::Struct: {
      const Layout& l = f.members->layout_for(ps);
      return l.fixed() ? l.min_size : kVariable;
    }
    case InType::UnicodeString: return const_length ? 2 * f.length.value : kVariable;
    case InType::AnsiString:
    case InType::Binary: return const_length ? f.length.value : kVariable;
    case InType::Sid: return kVariable;
    default: return scalar_size(f.type, ps);
  }
}

std::uint32_t item_size(const FieldDesc& f, unsigned ps) noexcept {
  if (f.count.is_field()) return kVariable;
  const std::uint32_t elem = element_size(f, ps);
  if (elem == kVariable) return kVariable;
  const std::uint64_t n = f.count.kind == Extent::Kind::constant ? f.count.value : 1;
  const std::uint64_t total = n * elem;
  return total >= kVariable ? kVariable - 1 : static_cast<std::uint32_t>(total);
}

LayoutData compute_layout(std::span<const FieldDesc> fields, unsigned ps) {
  LayoutData out;
  out.places.reserve(fields.size());
  std::uint32_t seg = 0, fixed = 0;
  for (std::uint32_t i = 0; i < fields.size(); ++i) {
    const std::uint32_t size = item_size(fields[i], ps);
    out.places.push_back({seg, fixed, size});
    if (size == kVariable) {
      out.segments.push_back({fixed, i});
      out.min_size += fixed;
      ++seg;
      fixed = 0;
    } else {
      fixed += size;
    }
  }
  out.segments.push_back({fixed, kNoField});
  out.min_size += fixed;
  return out;
}

namespace {

Error fail(Errc code, std::uint64_t at, const FieldDesc& f) { return Error{code, at, f.name}; }

}  // namespace

ElementExtent detail::locate_variable(const FieldDesc& f, std::uint64_t length, Bytes payload,
                                             std::uint32_t at) noexcept {
  const std::size_t n = payload.size();
  const std::uint8_t* p = payload.data();
  if (at > n) return {0, 0, Errc::truncated};
  const bool terminated = f.length.kind == Extent::Kind::none;
  switch (f.type) {
    case InType::UnicodeString: {
      std::uint32_t size = 0;
      if (terminated) {
        const std::size_t units = (n - at) / 2, k = detail::find_nul16(p + at, units);
        if (k == units) return {0, 0, Errc::unterminated_string};
        size = static_cast<std::uint32_t>(2 * k + 2);
      } else {
        if (length > (n - at) / 2) return {0, 0, Errc::count_too_large};
        size = static_cast<std::uint32_t>(2 * length);
      }
      return {size, string_text(p + at, size, 2, terminated)};
    }
    case InType::AnsiString: {
      std::uint32_t size = 0;
      if (terminated) {
        const void* nul = std::memchr(p + at, 0, n - at);
        if (!nul) return {0, 0, Errc::unterminated_string};
        size = static_cast<std::uint32_t>(static_cast<const std::uint8_t*>(nul) - (p + at) + 1);
      } else {
        if (length > n - at) return {0, 0, Errc::count_too_large};
        size = static_cast<std::uint32_t>(length);
      }
      return {size, string_text(p + at, size, 1, terminated)};
    }
    case InType::Binary: {
      if (terminated) {  // no length: the rest of the payload (a manifest's length="*")
        const auto size = static_cast<std::uint32_t>(n - at);
        return {size, size};
      }
      if (length > n - at) return {0, 0, Errc::count_too_large};
      const auto size = static_cast<std::uint32_t>(length);
      return {size, size};
    }
    case InType::Sid: {
      if (n - at < 8) return {0, 0, Errc::truncated};
      const std::uint32_t size = sid_size(p[at + 1]);
      if (size > n - at) return {0, 0, Errc::truncated};
      return {size, size};
    }
    default: return {0, 0, Errc::bad_format};  // structs are walked, not located
  }
}

namespace {

struct Walker {
  Bytes payload;
  unsigned ps;

  // Smallest number of bytes one element can take (to bound loops on counts).
  std::uint32_t min_element_size(const FieldDesc& f) const {
    switch (f.type) {
      case InType::UnicodeString: return f.length.kind == Extent::Kind::none ? 2 : 0;
      case InType::AnsiString: return f.length.kind == Extent::Kind::none ? 1 : 0;
      case InType::Sid: return 8;
      case InType::Struct: return f.members->layout_for(ps).min_size;
      default: return 0;
    }
  }

  // Bytes taken by one variable-size element of f starting at `at`.
  Result<std::uint32_t> element(const FieldDesc& f, std::uint64_t length, std::uint32_t at, unsigned depth) const {
    if (f.type != InType::Struct) {
      const ElementExtent e = locate_element(f, length, ps, payload, at);
      if (!e.ok()) return fail(e.status, at, f);
      return e.size;
    }
    if (depth >= kMaxStructDepth || f.members->layout_for(ps).segments.size() > kMaxSegments)
      return fail(Errc::too_deep, at, f);
    std::uint32_t seg[kMaxSegments];
    auto end = walk_record(*f.members, at, seg, depth + 1);
    if (!end) return std::move(end).error();
    return *end - at;
  }

  // Bytes taken by variable-size item i of record r (all its elements).
  Result<std::uint32_t> item(const RecordDesc& r, const Layout& l, std::uint32_t i, std::uint32_t at,
                             std::span<const std::uint32_t> seg, unsigned depth) const {
    const FieldDesc& f = r.fields[i];
    const std::uint64_t count = extent_value(f.count, l, payload.data(), seg.data(), 1);
    const std::uint64_t length = extent_value(f.length, l, payload.data(), seg.data(), 0);
    const std::uint64_t remaining = payload.size() - at;
    const std::uint32_t elem = element_size(f, ps);
    if (elem != kVariable) {
      if (elem != 0 && count > remaining / elem) return fail(Errc::count_too_large, at, f);
      return static_cast<std::uint32_t>(count * elem);
    }
    const std::uint32_t min_elem = min_element_size(f);
    if ((min_elem != 0 && count > remaining / min_elem) || (min_elem == 0 && count > remaining + 65536))
      return fail(Errc::count_too_large, at, f);
    std::uint64_t total = 0;
    for (std::uint64_t k = 0; k < count; ++k) {
      auto size = element(f, length, static_cast<std::uint32_t>(at + total), depth);
      if (!size) return size;
      total += *size;
    }
    return static_cast<std::uint32_t>(total);
  }

  Result<std::uint32_t> walk_record(const RecordDesc& r, std::uint32_t begin, std::span<std::uint32_t> seg,
                                    unsigned depth) const {
    const Layout& l = r.layout_for(ps);
    std::uint64_t pos = begin;
    for (std::uint32_t s = 0; s < l.segments.size(); ++s) {
      seg[s] = static_cast<std::uint32_t>(pos);
      const Segment& sg = l.segments[s];
      if (sg.fixed > payload.size() - pos) {
        // Name the first field of this segment that does not fit.
        for (std::uint32_t i = 0; i < r.fields.size(); ++i) {
          const FieldPlace& p = l.places[i];
          if (p.seg == s && p.size != kVariable && pos + p.off + p.size > payload.size())
            return fail(Errc::truncated, pos + p.off, r.fields[i]);
        }
        return Error{Errc::truncated, pos, r.name};
      }
      pos += sg.fixed;
      if (sg.var_field == kNoField) break;
      auto size = item(r, l, sg.var_field, static_cast<std::uint32_t>(pos), seg, depth);
      if (!size) return size;
      pos += *size;
    }
    return static_cast<std::uint32_t>(pos);
  }
};

}  // namespace

Result<std::uint32_t> walk(const RecordDesc& record, unsigned ps, Bytes payload, std::uint32_t begin,
                           std::span<std::uint32_t> seg) noexcept {
  if (ps != 4 && ps != 8) return Error{Errc::bad_pointer_size, ps, record.name};
  if (payload.size() >= std::numeric_limits<std::uint32_t>::max() || begin > payload.size())
    return Error{Errc::truncated, begin, record.name};
  if (seg.size() < record.layout_for(ps).segments.size()) return Error{Errc::too_deep, begin, record.name};
  return Walker{payload, ps}.walk_record(record, begin, seg, 0);
}

}  // namespace clretw
