// clretw/gen/schema_builder.h - from the model to descriptor tables.
//
// build_schema() creates, for a resolved manifest, the same descriptor tables
// generated code carries as constexpr data (clretw/schema.h), with every
// record laid out by the layout engine at pointer sizes 4 and 8. The emitter
// renders these tables; tools decode with them directly when a manifest is
// given at run time.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"
#include "clretw/layout.h"
#include "clretw/schema.h"

namespace clretw::gen {

class BuiltSchema {
 public:
  struct ProviderTables {
    const ProviderDesc* desc = nullptr;
    std::vector<const RecordDesc*> templates;  // by template index; nullptr when it could not be laid out
    std::vector<int> event_source;             // desc->events[i] came from provider.events[event_source[i]]
  };

  const Catalog& catalog() const noexcept { return catalog_; }
  const std::vector<ProviderTables>& providers() const noexcept { return providers_; }

 private:
  friend class SchemaBuilder;
  std::deque<std::string> strings_;
  std::deque<std::vector<FieldDesc>> fields_;
  std::deque<RecordDesc> records_;
  std::deque<LayoutData> layouts_;
  std::deque<std::vector<clretw::MapEntry>> map_entries_;  // not gen::MapEntry
  std::deque<MapDesc> maps_;
  std::deque<std::vector<const MapDesc*>> map_lists_;
  std::deque<std::vector<KeywordDesc>> keywords_;
  std::deque<std::vector<LevelDesc>> levels_;
  std::deque<std::vector<TaskDesc>> tasks_;
  std::deque<std::vector<OpcodeDesc>> opcodes_;
  std::deque<std::vector<EventDesc>> events_;
  std::deque<std::vector<std::uint16_t>> first_version_;
  std::deque<ProviderDesc> provider_descs_;
  std::vector<const ProviderDesc*> provider_ptrs_;
  std::vector<ProviderTables> providers_;
  Catalog catalog_;
};

// The manifest must have been resolved. Problems that keep an event from being
// decoded are reported as errors (the event is left out); the schema is still
// returned so tools can decode everything else.
std::unique_ptr<BuiltSchema> build_schema(const Manifest& m, Diagnostics& diags);

// "GC/Start": the task's message and the opcode's message; the task alone for
// opcode 0; the symbol when the event has no task.
std::string display_name(const Provider& p, const Event& e);

}  // namespace clretw::gen
