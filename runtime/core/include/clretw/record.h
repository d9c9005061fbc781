// clretw/record.h - one event as a trace reader hands it out.
//
// EventRecord does not own anything: the payload, names and stack point into
// the reader's buffers and stay valid until the reader moves on.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "clretw/bytes.h"
#include "clretw/guid.h"

namespace clretw {

class SelfDescription;  // clretw/self_describing.h

// A process id, thread id or processor the source did not record: all 32 bits set (ETW's kernel
// events of no process, EventPipe's events of no processor).
inline constexpr std::uint32_t kUnrecorded = 0xFFFFFFFFu;

struct EventRecord {
  Guid provider_guid;
  std::string_view provider_name;  // when the source names providers (EventPipe); may be empty
  std::string_view event_name;     // the source's own event name, if any; may be empty
  std::uint16_t id = 0;
  std::uint8_t version = 0;
  std::uint8_t level = 0;
  std::uint8_t opcode = 0;
  std::uint16_t task = 0;
  std::uint64_t keywords = 0;
  std::int64_t timestamp = 0;  // source ticks (QPC on Windows)
  std::uint32_t process_id = 0;
  std::string_view process_name;  // the process's image name, when the source knows it (ETL: the kernel's
                                  // Process events); empty otherwise
  std::uint64_t thread_id = 0;
  std::uint64_t capture_thread_id = 0;
  std::uint32_t processor = 0;
  std::uint32_t sequence = 0;
  std::uint8_t pointer_size = 8;  // of the process that logged the event: 4 or 8
  Guid activity_id;
  Guid related_activity_id;
  Bytes payload;
  Bytes stack;  // return addresses, innermost first, stack_frame_size() bytes each; empty if none
  std::uint8_t stack_pointer_size = 0;  // bytes per stack frame when it differs from pointer_size (ETW: a
                                        // 32-bit process's events with 64-bit stacks); 0: pointer_size
  const SelfDescription* self_description = nullptr;  // the source's own description of the event, if any

  unsigned stack_frame_size() const noexcept { return stack_pointer_size ? stack_pointer_size : pointer_size; }
  std::size_t stack_depth() const noexcept { return stack.size() / stack_frame_size(); }
  std::uint64_t stack_frame(std::size_t i) const noexcept {
    return load_uint(stack.data() + i * stack_frame_size(), stack_frame_size());
  }
};

}  // namespace clretw
