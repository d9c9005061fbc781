#include "dyn.h"

#include <cmath>
#include <sstream>

namespace clretw::test {

std::string describe(const DynValue& v) {
  std::ostringstream s;
  switch (v.kind) {
    case DynValue::Kind::uint: s << v.u; break;
    case DynValue::Kind::sint: s << v.i; break;
    case DynValue::Kind::real: s << v.d; break;
    case DynValue::Kind::boolean: s << (v.u ? "true" : "false"); break;
    case DynValue::Kind::guid: s << v.g.to_string(); break;
    case DynValue::Kind::systemtime: s << v.st.year << "-" << v.st.month << "-" << v.st.day; break;
    case DynValue::Kind::text: s << '"' << v.text << '"'; break;
    case DynValue::Kind::bytes: s << v.bytes.size() << " bytes"; break;
    case DynValue::Kind::array: s << "array of " << v.items.size(); break;
    case DynValue::Kind::records: s << v.records.size() << " records"; break;
  }
  return s.str();
}

namespace {

// The first difference between the elements of two equally long lists, by `cmp`.
template <class List, class Cmp>
std::string each(const List& e, const List& a, const std::string& path, Cmp cmp) {
  for (std::size_t i = 0; i < e.size(); ++i)
    if (std::string d = cmp(e[i], a[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  return {};
}

std::string compare_values(const DynValue& e, const DynValue& a, const std::string& path) {
  auto diff = [&] { return path + ": expected " + describe(e) + ", got " + describe(a); };
  // Integers: equal value, whatever the signedness of the C++ type carrying it.
  const bool e_int = e.kind == DynValue::Kind::uint || e.kind == DynValue::Kind::sint;
  const bool a_int = a.kind == DynValue::Kind::uint || a.kind == DynValue::Kind::sint;
  if (e_int && a_int) {
    const std::uint64_t ev = e.kind == DynValue::Kind::uint ? e.u : static_cast<std::uint64_t>(e.i);
    const std::uint64_t av = a.kind == DynValue::Kind::uint ? a.u : static_cast<std::uint64_t>(a.i);
    return ev == av ? std::string() : diff();
  }
  if (e.kind != a.kind) return path + ": kind differs (" + describe(e) + " vs " + describe(a) + ")";
  switch (e.kind) {
    case DynValue::Kind::real:
      return (e.d == a.d || (std::isnan(e.d) && std::isnan(a.d))) ? std::string() : diff();
    case DynValue::Kind::boolean: return (e.u != 0) == (a.u != 0) ? std::string() : diff();
    case DynValue::Kind::guid: return e.g == a.g ? std::string() : diff();
    case DynValue::Kind::systemtime: return e.st == a.st ? std::string() : diff();
    case DynValue::Kind::text: return e.text == a.text ? std::string() : diff();
    case DynValue::Kind::bytes: return e.bytes == a.bytes ? std::string() : diff();
    case DynValue::Kind::array:
      return e.items.size() != a.items.size() ? diff() : each(e.items, a.items, path, compare_values);
    case DynValue::Kind::records:
      return e.records.size() != a.records.size() ? diff() : each(e.records, a.records, path, compare);
    default: return {};
  }
}

}  // namespace

std::string compare(const DynRecord& expected, const DynRecord& actual, const std::string& path) {
  if (expected.size() != actual.size())
    return path + ": " + std::to_string(expected.size()) + " fields expected, " + std::to_string(actual.size()) + " found";
  for (const DynField& e : expected) {
    const DynField* match = nullptr;
    for (const DynField& a : actual)
      if (a.name == e.name) match = &a;
    const std::string at = path.empty() ? std::string(e.name) : path + "." + std::string(e.name);
    if (!match) return at + ": missing";
    std::string d = compare_values(e.value, match->value, at);
    if (!d.empty()) return d;
  }
  return {};
}

}  // namespace clretw::test
