// Internal: TraceLogging (self-describing ETW) events.
//
// A TraceLogging event carries its own schema in extended data item 11 (EVENT_SCHEMA_TL) and its
// provider's name in item 12 (PROV_TRAITS). Encoding (microsoft/tracelogging,
// TraceLoggingProvider.h and etw/cpp/traceloggingdynamic/TraceLoggingDynamic.h), little-endian:
//
//   schema  = u16 size (of the whole schema), tag bytes (while the high bit is set, then one
//             more), event name (UTF-8, NUL), fields up to `size`
//   field   = name (UTF-8, NUL), u8 in-meta, [u8 out-meta if in-meta & 0x80],
//             [tag bytes if out-meta & 0x80], [u16 count if (in-meta & 0x60) == 0x20],
//             [u16 schema size, schema bytes if (in-meta & 0x60) == 0x60]
//   in-meta = type (low 5 bits) | 0x20 constant count | 0x40 count in the payload (u16 before the
//             elements) | 0x60 custom serializer (low 5 bits: its protocol) | 0x80 out-meta follows
//   struct  = type 24; the low 7 bits of its out-meta say how many of the fields after it are its
//             members (a member may itself be a struct)
//   traits  = u16 size, provider name (UTF-8, NUL), traits (u16 size, u8 type, data) up to `size`
//
// A TraceLoggingEvent is the SelfDescription the reader hands out with every event of one schema;
// TraceLoggingSchemas keeps one per distinct (provider, opcode, traits, schema) for the reader's life.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/decode.h"
#include "clretw/guid.h"
#include "clretw/result.h"
#include "clretw/self_describing.h"

namespace clretw::etl::detail {

// TraceLogging in-types (TlgIn_t): the low 5 bits of a field's in-meta.
enum class TlgIn : std::uint8_t {
  Null = 0, UnicodeString = 1, AnsiString = 2, Int8 = 3, UInt8 = 4, Int16 = 5, UInt16 = 6, Int32 = 7,
  UInt32 = 8, Int64 = 9, UInt64 = 10, Float = 11, Double = 12, Bool32 = 13, Binary = 14, Guid = 15,
  PointerUnsupported = 16, FileTime = 17, SystemTime = 18, Sid = 19, HexInt32 = 20, HexInt64 = 21,
  CountedString = 22, CountedAnsiString = 23, Struct = 24, CountedBinary = 25,
};

// One field of a schema, with its members when it is a struct.
struct TlField {
  enum class Count : std::uint8_t { scalar, constant, variable, custom };
  std::string name;
  TlgIn type = TlgIn::Null;  // for custom fields: their protocol, shown as binary
  std::uint8_t out = 0;      // TraceLogging out-type (TlgOut_t), 0 when absent
  Count count = Count::scalar;
  std::uint16_t fixed_count = 0;  // Count::constant
  FieldDesc desc;                 // what formatters see (desc.name is `name`; set once the tree is built)
  std::vector<TlField> members;   // Struct
};

class TraceLoggingEvent final : public SelfDescription {
 public:
  // Parses the schema (item 11's data) and the provider traits (item 12's data, may be empty);
  // `opcode` is the event header's, for the display name. An error's offset is the byte of the
  // schema (or of the traits) that is wrong; its message says what and where.
  static Result<std::unique_ptr<TraceLoggingEvent>> parse(Bytes schema, Bytes traits, std::uint8_t opcode);

  std::string_view name() const noexcept override { return name_; }
  void append_display_name(std::string& out) const override;
  bool has_fields() const noexcept override { return true; }  // a schema declares its fields, even none
  Result<std::uint32_t> visit(Bytes payload, FieldVisitor& visitor) const override;
  Result<std::uint32_t> check(Bytes payload) const override;

  // The provider's name from its traits; empty when the event carried none.
  std::string_view provider_name() const noexcept { return provider_; }
  const std::vector<TlField>& fields() const noexcept { return fields_; }

 private:
  TraceLoggingEvent() = default;
  std::string name_, provider_;
  std::uint8_t opcode_ = 0;
  std::vector<TlField> fields_;
};

// What the reader hands out with an event whose schema or traits do not parse: every walk of its payload
// fails with why, so the event is malformed, with its reason, and the trace goes on.
class UnreadableTraceLogging final : public SelfDescription {
 public:
  explicit UnreadableTraceLogging(Error why) : why_(std::move(why)) {}
  std::string_view name() const noexcept override { return "UnreadableSchema"; }
  void append_display_name(std::string& out) const override { out += name(); }
  bool has_fields() const noexcept override { return true; }
  Result<std::uint32_t> visit(Bytes, FieldVisitor&) const override { return why_; }
  Result<std::uint32_t> check(Bytes) const override { return why_; }

 private:
  Error why_;
};

// The schemas an ETL reader has met, each parsed once.
class TraceLoggingSchemas {
 public:
  // The description of an event of provider `guid` with this opcode, traits and schema.
  Result<const TraceLoggingEvent*> find(const Guid& guid, std::uint8_t opcode, Bytes traits, Bytes schema);
  // After find() failed: the description of the events with that schema, which says `why` (kept, as
  // find()'s are, for the reader's life).
  const UnreadableTraceLogging* unreadable(Error why);

 private:
  std::string key_;  // reused: a lookup allocates nothing once warm
  std::unordered_map<std::string, std::unique_ptr<TraceLoggingEvent>> known_;
  std::unordered_map<std::string, std::unique_ptr<UnreadableTraceLogging>> unreadable_;
  const TraceLoggingEvent* last_ = nullptr;
  std::string last_key_;
};

}  // namespace clretw::etl::detail
