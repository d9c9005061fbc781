// Descriptor tables built from a manifest at run time, as the reference the
// generated tables are compared with.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clretw/gen/model.h"
#include "clretw/gen/schema_builder.h"

namespace clretw::test {

struct Reference {
  std::vector<std::unique_ptr<gen::Manifest>> manifests;
  std::vector<std::unique_ptr<gen::BuiltSchema>> schemas;
  std::string diagnostics;  // anything the loader or builder reported (errors and warnings)

  // The record of (provider, id, version) exactly; nullptr if absent or without payload.
  const RecordDesc* record(const Guid& provider, std::uint16_t id, unsigned version) const;
};

// Loads, fixes up (CLR manifests), resolves and builds each manifest, as
// clretw-gen generate does. `paths` is separated by ';'.
std::unique_ptr<Reference> load_reference(const std::string& paths);

// The ../shared directory configured at build time, or "" when absent.
std::string shared_dir();

// shared_dir(); when it is absent, "" having called skip(why) (the calling test case then returns).
std::string shared_dir_or_skip(const std::string& why);

}  // namespace clretw::test
