// Filler (roundtrip.h): values for the members of owning payload structs, as the codec sees them.
#include <map>

#include "roundtrip.h"

namespace clretw::test {

using detail::Member;
using detail::MemberKind;
using detail::MemberOps;

namespace {
void store_integer(const MemberOps& ops, void* at, std::uint64_t v) {
  switch (ops.kind) {
    case MemberKind::boolean: *static_cast<bool*>(at) = v != 0; break;
    case MemberKind::integer:
      switch (ops.size) {
        case 1: *static_cast<std::uint8_t*>(at) = static_cast<std::uint8_t>(v); break;
        case 2: *static_cast<std::uint16_t*>(at) = static_cast<std::uint16_t>(v); break;
        case 4: *static_cast<std::uint32_t*>(at) = static_cast<std::uint32_t>(v); break;
        default: *static_cast<std::uint64_t*>(at) = v; break;
      }
      break;
    default: break;  // only integers carry counts and lengths
  }
}
}  // namespace

struct Filler::Fill {
  Filler* filler;
  const RecordDesc* r;
};

// A size for the profile: none, small (from `small`, up to `small_spread` more) or large.
std::uint64_t Filler::size(std::uint64_t small, std::uint64_t small_spread, std::uint64_t large, std::uint64_t large_spread) {
  if (profile_ == Profile::small) return small + below(small_spread);
  if (profile_ == Profile::large) return large + below(large_spread);
  return 0;
}

// UTF-8 text of exactly `units` UTF-16 code units (surrogate pairs count 2).
std::string Filler::text_of_units(std::uint64_t units, bool ascii) {
  static const char* const kOne[] = {"a", "Z", "0", "_", ".", " ", "[", "]", "\xC3\xA9", "\xE4\xB8\xAD", "\xCE\xA9"};
  static const char* const kPair[] = {"\xF0\x9F\x98\x80", "\xF0\x9D\x84\x9E"};
  std::string s;
  while (units > 0) {
    if (!ascii && units >= 2 && below(4) == 0) {
      s += kPair[below(2)];
      units -= 2;
    } else {
      s += kOne[below(ascii ? 8 : 11)];
      units -= 1;
    }
  }
  return s;
}

std::string Filler::terminated_text(bool ascii) {
  static const char* const kSmall[] = {"System.Object[]", "NULL", "\xC3\xA9t\xC3\xA9", "\xE4\xB8\xAD\xE6\x96\x87",
                                       "x\xF0\x9F\x98\x80y"};
  if (profile_ == Profile::empty) return "";
  if (profile_ == Profile::small) return kSmall[below(ascii ? 2 : 5)];
  return text_of_units(200 + below(100), ascii);
}

void Filler::fill_record(void* object, detail::VisitMembers visit, const RecordDesc& r) {
  Fill fill{this, &r};
  visit(object, &Filler::fill_members, &fill);
}

void Filler::fill_members(void* context, const Member* members, std::size_t count) {
  Filler& self = *static_cast<Fill*>(context)->filler;
  const RecordDesc& r = *static_cast<Fill*>(context)->r;
  // Fields other fields take their count or length from get sizes first.
  std::map<std::uint32_t, std::uint64_t> sizes;
  for (const FieldDesc& f : r.fields) {
    if (f.count.is_field() && !sizes.count(f.count.value)) sizes[f.count.value] = self.array_size();
    if (f.length.is_field() && !sizes.count(f.length.value))
      sizes[f.length.value] = f.type == InType::Binary ? self.array_size() * 3 : self.text_units();
  }
  for (std::uint32_t i = 0; i < count && i < r.fields.size(); ++i) {
    const FieldDesc& f = r.fields[i];
    if (auto it = sizes.find(i); it != sizes.end()) {
      store_integer(*members[i].ops, members[i].at, it->second);
      continue;
    }
    const std::uint64_t n = f.count.kind == Extent::Kind::field ? sizes.at(f.count.value)
                            : f.count.kind == Extent::Kind::constant ? f.count.value
                                                                     : 1;
    const std::uint64_t len = f.length.kind == Extent::Kind::field ? sizes.at(f.length.value) : f.length.value;
    self.value(members[i], f, n, len);
  }
}

void Filler::value(const Member& m, const FieldDesc& f, std::uint64_t n, std::uint64_t len) {
  const MemberOps& ops = *m.ops;
  if (ops.kind == MemberKind::vector) {
    auto* data = static_cast<std::uint8_t*>(ops.resize(m.at, static_cast<std::size_t>(n)));
    for (std::uint64_t k = 0; k < n; ++k) {
      void* e = data + k * ops.element_size;
      if (ops.element->kind == MemberKind::record) fill_record(e, ops.element->visit, *f.members);
      else element(*ops.element, e, f, len);
    }
  } else if (ops.kind == MemberKind::bytes && f.count.kind != Extent::Kind::none) {
    static constexpr MemberOps kByte{.kind = MemberKind::integer, .size = 1};
    auto& bytes = *static_cast<std::vector<std::uint8_t>*>(m.at);
    bytes.assign(static_cast<std::size_t>(n), 0);
    for (auto& b : bytes) element(kByte, &b, f, len);
  } else {
    element(ops, m.at, f, len);
  }
}

void Filler::element(const MemberOps& ops, void* at, const FieldDesc& f, std::uint64_t len) {
  const bool zero = profile_ == Profile::empty;
  switch (ops.kind) {
    case MemberKind::string: {
      const bool ascii = f.type == InType::AnsiString;
      auto& s = *static_cast<std::string*>(at);
      if (f.length.kind == Extent::Kind::field) s = text_of_units(len, ascii);
      else if (f.length.kind == Extent::Kind::constant) s = text_of_units(zero ? 0 : len - below(len / 2 + 1), ascii);
      else s = terminated_text(ascii);
      return;
    }
    case MemberKind::bytes: {
      auto& b = *static_cast<std::vector<std::uint8_t>*>(at);
      b.clear();
      if (f.type == InType::Sid) {
        const std::uint8_t subs = zero ? 0 : static_cast<std::uint8_t>(1 + below(4));
        b = {1, subs, 0, 0, 0, 0, 0, 5};
        for (int k = 0; k < 4 * subs; ++k) b.push_back(static_cast<std::uint8_t>(next()));
        return;
      }
      // A win:Binary without a length holds the rest of the payload: as long as the profile's arrays.
      const std::uint64_t n = f.type == InType::Binary && f.length.kind == Extent::Kind::none ? array_size() * 3 : len;
      for (std::uint64_t k = 0; k < n; ++k) b.push_back(zero ? 0 : static_cast<std::uint8_t>(next()));
      return;
    }
    case MemberKind::boolean: *static_cast<bool*>(at) = !zero && (next() & 1); return;
    case MemberKind::guid: {
      Guid g;
      if (!zero) {
        g.data1 = static_cast<std::uint32_t>(next());
        g.data2 = static_cast<std::uint16_t>(next());
        g.data3 = static_cast<std::uint16_t>(next());
        for (auto& b : g.data4) b = static_cast<std::uint8_t>(next());
      }
      *static_cast<Guid*>(at) = g;
      return;
    }
    case MemberKind::system_time:
      *static_cast<SystemTime*>(at) =
          zero ? SystemTime{}
               : SystemTime{static_cast<std::uint16_t>(1601 + below(500)), static_cast<std::uint16_t>(1 + below(12)),
                            static_cast<std::uint16_t>(below(7)), static_cast<std::uint16_t>(1 + below(28)),
                            static_cast<std::uint16_t>(below(24)), static_cast<std::uint16_t>(below(60)),
                            static_cast<std::uint16_t>(below(60)), static_cast<std::uint16_t>(below(1000))};
      return;
    case MemberKind::floating: {
      const double v = zero ? 0.0 : static_cast<double>(static_cast<std::int64_t>(next() % 2000001) - 1000000) / 64.0;
      if (ops.size == 4) *static_cast<float*>(at) = static_cast<float>(v);
      else *static_cast<double*>(at) = v;
      return;
    }
    case MemberKind::integer: {
      // Integers and map enums: random over the wire width (pointers: the pointer size).
      std::uint64_t v = 0;
      if (!zero) {
        const unsigned width = scalar_size(f.type, ps_);
        v = next();
        if (f.map && !f.map->entries.empty() && below(2) == 0) v = f.map->entries[below(f.map->entries.size())].value;
        if (width < 8) v &= (std::uint64_t{1} << (8 * width)) - 1;
      }
      store_integer(ops, at, v);
      return;
    }
    default: return;  // vectors and records are filled by value() and fill_record()
  }
}

}  // namespace clretw::test
