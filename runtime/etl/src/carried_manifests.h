// carried_manifests.h (internal to the ETL reader) - the EventSource manifests an ETL file
// carries, put together from their chunks and handed to the ManifestLoader, if any.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clretw/carried.h"
#include "clretw/record.h"

namespace clretw::etl {

// EventSource providers logging to ETW write their manifest into the trace: events with id
// 0xFFFE whose payload is an envelope (format 1, major and minor version, magic 0x5B, chunk
// count and chunk number as little-endian u16 at bytes 4 and 6) and a chunk of the manifest's
// XML after byte 8. A provider's manifest is taken once, when its last missing chunk comes;
// later copies (ETW repeats them) are ignored.
class ManifestChunks {
 public:
  static constexpr std::uint16_t kManifestEvent = 0xFFFE;

  // Takes `r`, an event with id kManifestEvent, when it is a chunk: the manifest it completes,
  // loaded by `loader` (null: listed as needing one), or nothing.
  std::optional<CarriedManifest> take(const EventRecord& r, const ManifestLoader* loader);

 private:
  struct Pending {
    std::vector<std::string> chunks;
    std::vector<bool> have;
    std::size_t count = 0;
  };
  std::map<std::string, Pending> pending_;  // by provider GUID (text)
  std::set<std::string> taken_;
};

// The name attribute of the manifest's first <provider> element ("" when there is none).
std::string manifest_provider_name(std::string_view xml);

}  // namespace clretw::etl
