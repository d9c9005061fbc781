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

// Fills owning payload structs with values the profile chooses, through the members the codec
// sees (detail::visit_members): compiled once (filler.cpp), not per struct.
class Filler {
 public:
  Filler(std::uint64_t seed, Profile profile, unsigned pointer_size) : rng_(seed), profile_(profile), ps_(pointer_size) {}

  template <class P>
  void fill(P& p) {
    fill_record(&p, &detail::visit_members<P>, P::record());
  }
  void fill_record(void* object, detail::VisitMembers visit, const RecordDesc& r);

 private:
  struct Fill;
  static void fill_members(void* context, const detail::Member* members, std::size_t count);
  std::uint64_t next() { return rng_(); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  std::uint64_t size(std::uint64_t small, std::uint64_t small_spread, std::uint64_t large, std::uint64_t large_spread);
  std::uint64_t array_size() { return size(1, 3, 12, 9); }
  std::uint64_t text_units() { return size(1, 8, 60, 40); }
  std::string text_of_units(std::uint64_t units, bool ascii);
  std::string terminated_text(bool ascii);
  void value(const detail::Member& m, const FieldDesc& f, std::uint64_t n, std::uint64_t len);
  void element(const detail::MemberOps& ops, void* at, const FieldDesc& f, std::uint64_t len);

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
