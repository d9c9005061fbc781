#include "clretw/dispatch.h"

namespace clretw {

void Dispatcher::add(const Guid& guid, std::uint16_t id, Typed fn) {
  ProviderSlot* slot = nullptr;
  for (auto& s : slots_)
    if (s.guid == guid) slot = &s;
  if (!slot) slot = &slots_.emplace_back(ProviderSlot{guid, {}});
  if (slot->by_id.size() <= id) slot->by_id.resize(std::size_t{id} + 1);
  slot->by_id[id].push_back(std::move(fn));
  by_name_.clear();  // a record GUID without a slot may have one now
}

Dispatcher::Outcome Dispatcher::dispatch(const EventRecord& r) {
  ProviderSlot* slot = nullptr;
  for (auto& s : slots_)
    if (s.guid == r.provider_guid) {
      slot = &s;
      break;
    }
  if (!slot && !slots_.empty() && !r.provider_name.empty()) slot = slot_by_name(r);
  if (slot && r.id < slot->by_id.size() && !slot->by_id[r.id].empty()) {
    if (slot->guid == r.provider_guid) return run(*slot, r);
    EventRecord renamed = r;  // the handlers' views check the manifest's GUID
    renamed.provider_guid = slot->guid;
    return run(*slot, renamed);
  }
  ++counts_.other;
  if (other_) other_(r, lookup(r));
  return Outcome::other;
}

Dispatcher::Outcome Dispatcher::run(ProviderSlot& slot, const EventRecord& r) {
  for (auto& fn : slot.by_id[r.id]) {
    if (Status status = fn(r); !status) {
      ++counts_.malformed;
      if (malformed_) malformed_(r, status.error());
      return Outcome::malformed;
    }
  }
  ++counts_.handled;
  return Outcome::handled;
}

Dispatcher::ProviderSlot* Dispatcher::slot_by_name(const EventRecord& r) {
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  for (const auto& [guid, index] : by_name_)
    if (guid == r.provider_guid) return index == none ? nullptr : &slots_[index];
  std::size_t index = none;
  if (const ProviderDesc* p = lookup(r).provider)
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].guid == p->guid) index = i;
  by_name_.emplace_back(r.provider_guid, index);
  return index == none ? nullptr : &slots_[index];
}

}  // namespace clretw
