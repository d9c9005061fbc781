#include "clretw/dispatch.h"

// The cold paths stay out of dispatch(), which then saves fewer registers per event.
#if defined(__GNUC__)
#define CLRETW_COLD __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define CLRETW_COLD __declspec(noinline)
#else
#define CLRETW_COLD
#endif

namespace clretw {

void Dispatcher::add(const Guid& guid, std::uint16_t id, Typed fn) {
  ProviderSlot* slot = nullptr;
  for (auto& s : slots_)
    if (s.guid == guid) slot = &s;
  if (!slot) slot = &slots_.emplace_back(ProviderSlot{guid, {}});
  if (slot->by_id.size() <= id) slot->by_id.resize(std::size_t{id} + 1);
  slot->by_id[id].push_back(std::move(fn));
  routes_.clear();  // a record GUID without a slot may have one now
  last_ = kNone;
}

// Everything dispatch() does not settle inline.
Dispatcher::Outcome Dispatcher::route_and_run(const EventRecord& r) {
  const std::uint32_t slot = last_ != kNone && routes_[last_].guid == r.provider_guid ? routes_[last_].slot : route(r);
  if (slot != kNone) {
    const ProviderSlot& s = slots_[slot];
    if (r.id < s.by_id.size() && !s.by_id[r.id].empty()) {
      if (s.guid == r.provider_guid) return run(s.by_id[r.id], r);
      // Reached by the provider's name: a record without one has only its GUID.
      if (!r.provider_name.empty()) return run_renamed(s.by_id[r.id], r, s.guid);
    }
  }
  return other(r);
}

CLRETW_COLD Dispatcher::Outcome Dispatcher::other(const EventRecord& r) {
  ++counts_.other;
  if (other_) other_(r, lookup(r));
  return Outcome::other;
}

// Out of line, so that dispatch() does not reserve a record's copy for every event.
CLRETW_COLD Dispatcher::Outcome Dispatcher::run_renamed(const std::vector<Typed>& handlers, const EventRecord& r,
                                            const Guid& guid) {
  EventRecord renamed = r;  // the handlers see the manifest's GUID
  renamed.provider_guid = guid;
  return run(handlers, renamed);
}

CLRETW_COLD bool Dispatcher::malformed(const EventRecord& r, const Error& error) {
  ++counts_.malformed;
  if (malformed_) malformed_(r, error);
  return false;
}

CLRETW_COLD std::uint32_t Dispatcher::route(const EventRecord& r) {
  for (std::size_t i = 0; i < routes_.size(); ++i)
    if (routes_[i].guid == r.provider_guid) {
      last_ = static_cast<std::uint32_t>(i);
      return routes_[i].slot;
    }
  const std::uint32_t slot = resolve(r);
  // A GUID without a slot is remembered only when its record named the provider: a record
  // without a name says nothing about the next one of that GUID, which may have one.
  if (slot == kNone && r.provider_name.empty()) return kNone;
  last_ = static_cast<std::uint32_t>(routes_.size());
  const bool exact = slot != kNone && slots_[slot].guid == r.provider_guid;
  const std::size_t ids = slot != kNone ? slots_[slot].by_id.size() : 0;
  routes_.push_back(Route{r.provider_guid, slot, static_cast<std::uint32_t>(ids), exact});
  return slot;
}

std::uint32_t Dispatcher::resolve(const EventRecord& r) const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].guid == r.provider_guid) return static_cast<std::uint32_t>(i);
  if (slots_.empty() || r.provider_name.empty()) return kNone;
  if (const ProviderDesc* p = lookup(r).provider)
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].guid == p->guid) return static_cast<std::uint32_t>(i);
  return kNone;
}

}  // namespace clretw
