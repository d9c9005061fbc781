// clretw/catalogs.h - which catalog an event belongs to: one lookup for the
// Dispatcher, the EventDescriber and anything else that decodes.
//
// Catalogs are kept in order of precedence. The first catalog that defines an
// event's provider (by GUID, else by the name the trace gives) decides, even
// when it lacks that event: a provider is overridden as a whole, so decoders
// from a manifest loaded at run time never mix with stale built-in versions of
// the same provider, and a provider they do not define falls through to the
// next catalog. clretw-dump puts manifests given with --manifest before the
// built-in catalog.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "clretw/record.h"
#include "clretw/schema.h"

namespace clretw {

class CatalogSet {
 public:
  CatalogSet() = default;
  CatalogSet(std::initializer_list<const Catalog*> catalogs) : catalogs_(catalogs) {}
  explicit CatalogSet(std::vector<const Catalog*> catalogs) : catalogs_(std::move(catalogs)) {}

  // The provider and event descriptor of a record; provider null when no catalog
  // defines the provider, event null when the deciding catalog lacks the event.
  EventLookup find(const EventRecord& record) const noexcept {
    for (const Catalog* c : catalogs_) {
      const ProviderDesc* p = c->provider(record.provider_guid);
      if (!p && !record.provider_name.empty()) p = c->provider(record.provider_name);
      if (p) return {p, p->find(record.id, record.version)};
    }
    return {};
  }
  const std::vector<const Catalog*>& catalogs() const noexcept { return catalogs_; }

 private:
  std::vector<const Catalog*> catalogs_;
};

}  // namespace clretw
