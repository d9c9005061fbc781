// clretw/layout_view.h - what generated layout checks and layout views are made of.
//
// The generator writes a layout it can check in straight-line code (its variable
// items are NUL-terminated strings, or arrays of fixed-size elements counted by a
// constant or an earlier field) as a payload struct's check<PointerSize>(): a chain
// of LayoutCursor steps, each accepting exactly what walk() accepts of the same
// item. Event views call it for each version they merge; the struct's layout view
// (View<PointerSize>) derives from LayoutView, which verifies a payload with it and
// gives payload(), consumed(), trailing_bytes(), for_each_field() and copy_to():
// the view itself declares its accessors (loads at offsets known at generation
// time) and fields(f), which calls f with every accessor's value in wire order.
// (A call with the values as a pack, not a std::tuple of them: the compiler
// instantiates one lambda per view instead of the tuple's machinery per field.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include "clretw/bytes.h"
#include "clretw/layout.h"
#include "clretw/schema.h"
#include "clretw/view.h"

namespace clretw {

// A generated check's position in a payload of n bytes at d; pos is where the next item starts.
// A failed step leaves the cursor anywhere: the payload is rejected.
struct LayoutCursor {
  const std::uint8_t* d;
  std::uint64_t n;
  std::uint64_t pos;

  // A segment whose fixed part is `fixed` bytes: seg is where it starts.
  CLRETW_VIEW_CHECK bool segment(std::uint32_t& seg, std::uint64_t fixed) noexcept {
    if (n - pos < fixed) return false;
    seg = static_cast<std::uint32_t>(pos);
    pos += fixed;
    return true;
  }
  // One item of `size` bytes (a struct of fixed size).
  CLRETW_VIEW_CHECK bool skip(std::uint64_t size) noexcept {
    if (n - pos < size) return false;
    pos += size;
    return true;
  }
  // `count` items of `size` bytes each.
  CLRETW_VIEW_CHECK bool array(std::uint64_t count, std::uint64_t size) noexcept {
    if (count > (n - pos) / size) return false;
    pos += count * size;
    return true;
  }
  // A NUL-terminated UTF-16 string.
  CLRETW_VIEW_CHECK bool utf16z() noexcept {
    const std::uint64_t units = (n - pos) / 2, k = detail::find_nul16(d + pos, units);
    if (k == units) return false;
    pos += 2 * k + 2;
    return true;
  }
  // A NUL-terminated ANSI string.
  CLRETW_VIEW_CHECK bool ansiz() noexcept {
    if (n == pos) return false;
    const void* nul = std::memchr(d + pos, 0, n - pos);
    if (!nul) return false;
    pos = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(nul) - d) + 1;
    return true;
  }
  // The value of a count field of type T at payload offset `at` (inside what the check accepted so far).
  template <class T>
  CLRETW_VIEW_CHECK std::uint64_t count(std::uint64_t at) const noexcept {
    return load_le<T>(d + at);
  }
};

namespace detail {

// One field of a layout view copied into the member of an owning struct it stands for.
template <class V, class M>
void copy_field(const V& v, M& m) {
  if constexpr (requires { v.append_utf8(m); }) {
    v.append_utf8(m);  // UTF-16 text into a std::string (empty: the struct is as constructed)
  } else if constexpr (requires { v[0].copy_to(m[0]); }) {
    m.resize(v.size());  // struct array: element views into element structs
    for (std::size_t k = 0; k < v.size(); ++k) v[k].copy_to(m[k]);
  } else if constexpr (requires { m.assign(v.begin(), v.end()); }) {
    m.assign(v.begin(), v.end());  // ANSI text, bytes, scalar arrays
  } else {
    m = v;
  }
}

}  // namespace detail

// What every layout view shares. `View` is the generated view (View<PointerSize> of payload struct
// `Payload`), `Segs` the number of segments of its layout, and `Size` its size when it has one
// segment and no variable item (then an ElementRange can hold it), else kVariable.
template <class View, class Payload, unsigned PointerSize, std::size_t Segs, std::size_t Size = kVariable>
class LayoutView {
  static_assert(PointerSize == 4 || PointerSize == 8, "pointers are 4 or 8 bytes");

 public:
  // The view of `payload` once Payload::check() accepts it; bytes after the layout (what a newer
  // version appended) are skipped.
  static std::optional<View> verify(Bytes payload) noexcept {
    View v;
    if (!v.check(payload)) return std::nullopt;
    return v;
  }
  Bytes payload() const noexcept { return {p_, size_}; }
  // The bytes the layout accounts for, and those after it.
  std::size_t consumed() const noexcept { return end_; }
  std::size_t trailing_bytes() const noexcept { return size_ - end_; }

  // Calls f(field name, value) for every field, in wire order (the name is a std::string_view).
  template <class F>
  void for_each_field(F&& f) const {
    [[maybe_unused]] const auto& d = Payload::record().fields;
    self().fields([&](const auto&... value) {
      [[maybe_unused]] std::size_t i = 0;
      (f(d[i++].name, value), ...);
    });
  }
  // Copies every field into an owning struct as it is after construction (what decode() does when
  // the payload verifies).
  void copy_to(Payload& out) const {
    Payload::fields(out, [&](auto&... member) {
      self().fields([&](const auto&... value) { (detail::copy_field(value, member), ...); });
    });
  }

 protected:
  const std::uint8_t* p_ = nullptr;
  std::size_t size_ = 0, end_ = 0;
  std::uint32_t seg_[Segs] = {};  // where each segment starts (the first at 0)

 private:
  template <class>
  friend class ElementRange;
  static constexpr std::size_t kSize = Size;

  const View& self() const noexcept { return static_cast<const View&>(*this); }

  bool check(Bytes payload) noexcept {
    if constexpr (Size == kVariable) {
      if (payload.size() >= 0xFFFFFFFFu) return false;  // segment starts are 32-bit
    }
    LayoutCursor c{payload.data(), payload.size(), 0};
    if (!Payload::template check<PointerSize>(c, seg_)) return false;
    p_ = c.d;
    size_ = c.n;
    end_ = c.pos;
    return true;
  }
  // An element of an ElementRange, from bytes its parent's check accepted.
  static View at(const std::uint8_t* element) noexcept
    requires(Size != kVariable)
  {
    View v;
    v.p_ = element;
    v.size_ = v.end_ = kSize;
    return v;
  }
};

// The bytes a payload of struct P consumes by P's straight-line check (check<PointerSize>, what its
// layout view verifies with), or kVariable when the check rejects it (or the pointer size is neither 4 nor
// 8); seg (kMaxSegments entries) receives where each segment starts. The generated tables'
// RecordDesc::check: check_fields() asks it first (it walks the layout for the error), and
// decode_payload() reads the fields at the places it finds.
template <class P>
std::uint32_t check_layout(Bytes payload, unsigned pointer_size, std::uint32_t* seg) noexcept {
  if (payload.size() >= kVariable) return kVariable;  // segment starts are 32-bit
  LayoutCursor c{payload.data(), payload.size(), 0};
  const bool ok = pointer_size == 8   ? P::template check<8>(c, seg)
                  : pointer_size == 4 ? P::template check<4>(c, seg)
                                      : false;
  return ok ? static_cast<std::uint32_t>(c.pos) : kVariable;
}

}  // namespace clretw
