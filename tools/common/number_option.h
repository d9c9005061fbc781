// Number options of every clretw tool: a CLI11 check that says, in words, which numbers an option
// takes, instead of CLI11's own ("Value -3 not in range 0.000000 to 1797693134862315708...").
//
//   app.add_option("--top", top, "...")->check(tools::whole_number(1));            // --top: -3 is not a whole number, 1 or more
//   app.add_option("--id", ids, "...")->check(tools::whole_number(0, 65535));      // --id: x is not a whole number from 0 to 65535
//   app.add_option("--size-mb", mb, "...")->check(tools::real_number("MB", 0, 100000));  // --size-mb: lots is not a number of MB from 0 to 100000
//   app.add_option("--format", v, "...")->check(tools::whole_number_in({3, 4, 5, 6}));  // --format: 7 is not 3, 4, 5 or 6
//
// The check runs on the text, before CLI11 converts it: every bad value (not a number, out of range,
// too large for the option's type) gets the option's one message. Whole numbers are decimal or hex
// with 0x; the check rewrites them in decimal, so that CLI11 reads no octal into a leading 0.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clretw::tools {

namespace detail {

inline std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// A bound as the messages write it: 100000, 0.5.
inline std::string number_text(double v) {
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return r.ec == std::errc{} ? std::string(buf, r.ptr) : std::to_string(v);
}

// Digits only (decimal, or hex after 0x), blanks around them allowed: a whole number, maybe too large.
inline bool all_digits(std::string_view t) {
  t = trim(t);
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (hex) t.remove_prefix(2);
  if (t.empty()) return false;
  for (char c : t)
    if (!(c >= '0' && c <= '9') && !(hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))) return false;
  return true;
}

// " of UNIT" after "number", when there is a unit.
inline std::string of_unit(std::string_view unit) { return unit.empty() ? std::string() : " of " + std::string(unit); }

}  // namespace detail

// "123" or "0x7B" (blanks around it allowed); nullopt for anything else, a sign, or more than 64 bits.
inline std::optional<std::uint64_t> parse_whole_number(std::string_view t) {
  t = detail::trim(t);
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  if (t.empty() || t[0] == '-' || t[0] == '+') return std::nullopt;
  std::uint64_t v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (r.ec != std::errc{} || r.ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

// A whole number from `min` to `max` (no upper bound but the type's when `max` is left out: the
// message names it only for a number above it). `unit`, when given, is named: "--buffersize: 0 is
// not a whole number of MB from 1 to 4096".
inline CLI::Validator whole_number(std::uint64_t min, std::uint64_t max = std::numeric_limits<std::uint64_t>::max(),
                                   std::string_view unit = {}) {
  const bool bounded = max != std::numeric_limits<std::uint64_t>::max();
  const std::string from_to = "a whole number" + detail::of_unit(unit) + " from " + std::to_string(min) + " to " + std::to_string(max);
  const std::string what = bounded ? from_to : "a whole number" + detail::of_unit(unit) + ", " + std::to_string(min) + " or more";
  return CLI::Validator(
      [what, from_to, min, max](std::string& text) -> std::string {
        const auto v = parse_whole_number(text);
        if (!v && detail::all_digits(text)) return text + " is not " + from_to;  // more than 64 bits
        if (!v || *v < min || *v > max) return text + " is not " + what;
        text = std::to_string(*v);
        return {};
      },
      bounded ? "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]" : "INT >= " + std::to_string(min));
}

// One of a few whole numbers: "--pointer-size: 2 is not 4 or 8".
inline CLI::Validator whole_number_in(std::initializer_list<std::uint64_t> allowed) {
  std::vector<std::uint64_t> values(allowed);
  std::string list, desc;
  for (std::size_t i = 0; i < values.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::to_string(values[i]);
    desc += (i == 0 ? "" : ",") + std::to_string(values[i]);
  }
  return CLI::Validator(
      [values, list](std::string& text) -> std::string {
        const auto v = parse_whole_number(text);
        for (std::uint64_t a : values)
          if (v && *v == a) {
            text = std::to_string(*v);
            return {};
          }
        return text + " is not " + list;
      },
      "{" + desc + "}");
}

// A number (decimals and exponents allowed) of `unit` from `min` to `max`; above `min` rather than
// from it when `above` is set; an infinite bound is no bound. "--sample-interval: 0 is not a number
// of milliseconds above 0"; with no bounds: "--from: abc is not a number of milliseconds".
inline CLI::Validator real_number(std::string_view unit = {}, double min = -std::numeric_limits<double>::infinity(),
                                  double max = std::numeric_limits<double>::infinity(), bool above = false) {
  std::string range;
  if (std::isfinite(min) && std::isfinite(max))
    range = (above ? " above " + detail::number_text(min) + " and up to " : " from " + detail::number_text(min) + " to ") +
            detail::number_text(max);
  else if (std::isfinite(min))
    range = above ? " above " + detail::number_text(min) : ", " + detail::number_text(min) + " or more";
  else if (std::isfinite(max))
    range = ", " + detail::number_text(max) + " or less";
  const std::string what = "a number" + detail::of_unit(unit) + range;
  return CLI::Validator(
      [what, min, max, above](std::string& text) -> std::string {
        std::string_view t = detail::trim(text);
        if (!t.empty() && t.front() == '+') t.remove_prefix(1);
        double v = 0;
        const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        const bool parsed = !t.empty() && r.ec == std::errc{} && r.ptr == t.data() + t.size() && std::isfinite(v);
        if (!parsed || v < min || v > max || (above && v <= min)) return text + " is not " + what;
        text = std::string(t);
        return {};
      },
      "NUMBER");
}

}  // namespace clretw::tools
