#include "clretw/dispatch.h"

namespace clretw {

void Dispatcher::add(const Guid& guid, std::uint16_t id, Typed fn) {
  ProviderSlot* slot = nullptr;
  for (auto& s : slots_)
    if (s.guid == guid) slot = &s;
  if (!slot) slot = &slots_.emplace_back(ProviderSlot{guid, {}});
  if (slot->by_id.size() <= id) slot->by_id.resize(std::size_t{id} + 1);
  slot->by_id[id].push_back(std::move(fn));
}

Dispatcher::Outcome Dispatcher::dispatch(const EventRecord& r) {
  for (auto& s : slots_) {
    if (s.guid != r.provider_guid) continue;
    if (r.id >= s.by_id.size() || s.by_id[r.id].empty()) break;
    for (auto& fn : s.by_id[r.id]) {
      if (Status status = fn(r); !status) {
        ++counts_.malformed;
        if (malformed_) malformed_(r, status.error());
        return Outcome::malformed;
      }
    }
    ++counts_.handled;
    return Outcome::handled;
  }
  ++counts_.other;
  if (other_) other_(r, lookup(r));
  return Outcome::other;
}

}  // namespace clretw
