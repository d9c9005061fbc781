// simulated_app.h - the small simulated .NET application clretw-sample writes as a .nettrace,
// built with the generated payload structs and the nettrace writer. The README's demo decodes
// it; --size-mb makes large traces for the memory check.
//
// The simulated process has a fixed set of methods (kMethods) at fixed addresses, and
// three sampled threads that run fixed call paths through them. Every stack in the trace
// (sample profiler, allocation ticks, exceptions, contention) is such a path, innermost
// frame first, each frame a return address inside its method's range. The trace describes
// those ranges the ways the runtime does, so a symbolizer must use all of them:
//   - methods jitted during the trace: MethodJittingStarted + MethodLoadVerbose;
//   - two methods known by range only: a plain MethodLoad (no names), MethodUnload before the rundown;
//   - code jitted or precompiled before the session (System.Private.CoreLib, Kestrel): only the
//     rundown at the end (MethodDCEndVerbose), which lists every method still alive; the Kestrel
//     module itself is only in the rundown (ModuleDCEnd), never in a ModuleLoad;
//   - one dynamic method unloaded mid-trace (MethodUnloadVerbose) whose range a second one reuses;
//   - native code (libc, libcoreclr, the dotnet host) in no method's range, at the roots of every
//     thread and at the leaves of samples taken outside managed code (ThreadSample Type External).
// --expect-folded writes what a symbolizer should make of the samples, from what was simulated.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "clretw/nettrace.h"

namespace clretw::sample {

class SimulatedApp {
 public:
  // Writes the trace's start (runtime information, module loads, the first methods jitted) to
  // `out`; `keep_truth` keeps what folded() needs.
  SimulatedApp(std::ostream& out, const nettrace::WriterOptions& options, bool keep_truth);
  ~SimulatedApp();
  // n more requests (their events and samples), then a sequence point.
  void requests(unsigned n);
  // The rundown, and the end of the trace.
  void finish();

  std::uint64_t events() const;
  std::uint64_t samples() const;
  std::uint64_t requests() const noexcept { return requests_; }
  // The folded stacks a symbolizer should make of every sample written (needs keep_truth):
  // "Thread (TID);root;...;leaf COUNT" lines, sorted.
  std::vector<std::string> folded() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::uint64_t requests_ = 0;
};

}  // namespace clretw::sample
