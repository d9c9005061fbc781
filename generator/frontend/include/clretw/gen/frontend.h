// clretw/gen/frontend.h - a manifest path in, a manifest and its schema out.
//
// The one place that spells out the pipeline's front: load (loader.h), fix up
// (fixups.h; CLR manifests get the built-in overlay unless told otherwise),
// resolve (resolve.h) and lay out (schema_builder.h). clretw-gen generate,
// validate, diff and merge, clretw-dump --manifest, the fuzzers and the tests
// all come in through it, so they see the same model of the same file.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/model.h"
#include "clretw/gen/schema_builder.h"

namespace clretw::gen {

struct FrontEndOptions {
  enum class Fixups : std::uint8_t {
    clr,     // the built-in CLR overlay, for manifests that declare a CLR provider (clretw-gen generate's default)
    none,    // the manifest as written (validate, diff, merge)
    custom,  // `custom` below, whatever the manifest
  };
  Fixups fixups = Fixups::clr;
  const FixupSet* custom = nullptr;
  bool schema = true;  // lay the templates out (build_schema); off for what reads the model only
};

// The fix-ups a command's --fixups FILE / --no-fixups ask for, into `options`; `custom` keeps
// FILE's overlay alive while `options` points at it. False when FILE cannot be used, having told
// `err` why ("<command>: --fixups FILE:" and the diagnostics); the command exits with status 2.
bool choose_fixups(std::string_view command, const std::string& file, bool none, std::optional<FixupSet>& custom,
                   FrontEndOptions& options, Diagnostics& diags, std::ostream& err);

struct LoadedManifest {
  std::unique_ptr<Manifest> manifest;   // resolved
  std::unique_ptr<BuiltSchema> schema;  // null unless options.schema
};

// Reads `path` (or, with load_text, `text` named `path`) through the front end.
// nullopt when the file cannot be read or is not well-formed XML; every other
// problem is a located diagnostic in `diags`, and the model is returned anyway.
std::optional<LoadedManifest> load(const std::string& path, const FrontEndOptions& options, Diagnostics& diags);
std::optional<LoadedManifest> load_text(std::string text, const std::string& path, const FrontEndOptions& options,
                                        Diagnostics& diags);

// load() of each of `paths`, in order, leaving out those that fail. `unreadable_input` is set when one
// could not be read at all (exit status 2), not when one is not well-formed XML (an error: status 1).
std::vector<LoadedManifest> load_all(const std::vector<std::string>& paths, const FrontEndOptions& options,
                                     Diagnostics& diags, bool& unreadable_input);

}  // namespace clretw::gen
