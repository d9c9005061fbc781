// clretw/payload.h - decode and encode for generated owning payload structs.
//
// A generated payload struct declares its members (manifest names, owning C++
// types), lists them once in a static fields(s, f) (which calls f with all of them,
// in wire order), and has a static for_each_field(s, f), which calls f(FieldDesc, member)
// for every field of s in wire order (detail::for_each_member below;
// clretw::for_each_field is the generic spelling). The two templates here do the rest:
//   decode_payload<P>(bytes, ps)  copies every field out: through P's layout view
//                                 where it has one, else (and to say what is wrong)
//                                 by walking the layout engine, as
//                                 decode_payload_generic<P> always does;
//   encode_payload(p, ps)         writes the fields in order, as the runtime
//                                 does - it never consults the layout, so a
//                                 round trip checks one against the other.
// The walk and encode are driven by tables, not by code generated per struct: a struct hands
// its members over as (address, MemberOps) pairs - one constant per C++ member type, shared by
// every struct - and the reading and writing is compiled once, in the core (payload.cpp). What
// a struct costs to compile is its layout view's copy and the list of its members' addresses.
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

// A member of a payload struct handed to the core's reader and writer: its address and what it is.
struct MemberOps;
struct Member {
  void* at = nullptr;
  const MemberOps* ops = nullptr;
};
// Called with the members of one struct, in wire order.
using MembersFn = void (*)(void* context, const Member* members, std::size_t count);
// Calls fn(context, members, count) with the members of the struct at `object` (visit_members<P>).
using VisitMembers = void (*)(void* object, MembersFn fn, void* context);

// The scalars first (integer to system_time): the reader tells them from the rest by order.
enum class MemberKind : std::uint8_t { integer, boolean, floating, guid, system_time, string, bytes, vector, record };

// What the core needs to know of a member's C++ type to read it and write it.
struct MemberOps {
  MemberKind kind = MemberKind::integer;
  std::uint8_t size = 0;      // integer, floating: sizeof the member
  bool load_signed = false;   // integer: a signed integer type (a narrower field sign-extends; encode does
                              // not range-check it); enums and unsigned types zero-extend and are checked
  bool value_signed = false;  // integer: the value the member holds is signed (an enum: its underlying type)
  // vector: its elements' kind, and the container (elements are element_size bytes apart)
  const MemberOps* element = nullptr;
  std::size_t element_size = 0;
  std::size_t (*count)(const void* vector) = nullptr;
  void* (*resize)(void* vector, std::size_t n) = nullptr;  // returns data()
  const void* (*data)(const void* vector) = nullptr;
  // record (the element of a struct array): its members
  VisitMembers visit = nullptr;
};

template <class P>
void visit_members(void* object, MembersFn fn, void* context);
template <class M>
struct MemberOpsOf;  // ::value: member_ops<M>()

template <class M>
constexpr MemberOps member_ops() {
  if constexpr (std::is_same_v<M, bool>) {
    return {.kind = MemberKind::boolean, .size = 1};
  } else if constexpr (std::is_enum_v<M>) {
    return {.kind = MemberKind::integer, .size = sizeof(M), .value_signed = std::is_signed_v<std::underlying_type_t<M>>};
  } else if constexpr (std::is_integral_v<M>) {
    return {.kind = MemberKind::integer, .size = sizeof(M), .load_signed = std::is_signed_v<M>, .value_signed = std::is_signed_v<M>};
  } else if constexpr (std::is_floating_point_v<M>) {
    static_assert(sizeof(M) == 4 || sizeof(M) == 8);
    return {.kind = MemberKind::floating, .size = sizeof(M)};
  } else if constexpr (std::is_same_v<M, Guid>) {
    return {.kind = MemberKind::guid};
  } else if constexpr (std::is_same_v<M, SystemTime>) {
    return {.kind = MemberKind::system_time};
  } else if constexpr (std::is_same_v<M, std::string>) {
    return {.kind = MemberKind::string};
  } else if constexpr (std::is_same_v<M, std::vector<std::uint8_t>>) {
    return {.kind = MemberKind::bytes};
  } else if constexpr (is_vector<M>::value) {
    using E = typename M::value_type;
    static_assert(!std::is_same_v<E, bool>, "std::vector<bool> has no element addresses");
    return {.kind = MemberKind::vector,
            .element = &MemberOpsOf<E>::value,
            .element_size = sizeof(E),
            .count = +[](const void* v) { return static_cast<const M*>(v)->size(); },
            .resize = +[](void* v, std::size_t n) -> void* {
              auto& vec = *static_cast<M*>(v);
              vec.clear();
              vec.resize(n);
              return vec.data();
            },
            .data = +[](const void* v) -> const void* { return static_cast<const M*>(v)->data(); }};
  } else {
    static_assert(PayloadRecord<M>, "a payload struct member of a type the codec does not know");
    return {.kind = MemberKind::record, .visit = &visit_members<M>};
  }
}
template <class M>
struct MemberOpsOf {
  static constexpr MemberOps value = member_ops<M>();
};

template <class P>
void visit_members(void* object, MembersFn fn, void* context) {
  P::fields(*static_cast<P*>(object), [&](auto&... m) {
    const Member members[sizeof...(m) + 1] = {Member{&m, &MemberOpsOf<std::remove_cvref_t<decltype(m)>>::value}..., Member{}};
    fn(context, members, sizeof...(m));
  });
}

// The integer an integer, enum or bool member holds (an unsigned one zero-extended, a signed one - or an
// enum of a signed type - sign-extended); 0 for other members.
std::uint64_t member_integer(const MemberOps& ops, const void* at) noexcept;

// The reading and writing, in the core: a record's fields from its RecordDesc, into and out of the
// members visit hands over.
Status decode_members(const RecordDesc& record, Bytes payload, unsigned pointer_size, void* object, VisitMembers visit);
Status encode_members(const RecordDesc& record, unsigned pointer_size, const void* object, VisitMembers visit,
                      std::vector<std::uint8_t>& out);

}  // namespace detail

// The payload struct of events that have no template.
struct EmptyPayload {
  static const RecordDesc& record() noexcept;
  static Result<EmptyPayload> decode(Bytes payload, unsigned pointer_size);
  Result<std::vector<std::uint8_t>> encode(unsigned pointer_size) const;
  template <class S, class F>
  static void fields(S&, F&& f) { f(); }
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

// Decodes a payload into a generated payload struct P by the layout engine and the core's reader alone
// (tables, no code of P's own): what decode_payload() falls back to, and what its fast path is tested against.
template <class P>
Result<P> decode_payload_generic(Bytes payload, unsigned pointer_size) {
  P out{};
  if (Status s = detail::decode_members(P::record(), payload, pointer_size, &out, &detail::visit_members<P>); !s)
    return std::move(s).error();
  return out;
}

// Decodes a payload into a generated payload struct P. A struct with a layout view
// (View<PointerSize>, generated where the layout allows) is filled from it: one
// straight-line check and loads at known offsets. The layout engine and the core's
// reader do the others, and say what is wrong with a payload the view rejects.
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

// Encodes a generated payload struct as the runtime writes it.
template <class P>
Result<std::vector<std::uint8_t>> encode_payload(const P& p, unsigned pointer_size) {
  std::vector<std::uint8_t> out;
  if (Status s = detail::encode_members(P::record(), pointer_size, &p, &detail::visit_members<P>, out); !s)
    return std::move(s).error();
  return out;
}

inline Result<EmptyPayload> EmptyPayload::decode(Bytes payload, unsigned pointer_size) {
  return decode_payload<EmptyPayload>(payload, pointer_size);
}
inline Result<std::vector<std::uint8_t>> EmptyPayload::encode(unsigned pointer_size) const {
  return encode_payload(*this, pointer_size);
}

}  // namespace clretw
