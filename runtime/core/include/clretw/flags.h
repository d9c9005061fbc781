// clretw/flags.h - bitwise operators for generated flag enums.
//
// A generated namespace marks an enum as a set of flags by declaring
//   constexpr bool clretw_flag_enum(Keywords) noexcept { return true; }
// next to it, and imports these operators with using-declarations, so they
// are found by argument-dependent lookup for exactly those enums.
#pragma once

#include <concepts>
#include <type_traits>

namespace clretw::flag_ops {

template <class E>
concept FlagEnum = std::is_enum_v<E> && requires(E e) {
  { clretw_flag_enum(e) } -> std::same_as<bool>;
};

template <FlagEnum E>
constexpr E operator|(E a, E b) noexcept {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(static_cast<U>(a) | static_cast<U>(b));
}
template <FlagEnum E>
constexpr E operator&(E a, E b) noexcept {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(static_cast<U>(a) & static_cast<U>(b));
}
template <FlagEnum E>
constexpr E operator^(E a, E b) noexcept {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(static_cast<U>(a) ^ static_cast<U>(b));
}
template <FlagEnum E>
constexpr E operator~(E a) noexcept {
  using U = std::underlying_type_t<E>;
  return static_cast<E>(~static_cast<U>(a));
}
template <FlagEnum E>
constexpr E& operator|=(E& a, E b) noexcept {
  return a = a | b;
}
template <FlagEnum E>
constexpr E& operator&=(E& a, E b) noexcept {
  return a = a & b;
}
// True when any bit of `bits` is set in `value`.
template <FlagEnum E>
constexpr bool any(E value, E bits) noexcept {
  using U = std::underlying_type_t<E>;
  return (static_cast<U>(value) & static_cast<U>(bits)) != 0;
}

}  // namespace clretw::flag_ops
