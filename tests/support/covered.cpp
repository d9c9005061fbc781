#include "covered.h"

#include <cstdio>

namespace clretw::test {

namespace {

bool same_extent(const Extent& a, const Extent& b) { return a.kind == b.kind && a.value == b.value; }

bool same_map(const MapDesc* a, const MapDesc* b) {
  if (!a || !b) return a == b;
  if (a->name != b->name || a->bitmap != b->bitmap || a->entries.size() != b->entries.size()) return false;
  for (std::size_t i = 0; i < a->entries.size(); ++i)
    if (a->entries[i].value != b->entries[i].value || a->entries[i].name != b->entries[i].name) return false;
  return true;
}

bool same_layout(const Layout& a, const Layout& b) {
  if (a.min_size != b.min_size || a.places.size() != b.places.size() || a.segments.size() != b.segments.size()) return false;
  for (std::size_t i = 0; i < a.places.size(); ++i)
    if (a.places[i].seg != b.places[i].seg || a.places[i].off != b.places[i].off || a.places[i].size != b.places[i].size)
      return false;
  for (std::size_t i = 0; i < a.segments.size(); ++i)
    if (a.segments[i].fixed != b.segments[i].fixed || a.segments[i].var_field != b.segments[i].var_field) return false;
  return true;
}

bool same_payload(const RecordDesc* a, const RecordDesc* b) { return a && b ? same_record(*a, *b) : a == b; }

}  // namespace

bool same_record(const RecordDesc& a, const RecordDesc& b) {
  if (a.name != b.name || a.fields.size() != b.fields.size() || (a.check == nullptr) != (b.check == nullptr)) return false;
  for (int ps = 0; ps < 2; ++ps)
    if (!same_layout(a.layout[ps], b.layout[ps])) return false;
  for (std::size_t i = 0; i < a.fields.size(); ++i) {
    const FieldDesc& f = a.fields[i];
    const FieldDesc& g = b.fields[i];
    if (f.name != g.name || f.type != g.type || f.out != g.out || !same_extent(f.count, g.count) ||
        !same_extent(f.length, g.length) || !same_map(f.map, g.map) || !same_payload(f.members, g.members))
      return false;
  }
  return true;
}

std::vector<CoveredEvent> covered_events(const Catalog& catalog, const Catalog& base) {
  std::vector<CoveredEvent> out;
  for (const ProviderDesc* p : catalog.providers) {
    const ProviderDesc* q = base.provider(p->guid);
    if (!q) continue;
    // Events are sorted by (id, version): one run of versions per id.
    for (std::size_t i = 0; i < p->events.size();) {
      const std::uint16_t id = p->events[i].id;
      std::size_t n = 0;
      while (i + n < p->events.size() && p->events[i + n].id == id) ++n;
      const auto theirs = q->versions(id);
      bool same = theirs.size() == n;
      for (std::size_t k = 0; same && k < n; ++k) {
        const EventDesc& a = p->events[i + k];
        const EventDesc& b = theirs[k];
        same = a.version == b.version && a.symbol == b.symbol && same_payload(a.payload, b.payload);
      }
      if (same) out.push_back({p->guid, id, static_cast<std::uint16_t>(n)});
      i += n;
    }
  }
  return out;
}

std::string covered_header(const std::vector<CoveredEvent>& covered, const std::string& label) {
  std::string h =
      "// Written by roundtrip_select_" + label +
      " at build time (tests/support/covered.h): the events of " + label +
      "\n// that the built-in decoders have identically; roundtrip_builtin round-trips their code.\n"
      "#pragma once\n#include <array>\n#include \"covered.h\"\n\nnamespace clretw::test {\n\n"
      "inline constexpr std::array<CoveredEvent, " + std::to_string(covered.size()) + "> kCoveredByBuiltin{{\n";
  char line[160];
  for (const CoveredEvent& c : covered) {
    const Guid& g = c.provider;
    std::snprintf(line, sizeof line, "    {{0x%08x, 0x%04x, 0x%04x, {%u, %u, %u, %u, %u, %u, %u, %u}}, %u, %u},\n",
                  static_cast<unsigned>(g.data1), static_cast<unsigned>(g.data2), static_cast<unsigned>(g.data3),
                  g.data4[0], g.data4[1], g.data4[2], g.data4[3], g.data4[4], g.data4[5], g.data4[6], g.data4[7],
                  static_cast<unsigned>(c.id), static_cast<unsigned>(c.versions));
    h += line;
  }
  h += "}};\n\n}  // namespace clretw::test\n";
  return h;
}

}  // namespace clretw::test
