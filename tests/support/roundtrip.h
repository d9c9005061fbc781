// The round-trip harness: for one generated event version, fill the owning
// payload struct with varied values, encode it, and require that the view,
// decode(), and the dynamic decoder (over the generated tables and over
// tables built from the manifest at run time) all return the same values;
// that every truncation is rejected; and that a newer version with appended
// bytes still decodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "clretw/decode.h"
#include "clretw/payload.h"
#include "clretw/schema.h"
#include "dyn.h"

namespace clretw::test {

// How values are chosen: zeros and empty containers; a few small elements;
// many elements and long strings (non-ASCII, surrogate pairs).
enum class Profile { empty, small, large };

class Filler {
 public:
  Filler(std::uint64_t seed, Profile profile, unsigned pointer_size) : rng_(seed), profile_(profile), ps_(pointer_size) {}

  template <class P>
  void fill(P& p) {
    fill_record(p, P::record());
  }

 private:
  std::uint64_t next() { return rng_(); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }

  // A size for the profile: none, small (from `small`, up to `small_spread` more) or large.
  std::uint64_t size(std::uint64_t small, std::uint64_t small_spread, std::uint64_t large, std::uint64_t large_spread) {
    if (profile_ == Profile::small) return small + below(small_spread);
    if (profile_ == Profile::large) return large + below(large_spread);
    return 0;
  }
  std::uint64_t array_size() { return size(1, 3, 12, 9); }
  std::uint64_t text_units() { return size(1, 8, 60, 40); }

  // UTF-8 text of exactly `units` UTF-16 code units (surrogate pairs count 2).
  std::string text_of_units(std::uint64_t units, bool ascii) {
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
  std::string terminated_text(bool ascii) {
    static const char* const kSmall[] = {"System.Object[]", "NULL", "\xC3\xA9t\xC3\xA9", "\xE4\xB8\xAD\xE6\x96\x87",
                                         "x\xF0\x9F\x98\x80y"};
    if (profile_ == Profile::empty) return "";
    if (profile_ == Profile::small) {
      std::string s = kSmall[below(ascii ? 2 : 5)];
      return s;
    }
    return text_of_units(200 + below(100), ascii);
  }

  template <class P>
  void fill_record(P& p, const RecordDesc& r) {
    // Fields other fields take their count or length from get sizes first.
    std::map<std::uint32_t, std::uint64_t> sizes;
    for (const FieldDesc& f : r.fields) {
      if (f.count.is_field() && !sizes.count(f.count.value)) sizes[f.count.value] = array_size();
      if (f.length.is_field() && !sizes.count(f.length.value))
        sizes[f.length.value] = f.type == InType::Binary ? array_size() * 3 : text_units();
    }
    clretw::for_each_field(p, [&](const FieldDesc& f, auto& m) {
      const auto i = static_cast<std::uint32_t>(&f - r.fields.data());
      if (auto it = sizes.find(i); it != sizes.end()) {
        set_integer(m, it->second);
        return;
      }
      const std::uint64_t n = f.count.kind == Extent::Kind::field ? sizes.at(f.count.value)
                              : f.count.kind == Extent::Kind::constant ? f.count.value
                                                                       : 1;
      const std::uint64_t len = f.length.kind == Extent::Kind::field ? sizes.at(f.length.value) : f.length.value;
      value(m, f, n, len);
    });
  }

  template <class M>
  static void set_integer(M& m, std::uint64_t v) {
    if constexpr (std::is_integral_v<M> || std::is_enum_v<M>) m = static_cast<M>(v);
  }

  template <class M>
  void value(M& m, const FieldDesc& f, std::uint64_t n, std::uint64_t len) {
    if constexpr (detail::is_vector<M>::value && !std::is_same_v<M, std::vector<std::uint8_t>>) {
      using E = typename M::value_type;
      m.clear();
      for (std::uint64_t k = 0; k < n; ++k) {
        E e{};
        if constexpr (detail::PayloadRecord<E>) fill_record(e, *f.members);
        else e = element<E>(f, len);
        m.push_back(e);
      }
    } else if constexpr (std::is_same_v<M, std::vector<std::uint8_t>>) {
      if (f.count.kind != Extent::Kind::none) {
        m.clear();
        for (std::uint64_t k = 0; k < n; ++k) m.push_back(element<std::uint8_t>(f, len));
      } else {
        m = element<M>(f, len);
      }
    } else {
      m = element<M>(f, len);
    }
  }

  template <class E>
  E element(const FieldDesc& f, std::uint64_t len) {
    const bool zero = profile_ == Profile::empty;
    if constexpr (std::is_same_v<E, std::string>) {
      const bool ascii = f.type == InType::AnsiString;
      if (f.length.kind == Extent::Kind::field) return text_of_units(len, ascii);
      if (f.length.kind == Extent::Kind::constant) return text_of_units(zero ? 0 : len - below(len / 2 + 1), ascii);
      return terminated_text(ascii);
    } else if constexpr (std::is_same_v<E, std::vector<std::uint8_t>>) {
      std::vector<std::uint8_t> b;
      if (f.type == InType::Sid) {
        const std::uint8_t subs = zero ? 0 : static_cast<std::uint8_t>(1 + below(4));
        b = {1, subs, 0, 0, 0, 0, 0, 5};
        for (int k = 0; k < 4 * subs; ++k) b.push_back(static_cast<std::uint8_t>(next()));
        return b;
      }
      for (std::uint64_t k = 0; k < len; ++k) b.push_back(zero ? 0 : static_cast<std::uint8_t>(next()));
      return b;
    } else if constexpr (std::is_same_v<E, bool>) {
      return !zero && (next() & 1);
    } else if constexpr (std::is_same_v<E, Guid>) {
      Guid g;
      if (zero) return g;
      g.data1 = static_cast<std::uint32_t>(next());
      g.data2 = static_cast<std::uint16_t>(next());
      g.data3 = static_cast<std::uint16_t>(next());
      for (auto& b : g.data4) b = static_cast<std::uint8_t>(next());
      return g;
    } else if constexpr (std::is_same_v<E, SystemTime>) {
      if (zero) return SystemTime{};
      return SystemTime{static_cast<std::uint16_t>(1601 + below(500)), static_cast<std::uint16_t>(1 + below(12)),
                        static_cast<std::uint16_t>(below(7)), static_cast<std::uint16_t>(1 + below(28)),
                        static_cast<std::uint16_t>(below(24)), static_cast<std::uint16_t>(below(60)),
                        static_cast<std::uint16_t>(below(60)), static_cast<std::uint16_t>(below(1000))};
    } else if constexpr (std::is_floating_point_v<E>) {
      if (zero) return E{};
      return static_cast<E>(static_cast<double>(static_cast<std::int64_t>(next() % 2000001) - 1000000) / 64.0);
    } else {
      // Integers and map enums: random over the wire width (pointers: the pointer size).
      if (zero) return E{};
      const unsigned width = scalar_size(f.type, ps_);
      std::uint64_t v = next();
      if (f.map && !f.map->entries.empty() && below(2) == 0) v = f.map->entries[below(f.map->entries.size())].value;
      if (width < 8) v &= (std::uint64_t{1} << (8 * width)) - 1;
      return static_cast<E>(v);
    }
  }

  std::mt19937_64 rng_;
  Profile profile_;
  unsigned ps_;
};

struct Stats {
  std::size_t event_versions = 0, payloads = 0, bytes = 0, truncations = 0, with_reference = 0, with_layout = 0;
  std::size_t planned = 0;  // payloads formatted by a FieldPlan (per table, pointer size and format)
  std::vector<std::string> failures;
};

// What a view reports about one payload.
struct ViewResult {
  std::uint32_t consumed = 0, trailing = 0;
  unsigned version = 0, layout_version = 0;
  bool newer = false;
  DynRecord fields;
};

// The typed operations on one event version, as plain function pointers, so
// the checks themselves (run()) are compiled once rather than per event.
struct Codec {
  std::string label;
  const RecordDesc* record = nullptr;  // the payload struct's generated record
  bool newest = false;                 // the event's newest version (newer-version check applies)
  // Fills the payload struct for (seed, profile, pointer size) and encodes it.
  Result<std::vector<std::uint8_t>> (*make)(std::uint64_t seed, Profile profile, unsigned ps, DynRecord& expected);
  // Decodes into the payload struct; "" when it equals `expected` and re-encodes to the same bytes.
  std::string (*decode)(Bytes payload, unsigned ps, const DynRecord& expected);
  // Verifies with the view; fields filled when `with_fields`.
  Result<ViewResult> (*view)(Bytes payload, unsigned version, unsigned ps, bool with_fields);
  // The same by the layout engine alone (View::verify_generic): verify()'s generated checks must agree.
  Result<ViewResult> (*view_generic)(Bytes payload, unsigned version, unsigned ps, bool with_fields);
  bool (*decodes)(Bytes payload, unsigned ps);  // decode() accepts the payload
  // The payload struct's layout view (P::View<ps>), for structs that have one (else nullptr);
  // consumed, trailing and fields filled (fields when `with_fields`).
  std::optional<ViewResult> (*layout)(Bytes payload, unsigned ps, bool with_fields) = nullptr;
};

template <class V>
std::optional<ViewResult> layout_result(const std::optional<V>& v, bool with_fields) {
  if (!v) return std::nullopt;
  ViewResult r;
  r.consumed = static_cast<std::uint32_t>(v->consumed());
  r.trailing = static_cast<std::uint32_t>(v->trailing_bytes());
  if (with_fields) r.fields = view_record(*v);
  return r;
}

template <class V>
Result<ViewResult> view_result(Result<V> v, bool with_fields) {
  if (!v) return std::move(v).error();
  ViewResult r{v->consumed(), v->trailing_bytes(), v->version(), v->layout_version(), v->newer_than_manifest(), {}};
  if (with_fields) r.fields = view_record(*v);
  return r;
}

// The operations that depend on the payload struct alone: static members of a class template, so
// they are compiled once per struct, however many event versions share it.
template <class P>
struct PayloadOps {
  static Result<std::vector<std::uint8_t>> make(std::uint64_t seed, Profile profile, unsigned ps, DynRecord& expected) {
    P p{};
    Filler(seed, profile, ps).fill(p);
    expected = struct_record(p);
    return p.encode(ps);
  }
  static std::string decode(Bytes payload, unsigned ps, const DynRecord& expected) {
    auto d = P::decode(payload, ps);
    if (!d) return "decode failed: " + d.error().message();
    if (auto diff = compare(expected, struct_record(*d)); !diff.empty()) return "decode: " + diff;
    // The layout engine's decode, which decode() uses for structs without a layout view.
    auto g = decode_payload_generic<P>(payload, ps);
    if (!g) return "decode_payload_generic failed: " + g.error().message();
    if (auto diff = compare(struct_record(*g), struct_record(*d)); !diff.empty()) return "decode() vs decode_payload_generic(): " + diff;
    auto again = d->encode(ps);
    if (!again || !std::equal(again->begin(), again->end(), payload.begin(), payload.end())) return "re-encoding differs";
    return {};
  }
  static bool decodes(Bytes payload, unsigned ps) {
    const bool fast = static_cast<bool>(P::decode(payload, ps));
    return fast || static_cast<bool>(decode_payload_generic<P>(payload, ps));
  }
  // Only for structs with a layout view (codec() takes its address only then).
  static std::optional<ViewResult> layout(Bytes payload, unsigned ps, bool with_fields) {
    return ps == 8 ? layout_result(P::template View<8>::verify(payload), with_fields)
                   : layout_result(P::template View<4>::verify(payload), with_fields);
  }
};

template <class E>
Result<ViewResult> event_view(Bytes payload, unsigned version, unsigned ps, bool with_fields) {
  return view_result(E::View::verify(payload, version, ps), with_fields);
}
template <class E>
Result<ViewResult> event_view_generic(Bytes payload, unsigned version, unsigned ps, bool with_fields) {
  return view_result(E::View::verify_generic(payload, version, ps), with_fields);
}

template <class E, class P>
Codec codec(unsigned version) {
  Codec c;
  c.label = std::string(E::name) + " (event " + std::to_string(E::id) + " v" + std::to_string(version) + ")";
  c.record = &P::record();
  c.newest = version == E::latest_version;
  c.make = &PayloadOps<P>::make;
  c.decode = &PayloadOps<P>::decode;
  c.decodes = &PayloadOps<P>::decodes;
  c.view = &event_view<E>;  // an event's versions share one view type
  c.view_generic = &event_view_generic<E>;
  if constexpr (requires { typename P::template View<8>; }) c.layout = &PayloadOps<P>::layout;
  return c;
}

// Runs every check on one event version; `reference` is the record the
// schema builder made from the manifest at run time (nullptr: skip).
void run(const Codec& codec, unsigned version, const RecordDesc* reference, Stats& stats);

}  // namespace clretw::test
