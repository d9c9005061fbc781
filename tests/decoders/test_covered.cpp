// tests/support/covered.h, which the round trips of the real manifests rely on to leave events to
// roundtrip_builtin: a record equals itself and differs from any copy changed in one thing.
#include <doctest/doctest.h>

#include <vector>

#include "clretw/events.h"
#include "covered.h"

namespace {

const clretw::RecordDesc* record_with_map_and_layout() {
  for (const clretw::ProviderDesc* p : clretw::catalog().providers)
    for (const clretw::EventDesc& e : p->events)
      if (e.payload && e.payload->check)
        for (const clretw::FieldDesc& f : e.payload->fields)
          if (f.map && !f.map->entries.empty()) return e.payload;
  return nullptr;
}

}  // namespace

TEST_CASE("covered: the built-in decoders cover themselves, every event with all its versions") {
  const auto covered = clretw::test::covered_events(clretw::catalog(), clretw::catalog());
  std::size_t events = 0, versions = 0;
  for (const clretw::ProviderDesc* p : clretw::catalog().providers) {
    versions += p->events.size();
    for (std::size_t i = 0; i < p->events.size(); ++i) events += i == 0 || p->events[i].id != p->events[i - 1].id;
  }
  std::size_t covered_versions = 0;
  for (const auto& c : covered) covered_versions += c.versions;
  CHECK(covered.size() == events);
  CHECK(covered_versions == versions);
}

TEST_CASE("covered: a record differs from a copy changed in a field, a map entry, a layout or its check") {
  const clretw::RecordDesc* r = record_with_map_and_layout();
  REQUIRE(r != nullptr);
  CHECK(clretw::test::same_record(*r, *r));

  std::vector<clretw::FieldDesc> fields(r->fields.begin(), r->fields.end());
  auto with_fields = [&](const std::vector<clretw::FieldDesc>& f) {
    clretw::RecordDesc copy = *r;
    copy.fields = f;
    return copy;
  };
  CHECK(clretw::test::same_record(*r, with_fields(fields)));  // an equal copy elsewhere in memory
  {
    auto f = fields;
    f.back().name = "Renamed";
    CHECK_FALSE(clretw::test::same_record(*r, with_fields(f)));
  }
  {
    auto f = fields;
    f.front().out = f.front().out == clretw::OutType::HexInt32 ? clretw::OutType::Default : clretw::OutType::HexInt32;
    CHECK_FALSE(clretw::test::same_record(*r, with_fields(f)));
  }
  {  // one map entry's name
    auto f = fields;
    for (auto& field : f)
      if (field.map && !field.map->entries.empty()) {
        static std::vector<clretw::MapEntry> entries;
        static clretw::MapDesc map;
        entries.assign(field.map->entries.begin(), field.map->entries.end());
        entries.back().name = "SomethingElse";
        map = *field.map;
        map.entries = entries;
        field.map = &map;
        break;
      }
    CHECK_FALSE(clretw::test::same_record(*r, with_fields(f)));
  }
  {  // the layout at pointer size 8
    clretw::RecordDesc copy = *r;
    copy.layout[1].min_size += 1;
    CHECK_FALSE(clretw::test::same_record(*r, copy));
  }
  {  // no layout view's check
    clretw::RecordDesc copy = *r;
    copy.check = nullptr;
    CHECK_FALSE(clretw::test::same_record(*r, copy));
  }
}
