// clretw/view.h - what generated zero-copy views are built from.
//
// A generated view merges every version of one event. Its factory checks the
// payload once: in generated straight-line code where the generator could write
// the layout out (quick(), which calls the check<PointerSize>() of the version's
// payload struct (layout_view.h) and ends in verified()), else with the layout engine
// (layout.h's walk(), through init()); afterwards each accessor is a table
// lookup (field location for this version and pointer size) and an unaligned
// load. Where a string's text ends and where the next element of a
// string or struct array starts, the layout engine says (string_text,
// locate_element, walk). Arrays come back as ArrayView, strings as Utf16View, struct
// arrays as RecordRange of element views. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "clretw/bytes.h"
#include "clretw/guid.h"
#include "clretw/layout.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/schema.h"
#include "clretw/text.h"

// A generated view's check of its layouts is inlined into verify(): one call per payload,
// not two, and no arguments passed to a function larger than the inliner would take.
#if defined(__GNUC__)
#define CLRETW_VIEW_CHECK __attribute__((always_inline)) inline
#elif defined(_MSC_VER)
#define CLRETW_VIEW_CHECK __forceinline
#else
#define CLRETW_VIEW_CHECK inline
#endif

namespace clretw {

// SYSTEMTIME as written on the wire.
struct SystemTime {
  std::uint16_t year, month, day_of_week, day, hour, minute, second, milliseconds;
  friend constexpr bool operator==(const SystemTime&, const SystemTime&) = default;
  static SystemTime load(const std::uint8_t* p) noexcept {
    SystemTime t{};
    std::uint16_t* f[] = {&t.year, &t.month, &t.day_of_week, &t.day, &t.hour, &t.minute, &t.second, &t.milliseconds};
    for (int i = 0; i < 8; ++i) *f[i] = load_le<std::uint16_t>(p + 2 * i);
    return t;
  }
  void store(ByteWriter& w) const {
    for (std::uint16_t v : {year, month, day_of_week, day, hour, minute, second, milliseconds}) w.put(v);
  }
};

// Where a field lives in one version of a record, for one pointer size.
// Generated views hold a [version][pointer size] table of these per field, or one per
// version, one per pointer size, or a single one, over the versions that have the field
// (the accessor tests the view's version for the others, whose rows are FieldLoc{}).
// The payload struct of event versions without a payload (payload.h); declared here for the event
// types beside the views, which name it without needing it whole.
struct EmptyPayload;

struct FieldLoc {
  bool present = false;     // false in the row of a version without the field
  std::uint8_t flags = 0;   // kTerminated: a NUL-terminated string (or array of them)
  std::uint16_t index = 0;  // field index in that version's record
  std::uint32_t seg = 0;    // segment, as in FieldPlace
  std::uint32_t off = 0;    // offset from the segment start
  std::uint32_t size = 0;   // bytes, or kVariable (the item then ends where the next segment starts)
  std::uint32_t width = 0;  // scalar width; array element width (0: elements vary in size);
                            // for counted strings, their fixed length in units (informative:
                            // string elements are located by the layout engine)
};
inline constexpr std::uint8_t kTerminated = 1;

// A present field: loc(index, seg, off, size, width[, flags]). Absent: FieldLoc{}.
constexpr FieldLoc loc(std::uint16_t index, std::uint32_t seg, std::uint32_t off, std::uint32_t size,
                       std::uint32_t width, std::uint8_t flags = 0) noexcept {
  return FieldLoc{true, flags, index, seg, off, size, width};
}

// One event version a view understands.
struct ViewVersion {
  std::uint8_t version;
  const RecordDesc* record;  // nullptr: that version has no payload
};

// Reads a scalar of a type the manifest describes into a C++ value type.
template <class T>
inline T load_value(const std::uint8_t* p, unsigned width) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return load_uint(p, width) != 0;
  } else if constexpr (std::is_same_v<T, Guid>) {
    return Guid::load(p);
  } else if constexpr (std::is_same_v<T, SystemTime>) {
    return SystemTime::load(p);
  } else if constexpr (std::is_floating_point_v<T>) {
    return width == 4 ? static_cast<T>(load_le<float>(p)) : static_cast<T>(load_le<double>(p));
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(load_uint(p, width));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(load_int(p, width));
  } else {
    return static_cast<T>(load_uint(p, width));
  }
}

namespace detail {
template <unsigned W> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = std::uint64_t; };
}  // namespace detail

// load_value() for a width known at compile time: one plain load.
template <class T, unsigned W>
inline T load_value_w(const std::uint8_t* p) noexcept {
  if constexpr (std::is_same_v<T, Guid>) {
    return Guid::load(p);
  } else if constexpr (std::is_same_v<T, SystemTime>) {
    return SystemTime::load(p);
  } else if constexpr (std::is_floating_point_v<T>) {
    if constexpr (W == 4) return static_cast<T>(load_le<float>(p));
    else return static_cast<T>(load_le<double>(p));
  } else {
    using U = typename detail::uint_of<W>::type;
    if constexpr (std::is_same_v<T, bool>) return load_le<U>(p) != 0;
    else if constexpr (std::is_enum_v<T>) return static_cast<T>(load_le<U>(p));
    else if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::make_signed_t<U>>(load_le<U>(p)));
    else return static_cast<T>(load_le<U>(p));
  }
}

// The forward iterator of the ranges below (ArrayView, StringArray,
// RecordRange): element i of the range's size(), and the range's State for
// it. The range says where the first element is (first()), what an element
// is (get()) and where the next one starts (advance()); advance() is only
// asked for elements that exist, so no range looks past its last element.
// It names no iterator_category: the tags are declared in <iterator>, which would cost every file that
// includes a view a tenth of a second to compile. C++20's iterator_traits work the category out
// (input, as an element is handed out by value) and the ranges concepts see a forward iterator.
template <class Range>
class RangeIterator {
 public:
  using value_type = typename Range::value_type;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  RangeIterator() = default;
  RangeIterator(const Range* r, std::size_t i) : r_(r), i_(i) {
    if (i_ < r_->size()) state_ = r_->first();
  }
  value_type operator*() const noexcept { return r_->get(state_); }
  RangeIterator& operator++() noexcept {
    if (++i_ < r_->size()) r_->advance(state_);
    return *this;
  }
  RangeIterator operator++(int) noexcept { auto t = *this; ++*this; return t; }
  friend bool operator==(const RangeIterator& a, const RangeIterator& b) { return a.i_ == b.i_; }

 private:
  const Range* r_ = nullptr;
  std::size_t i_ = 0;
  typename Range::State state_{};
};

// A random-access range of fixed-size scalars inside a payload.
template <class T>
class ArrayView {
 public:
  ArrayView() = default;
  ArrayView(const std::uint8_t* data, std::size_t count, unsigned width) : data_(data), count_(count), width_(width) {}

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  T operator[](std::size_t i) const noexcept { return load_value<T>(data_ + i * width_, width_); }

  using value_type = T;
  using iterator = RangeIterator<ArrayView>;
  iterator begin() const noexcept { return {this, 0}; }
  iterator end() const noexcept { return {this, count_}; }

 private:
  friend iterator;
  using State = const std::uint8_t*;
  State first() const noexcept { return data_; }
  T get(State p) const noexcept { return load_value<T>(p, width_); }
  void advance(State& p) const noexcept { p += width_; }

  const std::uint8_t* data_ = nullptr;
  std::size_t count_ = 0;
  unsigned width_ = 0;
};

// Strings of an array of strings (count on a string field): a forward range.
// Each step asks the layout engine where the element ends.
template <class Char>
class StringArray {
 public:
  using value_type = std::conditional_t<std::is_same_v<Char, char16_t>, Utf16View, std::string_view>;
  StringArray() = default;
  // `length`: the value of the field's length extent (0 when it has none).
  StringArray(const FieldDesc* field, Bytes payload, std::uint32_t begin, std::size_t count, std::uint64_t length,
              unsigned ps)
      : field_(field), payload_(payload), begin_(begin), count_(count), length_(length), ps_(static_cast<std::uint8_t>(ps)) {}
  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  using iterator = RangeIterator<StringArray>;
  iterator begin() const noexcept { return {this, 0}; }
  iterator end() const noexcept { return {this, count_}; }

 private:
  friend iterator;
  struct State {
    std::uint32_t pos = 0;  // where the element starts
    ElementExtent extent;   // its size and text, from the layout engine
  };
  // The view's factory verified every element: locating cannot fail here.
  State at(std::uint32_t pos) const noexcept { return {pos, locate_element(*field_, length_, ps_, payload_, pos)}; }
  State first() const noexcept { return at(begin_); }
  void advance(State& s) const noexcept { s = at(s.pos + s.extent.size); }
  value_type get(const State& s) const noexcept {
    const std::uint8_t* p = payload_.data() + s.pos;
    if constexpr (std::is_same_v<Char, char16_t>) return Utf16View(p, s.extent.text / 2);
    else return std::string_view(reinterpret_cast<const char*>(p), s.extent.text);
  }

  const FieldDesc* field_ = nullptr;
  Bytes payload_;
  std::uint32_t begin_ = 0;
  std::size_t count_ = 0;
  std::uint64_t length_ = 0;
  std::uint8_t ps_ = 8;
};

template <class Elem>
class RecordRange;

// The elements of a struct array whose elements all have one size, as layout views
// (a payload struct's View<PointerSize>): element i starts at data + i * Elem::kSize.
// The parent view's verify() checked that all of them lie within the payload.
template <class Elem>
class ElementRange {
 public:
  ElementRange() = default;
  ElementRange(const std::uint8_t* data, std::size_t count) noexcept : data_(data), count_(count) {}

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  Elem operator[](std::size_t i) const noexcept { return make(data_ + i * kStride); }

  class iterator {  // no iterator_category, as RangeIterator
   public:
    using value_type = Elem;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Elem;
    iterator() = default;
    Elem operator*() const noexcept { return make(p_); }
    iterator& operator++() noexcept {
      p_ += kStride;
      return *this;
    }
    iterator operator++(int) noexcept { auto t = *this; ++*this; return t; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.p_ == b.p_; }

   private:
    friend class ElementRange;
    explicit iterator(const std::uint8_t* p) : p_(p) {}
    const std::uint8_t* p_ = nullptr;
  };
  using value_type = Elem;
  iterator begin() const noexcept { return iterator(data_); }
  iterator end() const noexcept { return iterator(data_ + count_ * kStride); }

 private:
  // Elements are made here only (Elem befriends this class), from verified bytes.
  static constexpr std::size_t kStride = Elem::kSize;
  static Elem make(const std::uint8_t* p) noexcept { return Elem::at(p); }

  const std::uint8_t* data_ = nullptr;
  std::size_t count_ = 0;
};

// State and helpers shared by every generated view and element view.
// `Segs` is the largest segment count over the versions the view merges.
template <std::size_t Segs>
class ViewBase {
 public:
  // The version the event was recorded with.
  std::uint8_t version() const noexcept { return version_; }
  // The manifest version whose layout decoded it (lower when the event is newer than the manifest).
  std::uint8_t layout_version() const noexcept { return layout_version_; }
  bool newer_than_manifest() const noexcept { return version_ > layout_version_; }
  unsigned pointer_size() const noexcept { return ps8_ ? 8 : 4; }
  Bytes payload() const noexcept { return {p_, size_}; }
  // Bytes of the payload the layout accounts for; the rest are trailing bytes
  // (fields a newer runtime appended, or padding).
  std::uint32_t consumed() const noexcept { return end_ - begin_; }
  std::uint32_t trailing_bytes() const noexcept { return size_ - end_; }

 protected:
  // Verifies `payload` against the layout of the best version in `versions`
  // (the exact one, else the highest below `version`) and returns the view.
  template <class V>
  static Result<V> make(std::span<const ViewVersion> versions, Bytes payload, unsigned version, unsigned ps) noexcept {
    std::size_t vi = versions.size();
    for (std::size_t i = 0; i < versions.size() && versions[i].version <= version; ++i) vi = i;
    if (vi == versions.size()) return Error{Errc::wrong_event, 0, {}, "version older than any in the manifest"};
    V v;
    if (Status s = v.init(versions[vi].record, payload, static_cast<std::uint8_t>(vi), version, versions[vi].version, ps, 0);
        !s)
      return std::move(s).error();
    return v;
  }
  // The same for an EventRecord, after checking it is this event.
  template <class V>
  static Result<V> make(std::span<const ViewVersion> versions, const EventRecord& r, const Guid& provider,
                        std::uint16_t id, std::string_view name) noexcept {
    if (r.provider_guid != provider || r.id != id) return Error{Errc::wrong_event, 0, name};
    return make<V>(versions, r.payload, r.version, r.pointer_size);
  }
  // An element view at payload[begin] (element records are verified as part of their parent).
  template <class V>
  static V make_at(const RecordDesc* record, Bytes payload, std::uint32_t begin, std::uint8_t vi, std::uint8_t version,
                   unsigned ps) noexcept {
    V v;
    (void)v.init(record, payload, vi, version, version, ps, begin);
    return v;
  }

  Status init(const RecordDesc* record, Bytes payload, std::uint8_t vi, unsigned version, unsigned layout_version,
              unsigned ps, std::uint32_t begin) noexcept {
    if (ps != 4 && ps != 8) return Error{Errc::bad_pointer_size, ps, {}};
    p_ = payload.data();
    size_ = static_cast<std::uint32_t>(payload.size());
    rec_ = record;
    vi_ = vi;
    ps8_ = ps == 8;
    version_ = static_cast<std::uint8_t>(version);
    layout_version_ = static_cast<std::uint8_t>(layout_version);
    begin_ = end_ = begin;
    if (!record) return {};
    // A layout without variable-size items has one segment: checking the size is the whole walk.
    const Layout& l = record->layout_for(ps);
    if (l.fixed() && l.segments[0].var_field == kNoField && begin <= size_ && size_ - begin >= l.min_size) {
      seg_[0] = begin;
      end_ = begin + l.min_size;
      return {};
    }
    auto end = walk(*record, ps, payload, begin, seg_);
    if (!end) return std::move(end).error();
    end_ = *end;
    return {};
  }

  // What a generated view's straight-line check of a layout sets once it has accepted the
  // payload (it fills seg_ itself): the state init() leaves after walk() accepts the same bytes.
  bool verified(Bytes payload, const RecordDesc* record, unsigned vi, unsigned version, unsigned layout_version,
                bool ps8, std::uint32_t begin, std::uint64_t end) noexcept {
    p_ = payload.data();
    size_ = static_cast<std::uint32_t>(payload.size());
    rec_ = record;
    vi_ = static_cast<std::uint8_t>(vi);
    ps8_ = ps8;
    version_ = static_cast<std::uint8_t>(version);
    layout_version_ = static_cast<std::uint8_t>(layout_version);
    begin_ = begin;
    end_ = static_cast<std::uint32_t>(end);
    return true;
  }

  const std::uint8_t* at(const FieldLoc& l) const noexcept { return p_ + seg_[l.seg] + l.off; }
  std::uint32_t bytes_of(const FieldLoc& l) const noexcept {
    return l.size != kVariable ? l.size : seg_[l.seg + 1] - seg_[l.seg] - l.off;
  }
  std::uint64_t count_of(const FieldLoc& l) const noexcept {
    return element_count(*rec_, pointer_size(), payload(), seg_, l.index);
  }

  // What `read` gives when the view's version has the field; nullopt otherwise.
  template <class F>
  static auto present_if(bool present, F read) noexcept -> std::optional<decltype(read())> {
    if (!present) return std::nullopt;
    return read();
  }

  template <class T>
  T get(const FieldLoc& l) const noexcept { return load_value<T>(at(l), l.width); }
  // The same for a field W bytes wide (at this pointer size, in this version).
  template <class T, unsigned W>
  T get_w(const FieldLoc& l) const noexcept { return load_value_w<T, W>(at(l)); }

  // The text of a string: without its terminator, or without the NULs that
  // pad a counted string (layout.h's string_text).
  Utf16View utf16(const FieldLoc& l) const noexcept {
    return Utf16View(at(l), string_text(at(l), bytes_of(l), 2, l.flags & kTerminated) / 2);
  }
  std::string_view ansi(const FieldLoc& l) const noexcept {
    return {reinterpret_cast<const char*>(at(l)), string_text(at(l), bytes_of(l), 1, l.flags & kTerminated)};
  }
  Bytes bytes(const FieldLoc& l) const noexcept { return {at(l), bytes_of(l)}; }
  template <class T>
  ArrayView<T> array(const FieldLoc& l) const noexcept {
    return ArrayView<T>(at(l), bytes_of(l) / l.width, l.width);
  }
  template <class Char>
  StringArray<Char> strings(const FieldLoc& l) const noexcept {
    return StringArray<Char>(&rec_->fields[l.index], payload(), seg_[l.seg] + l.off, count_of(l),
                             element_length(*rec_, pointer_size(), payload(), seg_, l.index), pointer_size());
  }
  template <class E>
  RecordRange<E> records(const FieldLoc& l) const noexcept {
    return RecordRange<E>(payload(), seg_[l.seg] + l.off, count_of(l), l.width, vi_, version_, pointer_size());
  }

  const std::uint8_t* p_ = nullptr;
  const RecordDesc* rec_ = nullptr;
  std::uint32_t size_ = 0, begin_ = 0, end_ = 0;  // the payload's size; where this record starts and ends in it
  std::uint8_t vi_ = 0, ps8_ = 0;                  // index in the view's versions; pointer size is 8
  std::uint8_t version_ = 0, layout_version_ = 0;  // as version() and layout_version() say
  std::uint32_t seg_[Segs] = {};                   // where each segment of the record starts

  template <class>
  friend class RecordRange;
};

// The elements of a struct array, as element views. Elements of fixed size are
// found by index; others by walking from the previous one (forward only).
template <class Elem>
class RecordRange {
 public:
  RecordRange() = default;
  RecordRange(Bytes payload, std::uint32_t begin, std::size_t count, std::uint32_t stride, std::uint8_t vi,
              unsigned version, unsigned ps)
      : payload_(payload), begin_(begin), count_(count), stride_(stride), vi_(vi), version_(static_cast<std::uint8_t>(version)),
        ps_(static_cast<std::uint8_t>(ps)) {}

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  using value_type = Elem;
  using iterator = RangeIterator<RecordRange>;
  // Element i; O(1) when elements have a fixed size, O(i) otherwise.
  Elem operator[](std::size_t i) const noexcept {
    if (stride_) return make(begin_ + static_cast<std::uint32_t>(i) * stride_);
    auto it = begin();
    for (std::size_t k = 0; k < i; ++k) ++it;
    return *it;
  }
  iterator begin() const noexcept { return {this, 0}; }
  iterator end() const noexcept { return {this, count_}; }

 private:
  friend iterator;
  // The current element's view: it knows where it ends, so each element is walked once.
  using State = std::optional<Elem>;
  Elem make(std::uint32_t pos) const noexcept { return Elem::at(payload_, pos, vi_, version_, ps_); }
  State first() const noexcept { return make(begin_); }
  Elem get(const State& e) const noexcept { return *e; }
  void advance(State& e) const noexcept {
    if (stride_) {  // a fixed-size element is one segment: the next is this one moved by the stride
      e->begin_ += stride_;
      e->end_ += stride_;
      e->seg_[0] += stride_;
    } else {
      e = make(e->end_);
    }
  }

  Bytes payload_;
  std::uint32_t begin_ = 0;
  std::size_t count_ = 0;
  std::uint32_t stride_ = 0;
  std::uint8_t vi_ = 0, version_ = 0, ps_ = 8;
};

}  // namespace clretw
