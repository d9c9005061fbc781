// Internal: delivery in timestamp order. Events are buffered (with copies of
// their payloads and stacks) until the stream says no earlier event can
// follow - at an event flagged sorted, a sequence point or the end - and are
// then released in timestamp order, file order among equal timestamps.
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
  struct Buffered {
    EventRecord record;
    std::vector<std::uint8_t> payload, stack;
    std::uint64_t order = 0;  // file order, for a stable sort
  };
  std::vector<Buffered> pending_;  // not yet ordered
  std::vector<Buffered> ready_;    // ordered, delivered from ready_pos_
  std::size_t ready_pos_ = 0;
  Buffered current_;
  std::uint64_t order_ = 0;
};

}  // namespace clretw::nettrace::detail
