// clretw/gen/diff.h - what changed between two versions of a manifest, and
// whether existing decoders survive it.
//
// Providers are matched by name, keywords/tasks/opcodes/maps by name, map
// entries by value, events by (value, version). Every change has a stable kind
// (e.g. "event-version-added") and a class:
//   compatible  decoders built from OLD decode NEW's events as before
//               (new providers, events, versions, keywords, tasks, opcodes, maps, map entries)
//   warning     decoding is unchanged but what users see or filter on moves
//               (a map entry renamed or removed, an event's level or channel, a task/opcode renamed,
//                a map given to a field that had none: its values print by name, its accessor returns the enum)
//   breaking    decoders or consumers built from OLD go wrong on NEW
//               (a field of an existing event version changed, an id reused for another event or renamed,
//                a removed event version, provider, keyword, task, opcode or map, a keyword bit
//                reassigned, an event's keywords losing bits or its task/opcode value changing)
#pragma once

#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"

namespace clretw::gen {

enum class ChangeClass : std::uint8_t { compatible, warning, breaking };

struct Change {
  ChangeClass cls = ChangeClass::compatible;
  std::string kind;      // stable, e.g. "field-changed"
  std::string provider;  // provider name
  std::string item;      // what changed, e.g. "event 10 v2 'GCStart_V2'"
  std::string detail;    // how, e.g. "field 'Depth': inType win:UInt16 -> win:UInt32"
  Loc old_loc, new_loc;  // zero when the item is absent on that side
};

struct ProviderSummary {
  std::string name;
  std::size_t events_added = 0;    // event ids new in NEW
  std::size_t versions_added = 0;  // (id, version) pairs new in NEW, ids new or not
  std::size_t events_removed = 0, versions_removed = 0;
  std::size_t compatible = 0, warnings = 0, breaking = 0;
};

struct DiffResult {
  std::string old_path, new_path;
  std::vector<Change> changes;  // per provider, in NEW's order (removed providers last)
  std::vector<ProviderSummary> providers;
  std::size_t breaking() const;
};

// Both manifests must have been resolved.
DiffResult diff_manifests(const Manifest& old_manifest, const Manifest& new_manifest);

// What changed from one event to another, as diff_manifests() reports an event version
// present on both sides: its fields, symbol, level, keywords, task, opcode and channel.
// clretw-gen docs compares consecutive versions of one event id with it. The events must
// have been resolved (their fields are looked up in their providers' templates).
std::vector<Change> diff_events(const Provider& old_provider, const Event& old_event, const Provider& new_provider,
                                const Event& new_event);

std::string_view class_name(ChangeClass c) noexcept;

// "file:line: breaking[field-changed]: provider P: event ... : detail" lines, then a summary per provider.
std::string format_diff_text(const DiffResult& r);
// {"old", "new", "breaking", "providers": [...], "changes": [...]}
std::string format_diff_json(const DiffResult& r, int status);

struct DiffRun {
  int status = 0;  // 0 nothing breaking, 1 breaking changes, 2 a manifest unreadable (see diags)
  Diagnostics diags;  // loader errors of unreadable input
  DiffResult result;
};

// `clretw-gen diff OLD NEW` without printing.
DiffRun diff_files(const std::string& old_path, const std::string& new_path);

}  // namespace clretw::gen
