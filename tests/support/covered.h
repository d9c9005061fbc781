// Which events of one set of generated decoders another set already has, identically. The
// generator's output for an event is a function of its versions and their payload templates, so an
// event whose every version has the same symbol and the same payload record (fields, types,
// extents, maps, layouts, whether a layout view checks it) as an event of the built-in decoders
// compiles to the code roundtrip_builtin already round-trips. The round trips of the real
// ClrEtwAll.man files compile the other events only: the releases share all but a few dozen.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clretw/schema.h"

namespace clretw {
const Catalog& catalog() noexcept;  // the built-in decoders' (clretw_builtin)
}  // namespace clretw

namespace clretw::test {

struct CoveredEvent {
  Guid provider;
  std::uint16_t id = 0;
  std::uint16_t versions = 0;  // how many versions the event has
  friend constexpr bool operator==(const CoveredEvent&, const CoveredEvent&) = default;
};

// Equal in everything generated code reads (the manifest line aside), nested records included.
bool same_record(const RecordDesc& a, const RecordDesc& b);

// The events of `catalog` that `base` has with the same versions, each with the same symbol and
// payload record; in catalog order.
std::vector<CoveredEvent> covered_events(const Catalog& catalog, const Catalog& base);

// covered_events() as a C++ header defining kCoveredByBuiltin (what roundtrip_select writes).
std::string covered_header(const std::vector<CoveredEvent>& covered, const std::string& label);

template <std::size_t N>
constexpr bool is_covered(const std::array<CoveredEvent, N>& covered, const Guid& provider, std::uint16_t id) {
  for (const CoveredEvent& c : covered)
    if (c.id == id && c.provider == provider) return true;
  return false;
}

}  // namespace clretw::test
