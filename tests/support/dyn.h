// Converts generated payload structs and views into clretw::DynRecord, the
// dynamic decoder's output, so all three decodings of a payload can be
// compared by one (non-template) function.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "clretw/decode.h"
#include "clretw/payload.h"
#include "clretw/view.h"

namespace clretw::test {

// A field value, or "absent" (an optional field the view's version lacks).
struct Got {
  bool present = true;
  DynValue value;
};

// Whether T is Template<...> (std::optional, std::vector, ArrayView, StringArray, RecordRange).
template <class T, template <class...> class Template>
struct is_instance : std::false_type {};
template <template <class...> class Template, class... A>
struct is_instance<Template<A...>, Template> : std::true_type {};

template <class V>
DynRecord view_record(const V& v);
template <class P>
DynRecord struct_record(const P& p);

// A scalar value (integer, enum, float, bool, GUID, SYSTEMTIME) as DynValue.
template <class T>
DynValue scalar(const T& t) {
  DynValue d;
  if constexpr (std::is_same_v<T, bool>) {
    d.kind = DynValue::Kind::boolean;
    d.u = t ? 1 : 0;
  } else if constexpr (std::is_same_v<T, Guid>) {
    d.kind = DynValue::Kind::guid;
    d.g = t;
  } else if constexpr (std::is_same_v<T, SystemTime>) {
    d.kind = DynValue::Kind::systemtime;
    d.st = t;
  } else if constexpr (std::is_floating_point_v<T>) {
    d.kind = DynValue::Kind::real;
    d.d = static_cast<double>(t);
  } else if constexpr (std::is_enum_v<T>) {
    d.kind = DynValue::Kind::uint;
    d.u = static_cast<std::uint64_t>(t);
  } else if constexpr (std::is_signed_v<T>) {
    d.kind = DynValue::Kind::sint;
    d.i = static_cast<std::int64_t>(t);
  } else {
    d.kind = DynValue::Kind::uint;
    d.u = static_cast<std::uint64_t>(t);
  }
  return d;
}

inline DynValue text(std::string s) {
  DynValue d;
  d.kind = DynValue::Kind::text;
  d.text = std::move(s);
  return d;
}

inline DynValue bytes(Bytes b) {
  DynValue d;
  d.kind = DynValue::Kind::bytes;
  d.bytes.assign(b.begin(), b.end());
  return d;
}

// A view accessor's result.
template <class T>
Got from_view(const T& t) {
  if constexpr (is_instance<T, std::optional>::value) {
    if (!t) return Got{false, {}};
    return from_view(*t);
  } else if constexpr (std::is_same_v<T, Utf16View>) {
    return {true, text(t.to_utf8())};
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    return {true, text(std::string(t))};
  } else if constexpr (std::is_same_v<T, Bytes>) {
    return {true, bytes(t)};
  } else if constexpr (is_instance<T, ArrayView>::value || is_instance<T, StringArray>::value) {
    DynValue d;
    d.kind = DynValue::Kind::array;
    for (auto e : t) d.items.push_back(from_view(e).value);
    return {true, d};
  } else if constexpr (is_instance<T, RecordRange>::value || is_instance<T, ElementRange>::value) {
    DynValue d;
    d.kind = DynValue::Kind::records;
    for (auto e : t) d.records.push_back(view_record(e));
    return {true, d};
  } else {
    return {true, scalar(t)};
  }
}

template <class V>
DynRecord view_record(const V& v) {
  DynRecord r;
  v.for_each_field([&](std::string_view name, const auto& value) {
    Got g = from_view(value);
    if (g.present) r.push_back({name, std::move(g.value)});
  });
  return r;
}

// Names of the view's fields that are absent (std::nullopt) in this version.
template <class V>
std::vector<std::string> absent_fields(const V& v) {
  std::vector<std::string> out;
  v.for_each_field([&](std::string_view name, const auto& value) {
    if (!from_view(value).present) out.emplace_back(name);
  });
  return out;
}

// An owning payload struct's fields, read through the members the codec sees (detail::visit_members):
// compiled once (dyn.cpp), not per struct.
DynRecord record_of(const void* object, detail::VisitMembers visit, const RecordDesc& r);

template <class P>
DynRecord struct_record(const P& p) {
  return record_of(&p, &detail::visit_members<P>, P::record());
}

// Compares two records field by field (by name, in order of `expected`);
// integers compare by value whatever their width. Returns "" when equal,
// else a description of the first difference.
std::string compare(const DynRecord& expected, const DynRecord& actual, const std::string& path = {});

std::string describe(const DynValue& v);

}  // namespace clretw::test
