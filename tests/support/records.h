// Test support: event records as a trace source hands them out, with payloads encoded by the
// generated payload structs; the bytes live as long as the builder.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "clretw/record.h"

namespace clretw::test {

class Records {
 public:
  explicit Records(std::uint32_t pid) : pid_(pid) {}
  // An event E of `version` with `payload`, at `t` on `thread`, stack innermost first.
  template <class E, class P>
  const EventRecord& add(unsigned version, const P& payload, std::int64_t t, std::uint64_t thread = 7,
                         std::vector<std::uint64_t> stack = {}) {
    auto bytes = payload.encode(8);
    REQUIRE(bytes);
    payloads_.push_back(std::move(*bytes));
    EventRecord r;
    r.provider_guid = E::provider_guid;
    r.id = E::id;
    r.version = static_cast<std::uint8_t>(version);
    r.timestamp = t;
    r.process_id = pid_;
    r.thread_id = thread;
    r.pointer_size = 8;
    r.payload = Bytes(payloads_.back().data(), payloads_.back().size());
    stacks_.emplace_back();
    for (std::uint64_t a : stack)
      for (int i = 0; i < 8; ++i) stacks_.back().push_back(static_cast<std::uint8_t>(a >> (8 * i)));
    r.stack = Bytes(stacks_.back().data(), stacks_.back().size());
    records_.push_back(r);
    return records_.back();
  }
  const std::deque<EventRecord>& all() const { return records_; }

 private:
  std::uint32_t pid_;
  std::deque<std::vector<std::uint8_t>> payloads_, stacks_;
  std::deque<EventRecord> records_;
};

}  // namespace clretw::test
