// clretw/self_describing.h - events whose trace describes them.
//
// Some sources carry their own description of an event: EventPipe's metadata
// for EventSource events (name, opcode, field list), ETL's TraceLogging schemas.
// A source hands it out with each record (EventRecord::self_description), and
// the decode core reads it through this interface without knowing the source.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "clretw/bytes.h"
#include "clretw/result.h"

namespace clretw {

class FieldVisitor;

class SelfDescription {
 public:
  // The event's name as the source gives it; empty when it gives none (CLR
  // runtime events in EventPipe carry neither a name nor fields).
  virtual std::string_view name() const noexcept = 0;
  // The name to show: the event name, with the opcode where the source has one ("Request/Start").
  std::string display_name() const {
    std::string name;
    append_display_name(name);
    return name;
  }
  // The same, appended to `out` (describing an event allocates nothing once its buffers are warm).
  virtual void append_display_name(std::string& out) const = 0;
  // True when the source declares the payload's fields.
  virtual bool has_fields() const noexcept = 0;
  // Walks the payload by the declared fields (bounds-checked), reporting each
  // to `visitor`; returns the bytes consumed.
  virtual Result<std::uint32_t> visit(Bytes payload, FieldVisitor& visitor) const = 0;
  // Checks the payload only: the same answer as visit() without reporting fields. By default
  // visit() with a visitor that ignores every field; a source overrides it when it can check
  // faster.
  virtual Result<std::uint32_t> check(Bytes payload) const;
  // A number no other description made in this process has had, never 0: what an
  // EventDescriber remembers a type by (an object's address may be reused once it is gone).
  // A copy describes alike and keeps it.
  std::uint64_t serial() const noexcept { return serial_; }

 protected:
  SelfDescription() noexcept;
  SelfDescription(const SelfDescription&) = default;
  SelfDescription& operator=(const SelfDescription&) = default;
  ~SelfDescription() = default;

 private:
  std::uint64_t serial_;
};

}  // namespace clretw
