// clretw/carried.h - manifests that a trace carries inside itself, and the hook that loads them.
//
// EventSource providers logging to ETW write their instrumentation manifest into the trace (an
// ETL file's events with id 0xFFFE). The trace source puts the pieces together; turning the XML
// into a Catalog takes a manifest loader, which the runtime does not have: the generator library
// provides one (clretw::gen::CarriedManifestLoader, clretw/gen/carried.h), and a program that
// links it hands it to the source (OpenOptions::manifest_loader, etl::ReaderOptions). Without a
// loader the manifests are still listed, with Status::no_loader, and their events stay unknown.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "clretw/guid.h"
#include "clretw/schema.h"

namespace clretw {

class ManifestLoader {
 public:
  virtual ~ManifestLoader() = default;
  // The catalog of the manifest `xml`, named `what` in diagnostics; null when it does not load,
  // with the reasons appended to `diagnostics` (lines, each ending in '\n'). Must not throw: the
  // XML comes from the trace, untrusted. The catalog keeps what it points to alive.
  virtual std::shared_ptr<const Catalog> load(std::string xml, const std::string& what,
                                              std::string& diagnostics) const = 0;
};

// One manifest a trace carried, once all of it has come.
struct CarriedManifest {
  enum class Status : std::uint8_t {
    loaded,     // `catalog` describes the provider's events
    failed,     // the loader refused it: `diagnostics` says why
    no_loader,  // the source was given no ManifestLoader
  };
  Guid provider_guid;         // of the events that carried it
  std::string provider_name;  // the name the manifest gives its provider (empty when none is found)
  Status status = Status::no_loader;
  std::shared_ptr<const Catalog> catalog;  // when loaded
  std::string diagnostics;                 // when failed
};

}  // namespace clretw
