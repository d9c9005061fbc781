// clretw/describe.h - understand any event: through a catalog (generated
// decoders or a manifest loaded at run time), through the trace's own
// self-description (EventSource events in nettrace files), or not at all -
// and print it as text, JSON or CSV.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/catalogs.h"
#include "clretw/decode.h"
#include "clretw/record.h"
#include "clretw/schema.h"
#include "clretw/self_describing.h"

namespace clretw {

struct Described {
  enum class Kind : std::uint8_t { decoded, unknown, malformed };
  Kind kind = Kind::unknown;
  const ProviderDesc* provider = nullptr;  // catalog hit
  const EventDesc* event = nullptr;
  const SelfDescription* self_description = nullptr;  // self-described by the trace
  std::string_view provider_name;
  std::string name;        // display name, e.g. "GC/Start"
  std::string_view symbol;  // manifest symbol, e.g. "GCStart_V2" (empty when self-described)
  std::uint32_t consumed = 0;  // payload bytes the layout accounts for
  std::uint32_t trailing = 0;  // bytes beyond (a newer version's additions)
  // A self-described event whose metadata lists no fields although it has a payload: the runtime
  // writes no field list for EventSource events it cannot describe (a byte[] parameter of a
  // manifest-based EventSource, an array in a TraceLogging Write<T>). `trailing` is the payload size.
  bool undescribed = false;
  Error error;                 // when malformed
};

// Catalogs in order of precedence, looked up as CatalogSet does (the Dispatcher
// uses the same lookup, so the two never disagree about an event).
class EventDescriber {
 public:
  explicit EventDescriber(std::initializer_list<const Catalog*> catalogs) : catalogs_(catalogs) {}
  explicit EventDescriber(std::vector<const Catalog*> catalogs) : catalogs_(std::move(catalogs)) {}
  explicit EventDescriber(CatalogSet catalogs) : catalogs_(std::move(catalogs)) {}

  // Identifies the event and walks its payload, reporting fields to `visitor`
  // (may be null: then the payload is only checked).
  Described describe(const EventRecord& record, FieldVisitor* visitor = nullptr) const;
  // The same into `out`, reusing its storage: no allocation per event once `out` has held
  // the longest name (the tools describe every event of a trace this way).
  void describe(const EventRecord& record, Described& out, FieldVisitor* visitor = nullptr) const;

 private:
  CatalogSet catalogs_;
};

enum class LineFormat : std::uint8_t { text, json, csv };

// One event as a line (no trailing newline):
//   text  "    5455.9407  Microsoft-Windows-DotNETRuntime/GC/Start (1 v2)  pid=10064 tid=12272 cpu=1  Count=1 ..."
//   json  {"provider":...,"id":1,"version":2,"name":"GC/Start","symbol":"GCStart_V2","ms":5455.9407,
//          "timestamp":...,"pid":...,"tid":...,"cpu":...,"fields":{...},"stack":[...]}
//   csv   ms,provider,id,version,name,pid,tid,cpu,fields
// `ms` is the time since the trace's sync time. Malformed and unknown events
// are printed too, with the reason and the payload size.
void format_event(const EventRecord& record, const EventDescriber& describer, double ms, LineFormat format,
                  std::string& out, Described* described = nullptr);
std::string_view csv_header();

}  // namespace clretw
