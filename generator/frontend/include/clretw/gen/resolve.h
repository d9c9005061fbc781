// clretw/gen/resolve.h - link a loaded manifest's references.
#pragma once

#include "clretw/gen/model.h"

namespace clretw::gen {

// Links events to templates, tasks, opcodes, levels and keywords, fields to
// maps and to their count/length siblings, and resolves $(string.X) messages.
// Reports nothing: what does not resolve stays kUnresolved, for the validator
// and the schema builder to report.
void resolve(Manifest& manifest);

}  // namespace clretw::gen
