// clretw/gen/emit_cpp.h - the C++ emitter.
//
// Reads the model and the built schema (never the XML) and renders the
// templates in templates/: per provider a header (enums, payload structs,
// views, event types) and a source (descriptor tables, view factories), plus
// an umbrella header and a unity source that defines the catalog.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"
#include "clretw/gen/schema_builder.h"

namespace clretw::gen {

struct EmitOptions {
  std::string root_namespace = "clretw";  // e.g. "clretw" or "clretw::main"
  // Template texts by file name ("provider.h.mustache", ...). Empty: the
  // templates compiled into clretw-gen.
  std::map<std::string, std::string> templates;
};

struct EmittedFile {
  std::string path;  // relative to the output directory
  std::string text;
};

struct EmitResult {
  std::vector<EmittedFile> files;
  std::size_t providers = 0, events = 0, event_ids = 0, templates = 0, maps = 0;
};

// `sources` are the manifests (already resolved, fixed up and built), in
// command-line order; their providers are generated together.
struct SourceManifest {
  const Manifest* manifest;
  const BuiltSchema* schema;
  std::string display_path;  // shown in generated comments
};

std::optional<EmitResult> emit_cpp(const std::vector<SourceManifest>& sources, const EmitOptions& options,
                                   Diagnostics& diags);

// The templates compiled into the tool.
const std::map<std::string, std::string>& builtin_templates();

// Reads *.mustache from a directory.
std::optional<std::map<std::string, std::string>> load_templates(const std::string& dir, Diagnostics& diags);

}  // namespace clretw::gen
