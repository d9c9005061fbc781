// clretw/payload.h - decode and encode for generated owning payload structs.
//
// A generated payload struct declares its members (manifest names, owning C++
// types), lists them once in a static fields(s, f) (which calls f with all of them,
// in wire order), and has a static for_each_field(s, f), which calls f(FieldDesc, member)
// for every field of s in wire order (detail::for_each_member below;
// clretw::for_each_field is the generic spelling). The two templates here do the rest:
//   decode_payload<P>(bytes, ps)  copies every field out: through P's layout view
//                                 where it has one, else (and to say what is
//                                 wrong) by walking the layout engine, as
//                                 decode_payload_generic<P> always does;
//   encode_payload(p, ps)         writes the fields in order, as the runtime
//                                 does - it never consults the layout, so a
//                                 round trip checks one against the other.
// Count and length fields must agree with the containers they describe;
// encode reports count_mismatch otherwise rather than guess which is right.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/layout.h"
#include "clretw/result.h"
#include "clretw/schema.h"
#include "clretw/text.h"
#include "clretw/view.h"

namespace clretw {

namespace detail {

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
concept PayloadRecord = requires { T::record(); };

// Calls f(field descriptor, member) for every member of a generated payload struct s, in wire order
// (S::fields(s, f) lists them): what its for_each_field(s, f) does.
template <class S, class F>
void for_each_member(S& s, F& f) {
  using P = std::remove_const_t<S>;
  [[maybe_unused]] const auto& d = P::record().fields;
  P::fields(s, [&](auto&... m) {
    [[maybe_unused]] std::size_t i = 0;
    (f(d[i++], m), ...);
  });
}

// Integer value of a member, for count/length checks (0 for non-integers).
template <class M>
std::uint64_t integer_of(const M& m) {
  if constexpr (std::is_enum_v<M>) return static_cast<std::uint64_t>(m);
  else if constexpr (std::is_integral_v<M>) return static_cast<std::uint64_t>(m);
  else return 0;
}

class PayloadReader {
 public:
  PayloadReader(Bytes payload, unsigned ps) : payload_(payload), ps_(ps) {}

  // Reads one verified record instance whose segment starts are in seg.
  template <class P>
  void record(P& out, const RecordDesc& r, const std::uint32_t* seg) const {
    P::for_each_field(out, [&](const FieldDesc& f, auto& member) {
      const auto i = static_cast<std::uint32_t>(&f - r.fields.data());
      field(member, f, r, i, seg);
    });
  }

 private:
  template <class M>
  void field(M& m, const FieldDesc& f, const RecordDesc& r, std::uint32_t i, const std::uint32_t* seg) const {
    const Layout& l = r.layout_for(ps_);
    const FieldPlace& place = l.places[i];
    std::uint32_t at = seg[place.seg] + place.off;
    if constexpr (!is_vector<M>::value && !std::is_same_v<M, std::string>) {
      m = load_value<M>(payload_.data() + at, place.size);  // a scalar: the layout placed and sized it
      return;
    }
    const std::span<const std::uint32_t> segs(seg, l.segments.size());
    const std::uint64_t length = element_length(r, ps_, payload_, segs, i);
    if constexpr (is_vector<M>::value && !std::is_same_v<M, std::vector<std::uint8_t>>) {
      using E = typename M::value_type;
      const std::uint64_t n = element_count(r, ps_, payload_, segs, i);
      m.clear();
      m.reserve(static_cast<std::size_t>(n));
      for (std::uint64_t k = 0; k < n; ++k) m.push_back(element<E>(f, length, at));
    } else if constexpr (std::is_same_v<M, std::vector<std::uint8_t>>) {
      if (f.count.kind != Extent::Kind::none) {  // an array of UInt8/Int8
        const std::uint64_t n = element_count(r, ps_, payload_, segs, i);
        m.assign(payload_.data() + at, payload_.data() + at + n);
      } else {
        m = element<M>(f, length, at);
      }
    } else {
      m = element<M>(f, length, at);
    }
  }

  // One element of f at `at`; advances `at` past it.
  template <class E>
  E element(const FieldDesc& f, std::uint64_t length, std::uint32_t& at) const {
    const std::uint8_t* p = payload_.data() + at;
    if constexpr (PayloadRecord<E>) {
      std::uint32_t seg[kMaxSegments];
      auto end = walk(*f.members, ps_, payload_, at, seg);  // verified by the caller's walk
      E e{};
      record(e, *f.members, seg);
      at = end ? *end : static_cast<std::uint32_t>(payload_.size());
      return e;
    } else if constexpr (std::is_same_v<E, std::string> || std::is_same_v<E, std::vector<std::uint8_t>>) {
      const ElementExtent e = locate_element(f, length, ps_, payload_, at);
      at += e.size;
      if constexpr (std::is_same_v<E, std::vector<std::uint8_t>>) return E(p, p + e.text);
      else if (f.type == InType::UnicodeString) return Utf16View(p, e.text / 2).to_utf8();
      else return std::string(reinterpret_cast<const char*>(p), e.text);
    } else {
      const unsigned w = scalar_size(f.type, ps_);
      at += w;
      return load_value<E>(p, w);
    }
  }

  Bytes payload_;
  unsigned ps_;
};

class PayloadWriter {
 public:
  PayloadWriter(ByteWriter& w, unsigned ps) : w_(w), ps_(ps) {}

  template <class P>
  Status record(const P& p, const RecordDesc& r) {
    std::vector<std::uint64_t> ints(r.fields.size());
    P::for_each_field(p, [&](const FieldDesc& f, const auto& m) { ints[static_cast<std::size_t>(&f - r.fields.data())] = integer_of(m); });
    Status status;
    P::for_each_field(p, [&](const FieldDesc& f, const auto& m) {
      if (status) status = field(m, f, r, ints);
    });
    return status;
  }

 private:
  Error fail(Errc code, const FieldDesc& f, std::string detail) const {
    return Error{code, w_.size(), f.name, std::move(detail)};
  }

  // Checks that `actual` matches the extent e (a constant, or the value of the field it names).
  Status check_extent(const Extent& e, std::uint64_t actual, const RecordDesc& r, const std::vector<std::uint64_t>& ints,
                      const FieldDesc& f, const char* what) {
    if (e.kind == Extent::Kind::none) return {};
    const std::uint64_t expected = e.kind == Extent::Kind::constant ? e.value : ints[e.value];
    if (expected == actual) return {};
    std::string detail = std::string(what) + " is " + std::to_string(actual) + " but ";
    detail += e.kind == Extent::Kind::constant ? "the manifest fixes it at " + std::to_string(expected)
                                               : std::string(r.fields[e.value].name) + " says " + std::to_string(expected);
    return fail(Errc::count_mismatch, f, std::move(detail));
  }

  template <class M>
  Status field(const M& m, const FieldDesc& f, const RecordDesc& r, const std::vector<std::uint64_t>& ints) {
    if constexpr (is_vector<M>::value && !std::is_same_v<M, std::vector<std::uint8_t>>) {
      if (Status s = check_extent(f.count, m.size(), r, ints, f, "the number of elements"); !s) return s;
      for (const auto& e : m)
        if (Status s = element(e, f, r, ints); !s) return s;
      return {};
    } else if constexpr (std::is_same_v<M, std::vector<std::uint8_t>>) {
      if (f.count.kind != Extent::Kind::none) {
        if (Status s = check_extent(f.count, m.size(), r, ints, f, "the number of elements"); !s) return s;
        w_.bytes(m.data(), m.size());
        return {};
      }
      return element(m, f, r, ints);
    } else {
      return element(m, f, r, ints);
    }
  }

  template <class E>
  Status element(const E& e, const FieldDesc& f, const RecordDesc& r, const std::vector<std::uint64_t>& ints) {
    if constexpr (PayloadRecord<E>) {
      return record(e, *f.members);
    } else if constexpr (std::is_same_v<E, std::string>) {
      if (e.find('\0') != std::string::npos) return fail(Errc::value_out_of_range, f, "string contains NUL");
      const bool unicode = f.type == InType::UnicodeString;
      const std::uint64_t units = unicode ? utf16_length(e) : e.size();
      if (f.length.kind == Extent::Kind::field) {
        if (Status s = check_extent(f.length, units, r, ints, f, "the string length"); !s) return s;
      } else if (f.length.kind == Extent::Kind::constant && units > f.length.value) {
        return fail(Errc::value_out_of_range, f, "string longer than its fixed length " + std::to_string(f.length.value));
      }
      if (unicode) put_utf16(w_, e);
      else w_.bytes(e.data(), e.size());
      const std::uint64_t pad = f.length.kind == Extent::Kind::constant ? f.length.value - units
                                : f.length.kind == Extent::Kind::none    ? 1
                                                                        : 0;
      w_.zeros(static_cast<std::size_t>(pad * (unicode ? 2 : 1)));
      return {};
    } else if constexpr (std::is_same_v<E, std::vector<std::uint8_t>>) {
      if (f.type == InType::Sid) {
        if (e.size() < 8 || e.size() != sid_size(e[1])) return fail(Errc::value_out_of_range, f, "not a SID");
      } else if (Status s = check_extent(f.length, e.size(), r, ints, f, "the binary length"); !s) {
        return s;
      }
      w_.bytes(e.data(), e.size());
      return {};
    } else if constexpr (std::is_same_v<E, Guid> || std::is_same_v<E, SystemTime>) {
      e.store(w_);
      return {};
    } else if constexpr (std::is_floating_point_v<E>) {
      if (f.type == InType::Float) w_.put(static_cast<float>(e));
      else w_.put(static_cast<double>(e));
      return {};
    } else if constexpr (std::is_same_v<E, bool>) {
      w_.put_uint(e ? 1 : 0, scalar_size(f.type, ps_));
      return {};
    } else {
      const unsigned width = scalar_size(f.type, ps_);
      const std::uint64_t v = integer_of(e);
      if (width < 8 && !std::is_signed_v<E> && (v >> (8 * width)) != 0)
        return fail(Errc::value_out_of_range, f, std::to_string(v) + " does not fit in " + std::to_string(width) + " bytes");
      w_.put_uint(v, width);
      return {};
    }
  }

  ByteWriter& w_;
  unsigned ps_;
};

}  // namespace detail

// The payload struct of events that have no template.
struct EmptyPayload {
  static const RecordDesc& record() noexcept;
  static Result<EmptyPayload> decode(Bytes payload, unsigned pointer_size);
  Result<std::vector<std::uint8_t>> encode(unsigned pointer_size) const;
  template <class S, class F>
  static void for_each_field(S&, F&&) {}
  friend bool operator==(const EmptyPayload&, const EmptyPayload&) = default;
};

// Calls f(const FieldDesc&, member) for every field of a generated payload
// struct, in wire order; members are const when p is.
template <class P, class F>
  requires detail::PayloadRecord<std::remove_const_t<P>>
void for_each_field(P& p, F&& f) {
  std::remove_const_t<P>::for_each_field(p, std::forward<F>(f));
}

// Decodes a payload into a generated payload struct P.
// Decodes a payload into a generated payload struct P by the layout engine alone: what
// decode_payload() falls back to, and what its fast path is tested against.
template <class P>
Result<P> decode_payload_generic(Bytes payload, unsigned pointer_size) {
  const RecordDesc& r = P::record();
  std::uint32_t seg[kMaxSegments];
  auto end = walk(r, pointer_size, payload, 0, seg);
  if (!end) return std::move(end).error();
  P out{};
  detail::PayloadReader(payload, pointer_size).record(out, r, seg);
  return out;
}

// Decodes a payload into a generated payload struct P. A struct with a layout view
// (View<PointerSize>, generated where the layout allows) is filled from it: one
// straight-line check and loads at known offsets. The layout engine reads the others,
// and says what is wrong with a payload the view rejects.
template <class P>
Result<P> decode_payload(Bytes payload, unsigned pointer_size) {
  if constexpr (requires { typename P::template View<8>; }) {
    auto copied = [](const auto& view) {
      P out{};
      view.copy_to(out);
      return out;
    };
    if (pointer_size == 8) {
      if (auto v = P::template View<8>::verify(payload)) return copied(*v);
    } else if (pointer_size == 4) {
      if (auto v = P::template View<4>::verify(payload)) return copied(*v);
    }
  }
  return decode_payload_generic<P>(payload, pointer_size);
}

// The bytes a payload of struct P consumes by P's layout view, or kVariable when the view
// rejects it (or the pointer size is neither 4 nor 8): the generated tables' RecordDesc::check,
// which check_fields() asks first (it walks the layout for the error).
template <class P>
std::uint32_t check_layout(Bytes payload, unsigned pointer_size) noexcept {
  if (pointer_size == 8) {
    if (auto v = P::template View<8>::verify(payload)) return static_cast<std::uint32_t>(v->consumed());
  } else if (pointer_size == 4) {
    if (auto v = P::template View<4>::verify(payload)) return static_cast<std::uint32_t>(v->consumed());
  }
  return kVariable;
}

// Encodes a generated payload struct as the runtime writes it.
template <class P>
Result<std::vector<std::uint8_t>> encode_payload(const P& p, unsigned pointer_size) {
  if (pointer_size != 4 && pointer_size != 8) return Error{Errc::bad_pointer_size, pointer_size, P::record().name};
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  if (Status s = detail::PayloadWriter(w, pointer_size).record(p, P::record()); !s) return std::move(s).error();
  return out;
}

inline Result<EmptyPayload> EmptyPayload::decode(Bytes payload, unsigned pointer_size) {
  return decode_payload<EmptyPayload>(payload, pointer_size);
}
inline Result<std::vector<std::uint8_t>> EmptyPayload::encode(unsigned pointer_size) const {
  return encode_payload(*this, pointer_size);
}

}  // namespace clretw
