// clretw/gen/carried.h - the generator's front end as the runtime's manifest loader: the
// manifests a trace carries (clretw/carried.h), and manifest files given at run time.
//
//   clretw::gen::CarriedManifestLoader loader;
//   clretw::OpenOptions o;
//   o.manifest_loader = &loader;            // an ETL file's EventSource manifests decode its events
//   auto source = clretw::open_trace(path, o);
#pragma once

#include <memory>
#include <string>

#include "clretw/carried.h"
#include "clretw/schema.h"

namespace clretw::gen {

// load_text() of the manifest as written (no fix-ups, which are for the CLR's own manifest);
// refused when it has errors.
class CarriedManifestLoader final : public ManifestLoader {
 public:
  std::shared_ptr<const Catalog> load(std::string xml, const std::string& what, std::string& diagnostics) const override;
};

// A manifest file as clretw-dump --manifest loads it (load() with the CLR fix-ups): its catalog,
// or null when the file cannot be read or is not well-formed XML. `report` gets what to show:
// every diagnostic when it failed, its errors otherwise.
std::shared_ptr<const Catalog> load_catalog(const std::string& path, std::string& report);

}  // namespace clretw::gen
