// clretw/gen/merge.h - carry a new manifest's facts into an existing one.
//
// This is how the built-in manifest follows the runtime: `base` is the
// project's manifest (the runtime's facts plus the project's additions and
// notes), `update` a newer ClrEtwAll.man. The result has every fact of
// `update` exactly as it states it, and keeps from `base`:
//   - the notes (comments) of every element that is still there, matched by
//     name (events by id and version, map entries by value); update's own
//     comments are dropped: they are not the project's words;
//   - what `update` does not have, where it does not collide: providers,
//     keywords (mask free), levels, channels, tasks and opcodes (value free),
//     maps, map entries (value free), templates, and events whose id and
//     version are free and whose symbol `update` does not use elsewhere
//     (an event that moved is the same event, and update's place wins);
//   - the map a base field names where update's field of the same name names
//     none (the project names values the runtime leaves unnamed).
// A kept event whose template, task, opcode or keywords no longer resolve is
// dropped; declarations only the base has (tasks, opcodes, maps, templates)
// stay while something kept uses them. Every such choice is reported, one
// line each, so an update can be reviewed.
#pragma once

#include <string>
#include <vector>

#include "clretw/gen/model.h"

namespace clretw::gen {

struct MergeResult {
  Manifest manifest;
  std::vector<std::string> kept;     // base-only facts carried over
  std::vector<std::string> dropped;  // base-only facts that collide or no longer resolve
};

// Both inputs must have been resolved. The result carries messages as text and
// has no string table or resolved indices: write it with write_manifest (and
// load that to use it).
MergeResult merge_manifests(const Manifest& base, const Manifest& update);

}  // namespace clretw::gen
