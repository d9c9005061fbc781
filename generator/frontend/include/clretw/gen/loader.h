// clretw/gen/loader.h - instrumentation manifest XML to the model.
//
// The loader keeps everything the manifest says (attributes as written, with
// numbers parsed where they must be numbers) and reports what it cannot
// represent: malformed XML, elements or inTypes it does not know, attributes
// it would otherwise drop. <UserData> content is skipped by design.
// resolve() (resolve.h) then links references; frontend.h runs the whole front.
#pragma once

#include <optional>
#include <string>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"
#include "clretw/gen/resolve.h"  // loader users resolve next

namespace clretw::gen {

// Reads and parses a manifest. Returns nullopt when the file cannot be read or
// is not well-formed XML (the reason is in diags); otherwise a model, with any
// structural problems reported in diags.
// The whole of an input file; M008 (unreadable-file) naming `what` when it
// cannot be opened or read.
std::optional<std::string> read_input(const std::string& path, std::string_view what, Diagnostics& diags);

std::optional<Manifest> load_manifest(const std::string& path, Diagnostics& diags);

// The same, from text in memory; `path` names it in diagnostics.
std::optional<Manifest> load_manifest_text(std::string text, const std::string& path, Diagnostics& diags);


// True when loading failed because the file could not be read at all (M008),
// as opposed to a file that is not well-formed XML (M001): exit status 2, not 1.
bool unreadable(const Diagnostics& diags);

// Parses "123" or "0x7B".
std::optional<std::uint64_t> parse_number(const std::string& text);

}  // namespace clretw::gen
