#include "nettrace_sorter.h"

#include <algorithm>

namespace clretw::nettrace::detail {

void Sorter::add(const EventRecord& r) {
  Entry e;
  e.record = r;
  e.bytes = bytes_.size();
  e.payload_size = static_cast<std::uint32_t>(r.payload.size());
  e.stack_size = static_cast<std::uint32_t>(r.stack.size());
  bytes_.insert(bytes_.end(), r.payload.begin(), r.payload.end());
  bytes_.insert(bytes_.end(), r.stack.begin(), r.stack.end());
  pending_.push_back({r.timestamp, static_cast<std::uint32_t>(entries_.size())});
  entries_.push_back(e);
}

void Sorter::release(std::optional<std::int64_t> limit) {
  auto out = pending_.begin();
  if (limit) out = std::stable_partition(pending_.begin(), pending_.end(), [&](const Key& k) { return k.timestamp > *limit; });
  const std::size_t first = static_cast<std::size_t>(out - pending_.begin());
  std::sort(out, pending_.end());  // (keys are unique: entry indices break ties)
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_pos_));
  ready_pos_ = 0;
  ready_.insert(ready_.end(), out, pending_.end());
  pending_.resize(first);
}

const EventRecord* Sorter::next() {
  if (ready_pos_ >= ready_.size()) {
    if (pending_.empty() && !entries_.empty()) {  // everything delivered: the buffers start again
      entries_.clear();
      bytes_.clear();
      ready_.clear();
      ready_pos_ = 0;
    }
    return nullptr;
  }
  const Entry& e = entries_[ready_[ready_pos_++].entry];
  current_ = e.record;
  current_.payload = Bytes(bytes_.data() + e.bytes, e.payload_size);
  current_.stack = Bytes(bytes_.data() + e.bytes + e.payload_size, e.stack_size);
  return &current_;
}

}  // namespace clretw::nettrace::detail
