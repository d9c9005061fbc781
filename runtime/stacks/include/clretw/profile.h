// clretw/profile.h - stack samples aggregated per thread, named by a Symbolizer, written as folded
// stacks (flamegraph.pl, inferno), speedscope's file format, or a table of the hottest methods.
//
//   clretw::Symbolizer sym;
//   clretw::StackProfile profile;
//   while (auto r = *source.next()) {
//     sym.observe(*r);
//     if (clretw::is_cpu_sample(*r)) profile.add(*r, source.milliseconds(r->timestamp), sym);
//   }
//   profile.finish(sym);                // names every frame: rundown at the end counts too
//   profile.write_folded(std::cout);
//
// Memory is bounded by the distinct call paths, not by the number of samples (speedscope's
// timeline keeps one entry per run of equal consecutive stacks on a thread). Addresses are kept
// as they come and named once, at finish(), each at the time it was first seen on its path; a
// thread starts a new tree when its process unloads code (addresses may then mean other code).
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "clretw/record.h"
#include "clretw/symbolizer.h"

namespace clretw {

// How the frames of all samples were named (each frame of each sample counted once).
struct ProfileSummary {
  std::uint64_t samples = 0;
  std::uint64_t weight = 0;         // the samples' weights summed (= samples unless add() was given weights)
  std::uint64_t threads = 0;
  std::uint64_t processes = 0;
  std::uint64_t without_stack = 0;  // samples with no stack: shown as the frame "(no stack)"
  std::uint64_t frames = 0;
  std::uint64_t method_frames = 0;       // named by a method's exact range
  std::uint64_t r2r_frames = 0;          // by the nearest R2R entry point below them
  std::uint64_t module_frames = 0;       // only the image holding them is known
  std::uint64_t unmanaged_frames = 0;    // nothing in the trace describes them
  std::uint64_t unique_stacks = 0;       // distinct (thread, named stack)
  std::uint64_t unique_frames = 0;       // distinct frame names
};

// A CPU sample: EventPipe's sample profiler's Thread/Sample (every managed thread's stack, about
// once a millisecond), known by its provider's GUID or, where the source names providers, its name.
bool is_cpu_sample(const EventRecord& record) noexcept;

class StackProfile {
 public:
  // Each sample weighs `sample_interval_ms` in speedscope's output and the --top table's times.
  // `run_times`: keep when each run of equal stacks began (8 bytes a run), for write_chromium's times.
  explicit StackProfile(double sample_interval_ms = 1.0, bool run_times = false);
  ~StackProfile();
  StackProfile(StackProfile&&) noexcept;
  StackProfile& operator=(StackProfile&&) noexcept;

  // One sample: `record`'s stack (innermost first) on its thread, at `ms` since the trace start,
  // weighing `weight` in folded stacks and the top table (e.g. an allocation's bytes; speedscope's
  // timeline counts samples). `symbols` is asked only which unload epoch the process is in.
  void add(const EventRecord& record, double ms, const Symbolizer& symbols, std::uint64_t weight = 1);

  // What each sample weighs in ms, for the writers (e.g. the interval the trace states, once known).
  void set_sample_interval(double ms) noexcept;
  double sample_interval() const noexcept;

  // Names every frame with what `symbols` knows now; call once, after the last record, before the
  // writers. Samples added later are not written.
  void finish(const Symbolizer& symbols);

  const ProfileSummary& summary() const noexcept;
  // "Thread (tid);root;...;leaf count" per distinct stack, sorted; threads of several processes
  // are "Process (pid) Thread (tid)".
  void write_folded(std::ostream& out) const;
  // speedscope's file format (https://www.speedscope.app/file-format-schema.json): one sampled
  // profile per thread, in ms, samples root first in time order (runs of equal stacks merged).
  void write_speedscope(std::ostream& out, std::string_view name, std::string_view exporter) const;
  // Chrome's trace-event JSON (Perfetto, chrome://tracing): per thread, a begin ("B") and end
  // ("E") event for each frame as the sampled stacks enter and leave it, at the samples' times
  // (µs since the trace start; without run_times, each run placed after the samples before it);
  // a thread's last frames end one interval after its last sample.
  void write_chromium(std::ostream& out) const;
  // The `n` methods with the most exclusive samples (weights), with their inclusive samples (a
  // method counted once per sample however often it recurs). `unit` names what the weights count
  // in the header ("exclusive samples  inclusive samples  method"; "bytes", "events"). `by_inclusive`:
  // the methods with the most inclusive samples instead (dotnet-trace report topN --inclusive).
  // `note`, when given, follows the header in parentheses (e.g. how bytes were estimated).
  void write_top(std::ostream& out, std::size_t n, std::string_view unit = "samples", bool by_inclusive = false,
                 std::string_view note = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clretw
