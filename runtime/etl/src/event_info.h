// Internal to the ETL reader: events described by the trace's KernelTraceControl-MetaData events.
//
// A tool that merges an ETL file (PerfView, xperf) asks TDH, on the machine that recorded it, to
// describe each manifest event the trace holds, and writes the answers into the file as classic
// events of provider KernelTraceControl-MetaData {bbccf6c1-6cd1-48c4-80ff-839482e37671}, before the
// first event each describes:
//
//   opcode 32, EventInfo     a TRACE_EVENT_INFO: provider and event GUIDs, the event descriptor
//                            (id u16, version u8, channel, level, opcode u8, task u16, keywords
//                            u64), sixteen u32 (decoding source; offsets of the provider, level,
//                            channel, keywords, task, opcode, message and provider message names;
//                            binary XML offset and size; event name and attributes offsets;
//                            property count, top-level property count, flags) - 112 bytes - then
//                            24 bytes per property, then the UTF-16 strings the offsets point at
//                            (offsets from the start of the payload)
//   opcode 33, EventMapInfo  the provider's GUID, then an EVENT_MAP_INFO: name offset, flags,
//                            entry count, value type (u32 each), 8 bytes per entry (name offset,
//                            value), then its strings (offsets from the end of the GUID)
//
// A property: flags u32 (1 struct, 2 length from a property, 4 count from a property, 0x10 fixed
// length, 0x20 fixed count, 0x80 custom schema), name offset u32, then in-type u16, out-type u16 and
// map name offset u32 (for a struct: its first member's index u16 and member count u16, 4 bytes
// unused), count or the index of the property holding it u16, length or that index u16, 4 bytes of
// tags. In- and out-types are TDH's numbers, which are the manifest's.
//
// EventInfos turns these into the SelfDescription of the events they describe, through the core's
// layout engine: the reader hands it out with every such event, so the manifests the recording
// machine had need not be on the machine reading the trace.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/decode.h"
#include "clretw/guid.h"
#include "clretw/layout.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/self_describing.h"
#include "guid_key.h"

namespace clretw::etl::detail {

inline constexpr std::uint8_t kEventInfo = 32, kEventMapInfo = 33;
Guid metadata_provider();  // KernelTraceControl-MetaData's GUID

// The description of one event type at one pointer size.
class EventInfoDescription final : public SelfDescription {
 public:
  // The event's name in its manifest, else its task's; empty when the info names neither.
  std::string_view name() const noexcept override { return name_; }
  // As TraceEvent names such events: the name, then the opcode's ("Start", "ETW_OPCODE_ENABLE"),
  // leaving out win:Info; "EventID(N)" when there is no name.
  void append_display_name(std::string& out) const override;
  // False when the properties could not be used (problem() says why): the event then has a name
  // but no fields.
  bool has_fields() const noexcept override { return record_ != nullptr; }
  Result<std::uint32_t> visit(Bytes payload, FieldVisitor& visitor) const override;
  Result<std::uint32_t> check(Bytes payload) const override;

  std::string_view provider_name() const noexcept { return provider_; }
  std::string_view problem() const noexcept { return problem_; }
  const RecordDesc* record() const noexcept { return record_; }

 private:
  friend class EventInfos;
  EventInfoDescription() = default;
  std::string name_, opcode_, provider_, problem_;
  std::uint16_t id_ = 0;
  unsigned pointer_size_ = 8;
  const RecordDesc* record_ = nullptr;  // in its Built
};

class EventInfos {
 public:
  EventInfos();
  ~EventInfos();
  EventInfos(const EventInfos&) = delete;
  EventInfos& operator=(const EventInfos&) = delete;

  // Takes a MetaData event (EventInfo or EventMapInfo; other opcodes are left alone). The first
  // readable info of an event type is kept; an unreadable one is counted, with why, in refused().
  void take(const EventRecord& r);
  // The description of the events (provider, id, version) at `pointer_size` (4 or 8), made when
  // first asked (the maps met by then are used); null when no EventInfo describes them.
  const EventInfoDescription* find(const Guid& provider, std::uint16_t id, std::uint8_t version, unsigned pointer_size);

  std::uint64_t taken() const noexcept { return taken_; }
  std::uint64_t refused() const noexcept { return refused_; }
  const std::string& last_refusal() const noexcept { return last_refusal_; }

 private:
  struct Key {
    GuidKey provider;
    std::uint16_t id;
    std::uint8_t version;
    friend bool operator<(const Key& a, const Key& b) noexcept {
      return a.provider != b.provider ? a.provider < b.provider : a.id != b.id ? a.id < b.id : a.version < b.version;
    }
  };
  struct Built;  // a description with the tables behind it
  struct Info {
    std::vector<std::uint8_t> bytes;  // the TRACE_EVENT_INFO, checked as far as its header and properties
    std::unique_ptr<Built> built[2];  // pointer size 4, 8
  };
  struct Map {
    std::deque<std::string> names;
    std::vector<MapEntry> entries;
    MapDesc desc;
  };
  std::unique_ptr<Built> build(const Info& info, unsigned pointer_size) const;

  std::map<Key, Info> infos_;
  std::map<std::pair<GuidKey, std::string>, std::unique_ptr<Map>> maps_;  // by provider and map name
  Key last_key_{};
  const EventInfoDescription* last_ = nullptr;  // what find() answered last
  std::uint64_t taken_ = 0, refused_ = 0;
  std::string last_refusal_;
};

}  // namespace clretw::etl::detail
