// clretw/format.h - any payload as text or JSON, through the descriptor tables.
//
// Text:  Count=1 Reason=AllocSmall TypeName="System.Object[]" Values=[{A=1 B=2}]
// JSON:  {"Count":1,"Reason":"AllocSmall","TypeName":"System.Object[]","Values":[{"A":1,"B":2}]}
// Map values print by name (bitmaps as names joined with ", ", unknown bits in
// hex); hex outTypes and pointers print as 0x... in text; JSON integers are
// numbers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clretw/decode.h"
#include "clretw/result.h"
#include "clretw/schema.h"

namespace clretw {

enum class Format : std::uint8_t { text, json };

// Appends the payload's fields. On error nothing is appended.
Result<std::uint32_t> format_fields(const RecordDesc& record, Bytes payload, unsigned pointer_size, std::string& out,
                                    Format format);

// Appends one value (no name). Out-types that say how to read the bytes are honoured: a win:Port
// (network byte order on the wire) as its number, a win:IPv4 as a dotted quad, a 16-byte win:IPv6 as
// RFC 5952 text and a win:SocketAddress (a SOCKADDR_IN or SOCKADDR_IN6) as address:port - strings in
// JSON. Views and decode() give the wire values.
void format_value(const Scalar& value, std::string& out, Format format);

// A FieldVisitor that prints fields as text or JSON; call finish() at the end.
// Any walker (the dynamic decoder, a self-describing trace) can drive it.
class FieldFormatter final : public FieldVisitor {
 public:
  FieldFormatter(std::string& out, Format format);
  void finish();
  void scalar(const Scalar& s) override;
  void begin_array(const FieldDesc& f, std::uint64_t count) override;
  void end_array(const FieldDesc& f) override;
  void begin_element(std::uint64_t index) override;
  void end_element() override;
  void begin_struct(const FieldDesc& f) override;
  void end_struct(const FieldDesc& f) override;

 private:
  bool in_array() const { return depth_ && kinds_[depth_ - 1] == '['; }
  void open(char c);
  void close(char c);
  void separator();
  void name(const FieldDesc& f);

  std::string& out_;
  Format fmt_;
  // Open braces and brackets, innermost last. Decoders nest at most 16 levels (2 per level
  // for arrays of structs); deeper input is refused before it reaches a formatter.
  static constexpr std::size_t kMaxOpen = 64;
  std::array<char, kMaxOpen> kinds_{};
  std::array<bool, kMaxOpen> first_{};
  std::size_t depth_ = 0;
};

// A record's fields formatted straight from its payload by a program made once per record,
// pointer size and format: the same text as a FieldFormatter that visit_fields() drives, without
// a virtual call, a check of the field's name or a std::string append per field. Made for
// records whose fields are all single values (no arrays, no structs); make() returns null for
// others, and for pointer sizes other than 4 and 8.
class FieldPlan {
 public:
  static std::unique_ptr<FieldPlan> make(const RecordDesc& record, unsigned pointer_size, Format format);
  // What visit_fields() returns for this payload, with the fields appended to `out` as
  // FieldFormatter writes them, finish() included; nothing is appended on error.
  Result<std::uint32_t> format(Bytes payload, std::string& out) const;

 private:
  enum class Kind : std::uint8_t { uint, sint, hex, boolean, value_map, value, variable };
  struct Step {
    const FieldDesc* field;
    std::uint32_t index;   // in the record's fields
    std::uint32_t key_at;  // its key ("Name": or Name=, after the separator) in keys_
    std::uint32_t key_size;
    Kind kind;             // uint, sint, hex, boolean, value_map (names that need neither escaping
                           // nor quotes in text): written here; value: any other placed value,
                           // variable: sized by the layout engine, both written by format_value()
    bool sign;             // a signed integer
  };
  FieldPlan(const RecordDesc& record, unsigned pointer_size, Format format)
      : record_(record), pointer_size_(pointer_size), format_(format) {}

  const RecordDesc& record_;
  unsigned pointer_size_;
  Format format_;
  std::string keys_;  // followed by Pieces::kShort readable bytes
  std::vector<Step> steps_;
};

// Helpers also used by the tools.
void append_hex(std::string& out, std::uint64_t value);  // 0x1a2b
// Writes `value` in decimal at p, which has room for 20 characters; returns the end of the
// digits. Bytes between the end and p + 20 may be overwritten.
char* write_decimal(char* p, std::uint64_t value) noexcept;
// `value` with four decimals, exactly as std::to_chars(..., chars_format::fixed, 4) writes it.
void append_fixed4(std::string& out, double value);
void append_double(std::string& out, double value);      // shortest round-trip form

}  // namespace clretw
