// Internal: delivery in timestamp order. Events are buffered (their payloads and stacks copied
// into one growing buffer) until the stream says no earlier event can follow - at an event
// flagged sorted, a sequence point or the end - and are then released in timestamp order, file
// order among equal timestamps. The buffer is reused once everything in it was delivered.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "clretw/record.h"

namespace clretw::nettrace::detail {

class Sorter {
 public:
  // Buffers a copy of r.
  void add(const EventRecord& r);
  // Releases the buffered events with a timestamp up to `limit` (all without one).
  void release(std::optional<std::int64_t> limit = std::nullopt);
  // The next released event, valid until the next call; nullptr when none is released.
  const EventRecord* next();
  bool holds_events() const noexcept { return !pending_.empty(); }

 private:
  struct Entry {
    EventRecord record;  // payload and stack point nowhere until delivered
    std::size_t bytes = 0;          // where its payload, then its stack, are in bytes_
    std::uint32_t payload_size = 0, stack_size = 0;
  };
  struct Key {
    std::int64_t timestamp;
    std::uint32_t entry;  // index in entries_: file order, for ties
    bool operator<(const Key& o) const noexcept { return timestamp != o.timestamp ? timestamp < o.timestamp : entry < o.entry; }
  };
  std::vector<Entry> entries_;
  std::vector<std::uint8_t> bytes_;
  std::vector<Key> pending_;  // not yet ordered
  std::vector<Key> ready_;    // ordered, delivered from ready_pos_
  std::size_t ready_pos_ = 0;
  EventRecord current_;
};

}  // namespace clretw::nettrace::detail
