// clretw/gen/fixups.h - explicit corrections applied to a manifest model.
//
// See manifest/clr-fixups.xml. The CLR overlay is compiled into clretw-gen
// (so the tool works from anywhere) and applied to manifests that declare a
// CLR provider; any overlay can be given instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"
#include "clretw/text.h"

namespace clretw::gen {

struct Fixup {
  std::string provider;  // provider name pattern ('*' matches any run of characters)
  std::string tid;       // template
  std::string field;     // field, or "Struct.Member"
  std::vector<std::pair<std::string, std::string>> set;  // attribute -> new value
  std::vector<Field> insert;  // <data> children: fields inserted after `field` (padding the runtime writes)
  std::string reason;
  Loc loc;
};

struct FixupSet {
  std::string path;
  std::vector<Fixup> fixups;
};

std::optional<FixupSet> load_fixups_text(const std::string& text, const std::string& path, Diagnostics& diags);
std::optional<FixupSet> load_fixups(const std::string& path, Diagnostics& diags);

// The overlay in manifest/clr-fixups.xml, as compiled into the tool.
const FixupSet& clr_fixups();

// True when the manifest declares one of the .NET runtime's providers.
bool is_clr_manifest(const Manifest& m);

// Applies every fix-up; each change is reported as a note (M706), a fix-up
// that matches nothing as an error (M705). Call resolve() afterwards.
void apply_fixups(Manifest& m, const FixupSet& set, Diagnostics& diags);

using clretw::glob_match;  // fix-ups match providers with it (clretw/text.h)

}  // namespace clretw::gen
