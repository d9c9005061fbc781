// clretw/describe.h - understand any event: through a catalog (generated
// decoders or a manifest loaded at run time), through the trace's own
// self-description (EventSource events in nettrace files), or not at all -
// and print it as text, JSON or CSV.
#pragma once

#include <cstddef>
#include <memory>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/catalogs.h"
#include "clretw/decode.h"
#include "clretw/format.h"
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
  std::string name;  // display name, e.g. "GC/Start" (copied from the describer's: a Described outlives it)
  std::string_view symbol;  // manifest symbol, e.g. "GCStart_V2" (empty when self-described)
  std::uint32_t consumed = 0;  // payload bytes the layout accounts for
  std::uint32_t trailing = 0;  // bytes beyond (a newer version's additions)
  // A self-described event whose metadata lists no fields although it has a payload: the runtime
  // writes no field list for EventSource events it cannot describe (a byte[] parameter of a
  // manifest-based EventSource, an array in a TraceLogging Write<T>). `trailing` is the payload size.
  bool undescribed = false;
  Error error;                 // when malformed
  // The describer's number for the event's type - its provider (GUID and name), id, version,
  // event name and self-description - dense from 0 in the order types were first seen; the
  // same number names the same type for the describer's life. kNoEventType once the describer
  // has stopped numbering (it keeps at most EventDescriber::kMaxTypes).
  std::uint32_t type = 0;
};
inline constexpr std::uint32_t kNoEventType = 0xFFFFFFFFu;

enum class LineFormat : std::uint8_t { text, json, csv };

// Catalogs in order of precedence, looked up as CatalogSet does (the Dispatcher
// uses the same lookup, so the two never disagree about an event).
//
// A describer remembers each event type it has seen (what the catalogs say of it and its
// name), so that describing the next event of that type costs a hash lookup; it is therefore
// used by one thread at a time. A type is its record's provider GUID, id and version, and its
// self-description (SelfDescription::serial()) when it has one - the description then names
// the provider and the event - else also the record's provider and event names.
class EventDescriber {
 public:
  static constexpr std::size_t kMaxTypes = 1u << 16;

  explicit EventDescriber(std::initializer_list<const Catalog*> catalogs) : catalogs_(catalogs) {}
  explicit EventDescriber(std::vector<const Catalog*> catalogs) : catalogs_(std::move(catalogs)) {}
  explicit EventDescriber(CatalogSet catalogs) : catalogs_(std::move(catalogs)) {}

  // Identifies the event and walks its payload, reporting fields to `visitor`
  // (may be null: then the payload is only checked).
  Described describe(const EventRecord& record, FieldVisitor* visitor = nullptr) const;
  // The same into `out`, reusing its storage: no allocation per event once `out` has held the
  // longest name (the tools describe every event of a trace this way).
  void describe(const EventRecord& record, Described& out, FieldVisitor* visitor = nullptr) const;

  // Event types numbered so far (every Described::type other than kNoEventType is below it).
  std::size_t types() const noexcept { return cache_.types.size(); }

 private:
  // What is known of one event type; the key first, then what describe() hands out.
  struct Type {
    Guid guid;
    std::uint16_t id = 0;
    std::uint8_t version = 0;
    std::uint64_t description = 0;                       // SelfDescription::serial(), 0 without one
    std::string provider_name, event_name;               // the record's, when it has no description
    EventLookup lookup;
    std::string name;  // display name
    std::uint32_t fixed_size[2] = {kVariable, kVariable};  // a catalog payload's size at pointer size 4, 8 when fixed
    bool self_described = false;
    // format_event()'s lines for this type start (after the time) with what depends only on
    // the type: its names, id and version, escaped. Made on first use, by LineFormat.
    std::string line_head[3];
    // The FieldPlan of its catalog record by Format and pointer size (4, 8), made on first use
    // (null when the record cannot have one).
    std::unique_ptr<FieldPlan> plan[2][2];
    bool planned[2][2] = {};
  };
  friend void format_event(const EventRecord& record, const EventDescriber& describer, double ms, LineFormat format,
                           std::string& out, Described* described);
  // The line head of d's type in `format` (format_event), made the first time it is asked for.
  const std::string& line_head(const EventRecord& r, const Described& d, LineFormat format) const;
  // describe() in two steps: which type r is (d's type, names and lookup), then its payload:
  // checked, or its fields reported to `visitor`, or written by `plan` to `planned`.
  const Type& identify(const EventRecord& r, Described& d) const;
  void examine(const EventRecord& r, const Type& t, Described& d, FieldVisitor* visitor, const FieldPlan* plan,
               std::string* planned) const;
  // The plan for the fields of d's type in `format`, or null: a type the describer does not
  // number, one without a catalog record, a record FieldPlan cannot plan.
  const FieldPlan* field_plan(const Described& d, unsigned pointer_size, Format format) const;
  static std::uint64_t description(const EventRecord& r) noexcept {
    return r.self_description ? r.self_description->serial() : 0;
  }
  static std::size_t hash(const Guid& guid, std::uint16_t id, std::uint8_t version, std::uint64_t description) noexcept;
  std::uint32_t find_type(const EventRecord& r) const;
  std::uint32_t add_type(const EventRecord& r, std::uint64_t description, std::size_t slot) const;
  void make_type(const EventRecord& r, Type& t) const;

  CatalogSet catalogs_;
  // The types seen. A copy of a describer starts with none (its numbers are its own).
  struct Cache {
    Cache() = default;
    Cache(const Cache&) noexcept {}
    Cache(Cache&&) noexcept = default;
    Cache& operator=(const Cache&) noexcept {
      types.clear(), slots.clear();
      return *this;
    }
    Cache& operator=(Cache&&) noexcept = default;
    ~Cache() = default;
    std::vector<std::unique_ptr<Type>> types;  // by number
    std::vector<std::uint32_t> slots;          // open addressing: number + 1, 0 when empty
    Type uncounted;                            // the type of an event beyond kMaxTypes
  };
  mutable Cache cache_;
};

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
