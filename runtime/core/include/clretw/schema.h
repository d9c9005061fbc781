// clretw/schema.h - descriptor tables: what a manifest says, in a form C++ can
// hold as constant data.
//
// Generated code emits these as constexpr tables (no static initialisers);
// clretw-gen's schema builder creates the same structures at run time from any
// manifest. Everything that decodes without generated types - the dynamic
// decoder, the formatters, the layout walker behind the generated views -
// reads these tables, so there is one description of every payload.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "clretw/guid.h"

namespace clretw {

// The manifest's inType, as a closed set.
enum class InType : std::uint8_t {
  Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, HexInt32, HexInt64,
  Float, Double, Boolean, Guid, Pointer, FileTime, SystemTime,
  UnicodeString, AnsiString, Binary, Sid,
  Struct,  // a <struct>: the field's members describe each element
};

// The manifest's outType (how to show a value); Default when absent.
enum class OutType : std::uint8_t {
  Default, String, DateTime, Byte, UnsignedByte, Short, UnsignedShort, Int, UnsignedInt,
  Long, UnsignedLong, Float, Double, Boolean, Guid, HexBinary, HexInt8, HexInt16, HexInt32,
  HexInt64, Pid, Tid, Port, IPv4, IPv6, SocketAddress, CimDateTime, EtwTime, Xml, ErrorCode,
  Win32Error, NtStatus, HResult, DateTimeCultureInsensitive, Json, Utf8, Pkcs7WithTypeInfo,
  CodePointer,
};

std::string_view intype_name(InType t) noexcept;    // "win:UInt32"
std::string_view outtype_name(OutType t) noexcept;  // "xs:unsignedInt", "" for Default
bool parse_intype(std::string_view name, InType& out) noexcept;
bool parse_outtype(std::string_view name, OutType& out) noexcept;

// Bytes a value of type t occupies on the wire, or 0 when its size is not
// fixed by the type alone (strings, binary, SID, struct).
constexpr unsigned scalar_size(InType t, unsigned pointer_size) noexcept {
  switch (t) {
    case InType::Int8: case InType::UInt8: return 1;
    case InType::Int16: case InType::UInt16: return 2;
    case InType::Int32: case InType::UInt32: case InType::HexInt32:
    case InType::Float: case InType::Boolean: return 4;
    case InType::Int64: case InType::UInt64: case InType::HexInt64:
    case InType::Double: case InType::FileTime: return 8;
    case InType::Guid: case InType::SystemTime: return 16;
    case InType::Pointer: return pointer_size;
    default: return 0;
  }
}
constexpr bool is_unsigned(InType t) noexcept {
  return t == InType::UInt8 || t == InType::UInt16 || t == InType::UInt32 || t == InType::UInt64 ||
         t == InType::HexInt32 || t == InType::HexInt64 || t == InType::Pointer;
}
constexpr bool is_signed(InType t) noexcept {
  return t == InType::Int8 || t == InType::Int16 || t == InType::Int32 || t == InType::Int64;
}
constexpr bool is_integer(InType t) noexcept { return is_unsigned(t) || is_signed(t); }

// A count or a length: absent, a constant, or the value of an earlier field of
// the same record (`value` is then that field's index).
struct Extent {
  enum class Kind : std::uint8_t { none, constant, field };
  Kind kind = Kind::none;
  std::uint32_t value = 0;
  constexpr bool is_field() const noexcept { return kind == Kind::field; }
};

struct MapEntry {
  std::uint64_t value = 0;
  std::string_view name{};  // the entry's message, resolved from the string table
};

struct MapDesc {
  std::string_view name{};
  bool bitmap{};
  std::span<const MapEntry> entries{};

  // The entry name for a value map; empty when the value has no entry.
  std::string_view find(std::uint64_t value) const noexcept;
  // Value map: the entry name, or the number. Bitmap: set flags joined with
  // ", " in entry order, unknown bits as one hex number; "0" when no bit is set
  // (or the name of a 0 entry). An entry of several bits names that value of a
  // bit field and hides the narrower entries inside it.
  void format(std::uint64_t value, std::string& out) const;
};

struct RecordDesc;

struct FieldDesc {
  std::string_view name{};
  InType type = InType::UInt32;
  OutType out = OutType::Default;
  Extent count{};   // array: number of elements (struct fields always have one)
  Extent length{};  // string length in characters, binary length in bytes; a win:Binary without one holds the
                    // rest of the payload (its template's last field: a manifest's length="*")
  const MapDesc* map = nullptr;
  const RecordDesc* members = nullptr;  // InType::Struct: the element record
};

inline constexpr std::uint32_t kVariable = 0xFFFFFFFFu;
inline constexpr std::uint32_t kNoField = 0xFFFFFFFFu;

// Where a field of a record lives, for one pointer size. A record is split
// into segments: each begins where the previous variable-size item ended, so
// every field sits at a constant offset from the start of its segment.
struct FieldPlace {
  std::uint32_t seg = 0;   // segment index
  std::uint32_t off = 0;   // offset from the segment start
  std::uint32_t size = 0;  // size in bytes, or kVariable
};

struct Segment {
  std::uint32_t fixed = 0;  // bytes of fixed-size items at the start of the segment
  std::uint32_t var_field = kNoField;  // the variable-size field that ends the segment, or kNoField
};

struct Layout {
  std::span<const FieldPlace> places{};  // one per field, in field order
  std::span<const Segment> segments{};   // at least one
  std::uint32_t min_size = 0;          // sum of fixed parts: the smallest valid payload
  constexpr bool fixed() const noexcept { return segments.size() == 1; }
};

// A template (or the element type of a struct field): its fields and their
// layout at pointer size 4 (layout[0]) and 8 (layout[1]).
struct RecordDesc {
  std::string_view name{};  // template tid, or struct name
  std::span<const FieldDesc> fields{};
  Layout layout[2]{};
  std::uint32_t line = 0;  // manifest line
  // Generated code's check of a payload (the payload struct's straight-line check, clretw::check_layout):
  // the bytes the layout consumes, or kVariable when the payload does not verify or the pointer
  // size is neither 4 nor 8; seg (kMaxSegments entries) receives where each segment starts. Null when
  // there is none (tables loaded at run time, layouts no layout view reads): check_fields() and the
  // owning structs' decode then walk the layout.
  std::uint32_t (*check)(std::span<const std::uint8_t> payload, unsigned pointer_size, std::uint32_t* seg) noexcept = nullptr;

  constexpr const Layout& layout_for(unsigned pointer_size) const noexcept { return layout[pointer_size == 8]; }
};

struct KeywordDesc {
  std::string_view name{};
  std::uint64_t mask = 0;
  std::string_view message{};
};
// A level or a task: a name for a value.
template <class V>
struct NamedValueDesc {
  std::string_view name{};
  V value = 0;
  std::string_view message{};
};
using LevelDesc = NamedValueDesc<std::uint8_t>;
using TaskDesc = NamedValueDesc<std::uint16_t>;
struct OpcodeDesc {
  std::string_view name{};
  std::uint16_t task = 0;  // 0 for provider-wide opcodes
  std::uint8_t value = 0;
  std::string_view message{};
};

// One version of one event.
struct EventDesc {
  // ETW's event descriptor.
  std::uint16_t id = 0;
  std::uint8_t version = 0, level = 0, opcode = 0, channel = 0;
  std::uint16_t task = 0;
  std::uint64_t keywords = 0;
  std::string_view symbol{};       // e.g. "GCStart_V2"
  std::string_view name{};         // display name, e.g. "GC/Start"
  std::string_view task_name{};    // e.g. "GarbageCollection"
  std::string_view opcode_name{};  // e.g. "win:Start"
  std::string_view message{};      // format string from the string table, may be empty
  const RecordDesc* payload = nullptr;  // nullptr: the event has no payload
  std::uint32_t line = 0;               // manifest line of the <event>
};

inline constexpr std::uint16_t kNoEvent = 0xFFFF;

struct ProviderDesc {
  std::string_view name{};
  Guid guid{};
  std::string_view symbol{};
  std::span<const KeywordDesc> keywords{};
  std::span<const LevelDesc> levels{};
  std::span<const TaskDesc> tasks{};
  std::span<const OpcodeDesc> opcodes{};
  std::span<const MapDesc* const> maps{};
  std::span<const EventDesc> events{};     // sorted by (id, version)
  std::span<const std::uint16_t> first_version{};  // [id] -> index into events, or kNoEvent

  // The descriptor to decode (id, version) with: the exact version if known,
  // else the highest known version below it (a newer runtime appends fields).
  // nullptr when the id is unknown or older than every known version.
  const EventDesc* find(std::uint16_t id, std::uint8_t version) const noexcept;
  // All versions of an id (empty when unknown).
  std::span<const EventDesc> versions(std::uint16_t id) const noexcept;
};

struct EventLookup {
  const ProviderDesc* provider = nullptr;
  const EventDesc* event = nullptr;
  explicit operator bool() const noexcept { return event != nullptr; }
};

// A set of providers, typically everything generated from one manifest.
struct Catalog {
  std::span<const ProviderDesc* const> providers{};

  const ProviderDesc* provider(const Guid& guid) const noexcept;
  const ProviderDesc* provider(std::string_view name) const noexcept;
  EventLookup find(const Guid& guid, std::uint16_t id, std::uint8_t version) const noexcept;
  EventLookup find(std::string_view provider_name, std::uint16_t id, std::uint8_t version) const noexcept;
};

}  // namespace clretw
