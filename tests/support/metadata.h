// Metadata records for the events tests write into nettrace files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "clretw/nettrace.h"

namespace clretw::test {

// The runtime's GC/Start v2 at level 4 with the GC keyword (0x1): a CLR event, whose metadata names
// no event and lists no fields (the manifest has them).
inline nettrace::Metadata clr_gc_start() {
  nettrace::Metadata m;
  m.provider_name = "Microsoft-Windows-DotNETRuntime";
  m.event_id = 1;
  m.version = 2;
  m.level = 4;
  m.keywords = 0x1;
  return m;
}

// An EventSource event: its metadata names it and lists its fields (none is a list too).
inline nettrace::Metadata event_source_event(std::string provider, std::uint32_t event_id, std::string name,
                                             std::vector<nettrace::MetaField> fields = {}) {
  nettrace::Metadata m;
  m.provider_name = std::move(provider);
  m.event_id = event_id;
  m.event_name = std::move(name);
  m.describes_fields = true;
  m.fields = std::move(fields);
  return m;
}

}  // namespace clretw::test
