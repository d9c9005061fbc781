// clretw/source.h - what every trace source hands out: events one by one, and what it knows
// about the trace as a whole.
//
// The nettrace reader (also NetPerf), the ETL reader and live sessions are sources; tools and
// analyses that take a TraceSource read all of them the same way. clretw/open.h opens a file as
// the source its content says it is.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "clretw/carried.h"
#include "clretw/record.h"
#include "clretw/result.h"

namespace clretw {

// Counts a source keeps while it reads; what a source cannot know stays 0.
struct SourceCounts {
  std::uint64_t events = 0;           // event records delivered
  std::uint64_t lost_events = 0;      // events the trace says were lost (sequence gaps, ETW's count)
  std::uint64_t sequence_points = 0;  // nettrace only
};

class TraceSource {
 public:
  virtual ~TraceSource() = default;
  // The next event; nullptr at the end. The record and what it points to stay valid until the
  // next call. After an error (damage, truncation) the source delivers nothing more.
  virtual Result<const EventRecord*> next() = 0;
  // Milliseconds from the trace's start (its sync time) to a record's timestamp.
  virtual double milliseconds(std::int64_t timestamp) const noexcept = 0;
  virtual std::uint64_t position() const noexcept = 0;  // bytes consumed so far
  virtual std::uint64_t size() const noexcept = 0;      // total bytes (0 when unknown)
  // One line about the trace: its format and version, pointer size, process...
  virtual std::string summary() const = 0;
  virtual SourceCounts counts() const = 0;

  // The manifests the trace carries (an ETL file's EventSource manifests), in the order they
  // completed; the list grows only in next(), as they come. Events of a provider whose manifest
  // loaded decode with its catalog from then on, when a user adds the catalog after its own:
  //   if (source.carried_count() != seen) { /* a describer on your catalogs + carried_catalogs() */ }
  const std::vector<CarriedManifest>& carried_manifests() const noexcept { return carried_; }
  std::size_t carried_count() const noexcept { return carried_count_; }  // their number: cheap to ask per event
  // The catalogs of those that loaded, in the same order.
  std::vector<const Catalog*> carried_catalogs() const {
    std::vector<const Catalog*> out;
    for (const CarriedManifest& m : carried_)
      if (m.catalog) out.push_back(m.catalog.get());
    return out;
  }

 protected:
  // A source that has put a carried manifest together lists it.
  void carry(CarriedManifest m) {
    carried_.push_back(std::move(m));
    ++carried_count_;
  }

 private:
  std::vector<CarriedManifest> carried_;
  std::size_t carried_count_ = 0;
};

}  // namespace clretw
