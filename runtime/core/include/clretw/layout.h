// clretw/layout.h - the layout engine: the one place that knows where the
// fields of a payload are.
//
// compute_layout() turns a record's fields into segments and field places for
// one pointer size; clretw-gen runs it when generating (the results become the
// constexpr tables behind the views) and the schema builder runs it for
// manifests loaded at run time. walk() checks a payload against a layout and
// finds where each segment starts - it is how views verify, how decode() and
// the dynamic decoder locate fields, and how payload sizes are validated.
#pragma once

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

// Checks that one instance of `record` starting at payload[begin] lies within
// the payload - every fixed part present, every string terminated, every
// count and length within bounds, every struct element complete - and stores
// the start offset of each segment in seg (which must hold at least
// layout.segments.size() entries). Returns the offset just past the record.
Result<std::uint32_t> walk(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                           std::uint32_t begin, std::span<std::uint32_t> seg) noexcept;

// Number of elements of array field `index` of a record already walked
// (seg as filled by walk()).
std::uint64_t element_count(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                            std::span<const std::uint32_t> seg, std::uint32_t index) noexcept;

// Value of an integer field of a walked record, zero-extended (sign-extended
// for signed types, then reinterpreted).
std::uint64_t read_integer(const RecordDesc& record, unsigned pointer_size, Bytes payload,
                           std::span<const std::uint32_t> seg, std::uint32_t index) noexcept;

}  // namespace clretw
