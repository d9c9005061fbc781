// clretw/decode.h - the dynamic decoder: any payload, described only by
// descriptor tables (generated, or built from a manifest at run time).
//
// visit_fields() walks the payload with the layout engine and reports every
// value in field order to a FieldVisitor - no allocation, so formatters run on
// it directly. decode_dynamic() builds an owning tree of DynValue for callers
// who want one. This path shares nothing with generated views except the
// layout engine, which makes it the reference the generated code is tested
// against.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/result.h"
#include "clretw/schema.h"
#include "clretw/text.h"
#include "clretw/view.h"

namespace clretw {

// One value in a payload: its field, and where its bytes are. For strings
// `size` covers the text only (layout.h's ElementExtent::text): no terminator,
// no NULs padding a counted string.
struct Scalar {
  const FieldDesc* field = nullptr;
  const std::uint8_t* data = nullptr;
  std::uint32_t size = 0;

  InType type() const noexcept { return field->type; }
  std::uint64_t as_uint() const noexcept { return load_uint(data, size); }
  std::int64_t as_int() const noexcept { return load_int(data, size); }
  double as_double() const noexcept { return size == 4 ? load_le<float>(data) : load_le<double>(data); }
  bool as_bool() const noexcept { return load_uint(data, size) != 0; }
  Guid as_guid() const noexcept { return Guid::load(data); }
  SystemTime as_systemtime() const noexcept { return SystemTime::load(data); }
  Utf16View as_utf16() const noexcept { return {data, size / 2u}; }
  std::string_view as_ansi() const noexcept { return {reinterpret_cast<const char*>(data), size}; }
  Bytes as_bytes() const noexcept { return {data, size}; }
};

class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  // A non-array field, or one element of an array of scalars.
  virtual void scalar(const Scalar& value) = 0;
  // An array (a field with a count; struct fields always are). Elements follow:
  // scalars, or for structs begin_element / members / end_element.
  virtual void begin_array(const FieldDesc& field, std::uint64_t count) { (void)field, (void)count; }
  virtual void end_array(const FieldDesc& field) { (void)field; }
  virtual void begin_element(std::uint64_t index) { (void)index; }
  virtual void end_element() {}
  // One nested struct that is not an array (self-describing payloads: an [EventData] type, a
  // TraceLogging event's fields); its members follow, then end_struct. A visitor that does not
  // override these sees an array of one element.
  virtual void begin_struct(const FieldDesc& field) { begin_array(field, 1), begin_element(0); }
  virtual void end_struct(const FieldDesc& field) { end_element(), end_array(field); }
};

// Verifies the payload and reports every field. Returns the bytes the layout
// consumed (the rest are trailing bytes).
Result<std::uint32_t> visit_fields(const RecordDesc& record, Bytes payload, unsigned pointer_size, FieldVisitor& visitor);
// Verifies the payload only: the same answer as visit_fields() (bytes consumed, or the same
// error), without reporting fields. A fixed layout costs one length comparison.
Result<std::uint32_t> check_fields(const RecordDesc& record, Bytes payload, unsigned pointer_size) noexcept;

// An owned decoded value.
struct DynField;
struct DynValue {
  enum class Kind : std::uint8_t { uint, sint, real, boolean, guid, text, bytes, systemtime, array, records };
  Kind kind = Kind::uint;
  InType type = InType::UInt32;
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double d = 0;
  Guid g;
  SystemTime st{};
  std::string text;                           // strings, as UTF-8
  std::vector<std::uint8_t> bytes;            // binary, SID
  std::vector<DynValue> items;                // arrays of scalars
  std::vector<std::vector<DynField>> records; // struct arrays
};
struct DynField {
  std::string_view name;
  DynValue value;
};
using DynRecord = std::vector<DynField>;

Result<DynRecord> decode_dynamic(const RecordDesc& record, Bytes payload, unsigned pointer_size);

}  // namespace clretw
