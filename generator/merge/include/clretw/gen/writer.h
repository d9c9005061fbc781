// clretw/gen/writer.h - the model back to manifest XML, in one canonical form.
//
// The form is fixed: elements in schema order, attributes in a fixed order,
// numbers as numbers (masks and map values in hex), four-space indents, each
// element's note as an XML comment just before it. Messages go to a string
// table whose ids the writer makes from what they name; event messages (the
// format strings Event Viewer shows) are left out, since no decoder uses them.
// Loading the output and writing it again gives the same bytes.
#pragma once

#include <string>

#include "clretw/gen/model.h"

namespace clretw::gen {

// The manifest's note becomes the comment at the top of the file. The manifest
// must have been resolved: messages are written from their text.
std::string write_manifest(const Manifest& manifest);

}  // namespace clretw::gen
