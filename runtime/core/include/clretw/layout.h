// clretw/layout.h - the layout engine: the one place that knows where the
// fields of a payload are.
//
// compute_layout() turns a record's fields into segments and field places for
// one pointer size; clretw-gen runs it when generating (the results become the
// constexpr tables behind the views) and the schema builder runs it for
// manifests loaded at run time. walk() checks a payload against a layout and
// finds where each segment starts - it is how views verify, how decode() and
// the dynamic decoder locate fields, and how payload sizes are validated.
// locate_element() says how long one element is and where its text ends; it
// is the walker's own measure, and every reader of variable-size elements
// (views, owning decode, the dynamic decoder, the formatters) calls it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/result.h"
#include "clretw/schema.h"

namespace clretw {

inline constexpr unsigned kMaxSegments = 64;   // variable-size items per record, plus one
inline constexpr unsigned kMaxStructDepth = 8;  // struct nesting accepted by walk()

struct LayoutData {
  std::vector<FieldPlace> places;
  std::vector<Segment> segments;
  std::uint32_t min_size = 0;
};

// Size in bytes of one element of field f (the whole value for non-arrays),
// or kVariable when it depends on the payload.
std::uint32_t element_size(const FieldDesc& f, unsigned pointer_size) noexcept;

// Size of the whole item (all elements), or kVariable.
std::uint32_t item_size(const FieldDesc& f, unsigned pointer_size) noexcept;

// Lays out `fields` for a pointer size (4 or 8). The member records of struct
// fields must already carry their layouts.
LayoutData compute_layout(std::span<const FieldDesc> fields, unsigned pointer_size);

// What the layout engine says about one element of a field.
// A status rather than a Result: it is trivially copyable, so the verified
// readers that call locate_element() for every value pay nothing for errors.
struct ElementExtent {
  std::uint32_t size = 0;  // bytes from the element's start to the next element's
  std::uint32_t text = 0;  // bytes of its value: a string ends before its terminator, or
                           // before the NULs that pad a counted string; other types: size
  Errc status{};           // Errc{} when the element lies within the payload, else why not
  bool ok() const noexcept { return status == Errc{}; }
};

// Bytes a SID takes, from its sub-authority count (its second byte).
constexpr std::uint32_t sid_size(std::uint8_t sub_authorities) noexcept { return 8 + 4u * sub_authorities; }

// Bytes of text in a string element of `size` bytes at p, whose code units are
// `unit` bytes wide: a terminated string ends before its NUL, a counted one
// before the NULs that pad it up to its length.
inline std::uint32_t string_text(const std::uint8_t* p, std::uint32_t size, unsigned unit, bool terminated) noexcept {
  if (terminated) return size - unit;
  while (size >= unit && load_uint(p + size - unit, unit) == 0) size -= unit;
  return size;
}

namespace detail {
// Index of the first NUL code unit of the `units` UTF-16 units at q, or `units` when there
// is none. Eight units at a time with SSE2 (never reading past the units), then four: a
// 16-bit lane is zero exactly when the lowest lane flagged by (v - 0x0001...) & ~v &
// 0x8000... is. (Inline: generated views call it too.)
inline std::size_t find_nul16(const std::uint8_t* q, std::size_t units) noexcept {
  constexpr std::uint64_t kLow = 0x0001000100010001u, kHigh = 0x8000800080008000u;
  std::size_t k = 0;
#ifdef CLRETW_SSE2
  for (; k + 8 <= units; k += 8) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 2 * k));
    const unsigned zero = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi16(v, _mm_setzero_si128())));
    if (zero) return k + static_cast<std::size_t>(std::countr_zero(zero)) / 2;
  }
#endif
  for (; k + 4 <= units; k += 4) {
    const std::uint64_t v = load_le<std::uint64_t>(q + 2 * k);
    if ((v - kLow) & ~v & kHigh) break;
  }
  while (k < units && load_le<std::uint16_t>(q + 2 * k) != 0) ++k;
  return k;
}
ElementExtent locate_variable(const FieldDesc& f, std::uint64_t length, Bytes payload, std::uint32_t at) noexcept;
}  // namespace detail

// Locates the element of f (not a struct) that starts at payload[at]; `length`
// is the value of f's length extent (ignored when f has none). The status
// says why when the element does not lie within the payload (the problem is
// then at `at`, in field f); on a payload walk() accepted it is always ok.
// Fixed-size types are sized here, inline; strings, binary and SIDs out of line.
inline ElementExtent locate_element(const FieldDesc& f, std::uint64_t length, unsigned pointer_size, Bytes payload,
                                    std::uint32_t at) noexcept {
  if (const unsigned size = scalar_size(f.type, pointer_size); size != 0) {
    if (at > payload.size() || size > payload.size() - at) return {0, 0, Errc::truncated};
    return {size, size};
  }
  return detail::locate_variable(f, length, payload, at);
}

// Checks that one instance of `record` starting at payload[begin] lies within
// the payload - every fixed part present, every string terminated, every
// count and length within bounds, every struct element complete - and stores
// the start offset of each segment in seg (which must hold at least
// layout.segments.size() entries). Returns the offset just past the record.
Result<std::uint32_t> walk(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                           std::uint32_t begin, std::span<std::uint32_t> seg) noexcept;

// Value of extent e of a record instance whose segments start at seg;
// `if_none` when the field has no such extent.
inline std::uint64_t extent_value(const Extent& e, const Layout& l, const std::uint8_t* payload,
                                  const std::uint32_t* seg, std::uint64_t if_none) noexcept {
  switch (e.kind) {
    case Extent::Kind::none: return if_none;
    case Extent::Kind::constant: return e.value;
    case Extent::Kind::field: {
      const FieldPlace& p = l.places[e.value];
      return load_uint(payload + seg[p.seg] + p.off, p.size);
    }
  }
  return if_none;
}

// Number of elements of array field `index` of a record already walked
// (seg as filled by walk()): 1 for a field without a count.
inline std::uint64_t element_count(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                                   std::span<const std::uint32_t> seg, std::uint32_t index) noexcept {
  return extent_value(record.fields[index].count, record.layout_for(pointer_size), payload.data(), seg.data(), 1);
}

// Value of the length extent of field `index` of a walked record: the length
// in code units (strings) or bytes (binary); 0 for a field without one.
inline std::uint64_t element_length(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                                    std::span<const std::uint32_t> seg, std::uint32_t index) noexcept {
  return extent_value(record.fields[index].length, record.layout_for(pointer_size), payload.data(), seg.data(), 0);
}

}  // namespace clretw
