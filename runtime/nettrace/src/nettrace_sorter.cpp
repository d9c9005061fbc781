#include "nettrace_sorter.h"

#include <algorithm>

namespace clretw::nettrace::detail {

void Sorter::add(const EventRecord& r) {
  Buffered b;
  b.record = r;
  b.payload.assign(r.payload.begin(), r.payload.end());
  b.stack.assign(r.stack.begin(), r.stack.end());
  b.order = order_++;
  pending_.push_back(std::move(b));
}

void Sorter::release(std::optional<std::int64_t> limit) {
  std::vector<Buffered> keep, out;
  for (Buffered& b : pending_) (limit && b.record.timestamp > *limit ? keep : out).push_back(std::move(b));
  pending_ = std::move(keep);
  std::stable_sort(out.begin(), out.end(), [](const Buffered& a, const Buffered& b) {
    return a.record.timestamp != b.record.timestamp ? a.record.timestamp < b.record.timestamp : a.order < b.order;
  });
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_pos_));
  ready_pos_ = 0;
  for (Buffered& b : out) ready_.push_back(std::move(b));
}

const EventRecord* Sorter::next() {
  if (ready_pos_ >= ready_.size()) return nullptr;
  current_ = std::move(ready_[ready_pos_++]);
  current_.record.payload = current_.payload;
  current_.record.stack = current_.stack;
  return &current_.record;
}

}  // namespace clretw::nettrace::detail
