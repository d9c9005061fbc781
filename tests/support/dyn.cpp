#include "dyn.h"

#include <cmath>
#include <sstream>

namespace clretw::test {

namespace {

using detail::Member;
using detail::MemberKind;
using detail::MemberOps;

// A scalar member (integer, enum, float, bool, GUID, SYSTEMTIME) as DynValue.
DynValue scalar_member(const MemberOps& ops, const void* at) {
  switch (ops.kind) {
    case MemberKind::boolean: return scalar(*static_cast<const bool*>(at));
    case MemberKind::guid: return scalar(*static_cast<const Guid*>(at));
    case MemberKind::system_time: return scalar(*static_cast<const SystemTime*>(at));
    case MemberKind::floating:
      return ops.size == 4 ? scalar(*static_cast<const float*>(at)) : scalar(*static_cast<const double*>(at));
    default: {
      DynValue d;
      const std::uint64_t v = detail::member_integer(ops, at);
      if (ops.load_signed) {  // a signed integer type (an enum counts as unsigned, whatever its type)
        d.kind = DynValue::Kind::sint;
        d.i = static_cast<std::int64_t>(v);
      } else {
        d.kind = DynValue::Kind::uint;
        d.u = v;
      }
      return d;
    }
  }
}

DynValue member_value(const Member& m, const FieldDesc& f) {
  const MemberOps& ops = *m.ops;
  switch (ops.kind) {
    case MemberKind::string: return text(*static_cast<const std::string*>(m.at));
    case MemberKind::bytes: {
      const auto& b = *static_cast<const std::vector<std::uint8_t>*>(m.at);
      if (f.count.kind == Extent::Kind::none) return bytes(b);
      DynValue d;
      d.kind = DynValue::Kind::array;
      for (auto e : b) d.items.push_back(scalar(e));
      return d;
    }
    case MemberKind::vector: {
      DynValue d;
      const MemberOps& e = *ops.element;
      const auto* data = static_cast<const std::uint8_t*>(ops.data(m.at));
      const std::size_t n = ops.count(m.at);
      d.kind = e.kind == MemberKind::record ? DynValue::Kind::records : DynValue::Kind::array;
      for (std::size_t k = 0; k < n; ++k) {
        const void* at = data + k * ops.element_size;
        if (e.kind == MemberKind::record) d.records.push_back(record_of(at, e.visit, *f.members));
        else if (e.kind == MemberKind::string) d.items.push_back(text(*static_cast<const std::string*>(at)));
        else d.items.push_back(scalar_member(e, at));
      }
      return d;
    }
    default: return scalar_member(ops, m.at);
  }
}

struct Collect {
  const RecordDesc* r;
  DynRecord* out;
};

void collect_members(void* context, const Member* members, std::size_t count) {
  const Collect& c = *static_cast<const Collect*>(context);
  for (std::size_t i = 0; i < count && i < c.r->fields.size(); ++i)
    c.out->push_back({c.r->fields[i].name, member_value(members[i], c.r->fields[i])});
}

}  // namespace

DynRecord record_of(const void* object, detail::VisitMembers visit, const RecordDesc& r) {
  DynRecord out;
  Collect c{&r, &out};
  visit(const_cast<void*>(object), &collect_members, &c);
  return out;
}

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
