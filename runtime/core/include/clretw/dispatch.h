// clretw/dispatch.h - route events to typed handlers.
//
//   clretw::Dispatcher d({&clretw::catalog()});
//   d.on<clretw::dotnet_runtime::GCStart>([](const clretw::dotnet_runtime::GCStartView& gc,
//                                            const clretw::EventRecord& r) { ... });
//   d.on_other([](const clretw::EventRecord& r, clretw::EventLookup known) { ... });
//   d.dispatch(record);
//
// A typed handler sees a verified view; a payload that fails verification goes
// to on_malformed. Every event without a typed handler - known to a catalog or
// not - goes to on_other, with what the catalogs know of it (CatalogSet: the
// first catalog that defines the provider decides). No event is dropped
// without a callback or a count.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "clretw/catalogs.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/schema.h"

namespace clretw {

class Dispatcher {
 public:
  enum class Outcome : std::uint8_t { handled, other, malformed };
  struct Counts {
    std::uint64_t handled = 0, other = 0, malformed = 0;
  };

  Dispatcher() = default;
  explicit Dispatcher(std::initializer_list<const Catalog*> catalogs) : catalogs_(catalogs) {}
  explicit Dispatcher(std::vector<const Catalog*> catalogs) : catalogs_(std::move(catalogs)) {}
  explicit Dispatcher(CatalogSet catalogs) : catalogs_(std::move(catalogs)) {}

  // E is a generated event type (e.g. dotnet_runtime::GCStart); the handler is
  // called as handler(const E::View&, const EventRecord&).
  template <class E, class F>
  Dispatcher& on(F handler) {
    add(E::provider_guid, E::id, [h = std::move(handler)](const EventRecord& r, Dispatcher& d) mutable -> bool {
      // (The record is E: its slot is E's GUID, its id E's id.)
      auto view = E::View::verify(r.payload, r.version, r.pointer_size);
      if (!view) return d.malformed(r, view.error());
      h(*view, r);
      return true;
    });
    return *this;
  }

  Dispatcher& on_other(std::function<void(const EventRecord&, EventLookup)> handler) {
    other_ = std::move(handler);
    return *this;
  }
  Dispatcher& on_malformed(std::function<void(const EventRecord&, const Error&)> handler) {
    malformed_ = std::move(handler);
    return *this;
  }

  Outcome dispatch(const EventRecord& record) {
    // Inline, the common case: the previous record's provider (records of one provider come
    // in runs), then its handlers or none.
    if (last_ != kNone && routes_[last_].guid == record.provider_guid) {
      const Route& route = routes_[last_];
      if (record.id >= route.ids) return other(record);
      if (route.exact) {
        const std::vector<Typed>& handlers = slots_[route.slot].by_id[record.id];
        return handlers.empty() ? other(record) : run(handlers, record);
      }
    }
    return route_and_run(record);
  }
  const Counts& counts() const noexcept { return counts_; }
  // What the catalogs know about a record.
  EventLookup lookup(const EventRecord& record) const noexcept { return catalogs_.find(record); }

 private:
  // A typed handler: verifies the record's view and calls the user's handler; false when the
  // view does not verify (after malformed() has counted and reported it).
  using Typed = std::function<bool(const EventRecord&, Dispatcher&)>;
  struct ProviderSlot {
    Guid guid;
    std::vector<std::vector<Typed>> by_id;
  };
  // Where records of one GUID go: a slot of handlers or none, found once per GUID.
  // A source that names providers but only derives their GUID from the name (EventPipe's
  // EventSource rule) reports a manifest provider under another GUID than its manifest's:
  // the catalogs resolve the name, as lookup() does, and the handlers see the manifest's GUID.
  // (Indices, not pointers: a copied or moved Dispatcher routes as the original.)
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Route {
    Guid guid;
    std::uint32_t slot;  // index in slots_, or kNone
    std::uint32_t ids;   // the slot's by_id.size() (0 without a slot): ids at or above have no handler
    bool exact;          // the slot is this GUID's (not found by the provider's name)
  };
  void add(const Guid& guid, std::uint16_t id, Typed fn);
  std::uint32_t route(const EventRecord& r);
  std::uint32_t resolve(const EventRecord& r) const;
  Outcome route_and_run(const EventRecord& r);
  Outcome run(const std::vector<Typed>& handlers, const EventRecord& r) {
    for (const Typed& fn : handlers)
      if (!fn(r, *this)) return Outcome::malformed;
    ++counts_.handled;
    return Outcome::handled;
  }
  Outcome run_renamed(const std::vector<Typed>& handlers, const EventRecord& r, const Guid& guid);
  Outcome other(const EventRecord& r);
  bool malformed(const EventRecord& r, const Error& error);

  CatalogSet catalogs_;
  std::vector<ProviderSlot> slots_;
  std::vector<Route> routes_;  // every record GUID seen with a name or a slot
  std::uint32_t last_ = kNone;  // index in routes_ of the previous record's route
  std::function<void(const EventRecord&, EventLookup)> other_;
  std::function<void(const EventRecord&, const Error&)> malformed_;
  Counts counts_;
};

}  // namespace clretw
