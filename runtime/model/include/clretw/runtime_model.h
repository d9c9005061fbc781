// clretw/runtime_model.h - what a .NET process did, from its runtime's events: its garbage
// collections (generation, type, reason, pauses, heap sizes), allocations by type, methods
// compiled by the JIT (tier, sizes, time), exceptions thrown, lock contention and the thread
// pool's worker count. The answers PerfView's GCStats and JITStats give, on any OS, from any
// trace source; streaming, per process.
//
//   clretw::RuntimeModel model;
//   clretw::Symbolizer symbols;                       // names throw sites and contended stacks
//   while (auto r = *source.next()) {                 // in time order (OpenOptions::sorted)
//     symbols.observe(*r);
//     model.observe(*r, source.milliseconds(r->timestamp));
//   }
//   model.finish(symbols);
//   for (const clretw::GcInfo& gc : model.gcs()) ...
//
// Memory is bounded by the number of GCs, types, methods, exception types and throw sites,
// locks and thread-pool adjustments - not by the number of events. The GC rules follow
// TraceEvent's analysis (TraceLoadedDotNetRuntime), which PerfView shows; where clretw differs,
// docs/REPORTS.md says how and why.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/record.h"
#include "clretw/symbolizer.h"

namespace clretw {

// The heaps a GC reports sizes for, in the order of GC/HeapStats: generations 0-2, the large and
// the pinned object heaps.
enum class GcHeap : std::uint8_t { gen0, gen1, gen2, loh, poh };
inline constexpr std::size_t kGcHeaps = 5;
using GcSizes = std::array<std::int64_t, kGcHeaps>;  // bytes per heap; -1: the trace does not say

struct GcInfo {
  std::uint32_t process_id = 0;
  std::uint32_t number = 0;       // GC/Start's Count: the runtime's number for it
  std::uint32_t generation = 0;   // the generation it condemned (0, 1 or 2)
  std::uint32_t type = 0;         // the runtime's GCType: 0 NonConcurrentGC, 1 BackgroundGC, 2 ForegroundGC
  std::uint32_t reason = 0;       // the runtime's GCReason (0 AllocSmall, 1 Induced, ...)
  double start_ms = 0;            // GC/Start, ms since the trace start
  double pause_start_ms = 0;      // where its pause began: the suspension's start
  double end_ms = -1;             // GC/End; -1 when it did not come
  double pause_ms = 0;            // how long managed threads were stopped for it (a background GC: every pause)
  double suspend_ms = 0;          // how long stopping them took (GC/SuspendEEStart to Stop)
  double bgc_final_pause_ms = -1; // a background GC's last pause; -1 for the others
  // A background GC's phases (ms): initial mark (1st non-concurrent), concurrent mark (1st concurrent),
  // final mark (2nd non-concurrent), concurrent sweep (2nd concurrent); -1 unless the runtime's private
  // provider's GC/BGC* events are in the trace.
  std::array<double, 4> bgc_phases_ms{-1, -1, -1, -1};
  GcSizes size_before{-1, -1, -1, -1, -1};  // GC/PerHeapHistory's sizes before, summed over heaps
  GcSizes size_after{-1, -1, -1, -1, -1};   // GC/HeapStats
  GcSizes promoted{-1, -1, -1, -1, -1};     // GC/HeapStats: bytes that survived, per heap
  std::int64_t pinned_objects = -1;         // GC/HeapStats
  std::int64_t fragmentation = -1;          // free space left in the heaps after it (GC/PerHeapHistory)
  std::uint32_t heaps = 0;                  // GC/PerHeapHistory events seen: the number of heaps
  std::uint64_t allocated = 0;              // bytes allocated since the previous GC began (allocation events' estimate)
  bool complete = false;                    // its end was seen (RestartEE, or GC/HeapStats for a background GC)

  // MB as PerfView counts them (10^6 bytes); -1 when unknown.
  double heap_before_mb() const noexcept;
  double heap_after_mb() const noexcept;
  double promoted_mb() const noexcept;
  bool induced() const noexcept;  // Induced, InducedNoForce, InducedLowMemory, InducedCompacting
};

// Bytes allocated, by type, estimated from the allocation events: GC/AllocationTick (every ~100 KB,
// with the type from version 2; version 0 and 1 leave it "(unknown type)") and .NET 10's
// AllocationSampled (each sample weighs what it stands for: see docs/REPORTS.md).
struct TypeAllocations {
  std::uint32_t process_id = 0;
  std::string type;
  double bytes = 0;               // estimated bytes allocated
  std::uint64_t events = 0;       // allocation events of this type
  double large_bytes = 0;         // of `bytes`, on the large and pinned object heaps
};

// The runtime's optimization tiers (MethodFlags bits 7-9 of Method/Load), and precompiled code.
enum class JitTier : std::uint8_t {
  unknown, min_opt, optimized, tier0, tier1, tier1_osr, tier0_instrumented, tier1_instrumented, ready_to_run
};
const char* jit_tier_name(JitTier tier) noexcept;  // TraceEvent's names: "QuickJitted", "OptimizedTier1", ...

struct JitMethod {
  std::uint32_t process_id = 0;
  std::uint32_t thread_id = 0;
  std::uint64_t method_id = 0;
  std::string name;               // "Namespace.Type.Method(signature)" as Method/JittingStarted names it
  std::uint32_t il_size = 0;
  std::uint32_t native_size = 0;
  JitTier tier = JitTier::unknown;
  bool dynamic = false;           // a dynamic method or stub (MethodFlags.Dynamic)
  double start_ms = 0;            // Method/JittingStarted (Method/Load's time when none came)
  double jit_ms = 0;              // JittingStarted to Method/Load on its thread; 0 without JittingStarted
  bool complete = false;          // its Method/Load came
};

struct ThrowSite {
  std::string frame;              // the innermost frame named by a method, else the throwing address's
  std::uint64_t count = 0;
};
struct ExceptionType {
  std::uint32_t process_id = 0;
  std::string type;
  std::uint64_t count = 0;
  std::string message;            // the first one's message
  std::vector<ThrowSite> sites;   // most frequent first
};

struct LockContention {
  std::uint32_t process_id = 0;
  std::uint64_t lock_id = 0;      // Contention/Start's LockID (.NET 8+); 0 when the trace does not say
  std::string frame;              // the innermost named frame of the contended stack, when there is one
  std::uint64_t count = 0;
  double total_ms = 0;            // Contention/Stop's DurationNs (.NET 8+), else Stop - Start on the thread
  double max_ms = 0;
};

struct ThreadPoolSample {
  std::uint32_t process_id = 0;
  double ms = 0;
  std::uint32_t workers = 0;      // the worker count after this
  std::uint32_t io_threads = 0;   // IO threads alive (IOThreadCreation Start/Stop)
  std::uint32_t reason = 0;       // the runtime's ThreadAdjustmentReason (6 Starvation); kNoAdjustment for a start/stop
  double throughput = 0;          // the adjustment's average throughput
};
inline constexpr std::uint32_t kNoAdjustment = 0xFFFFFFFF;

// The figures of the summary, each given by events of the runtime provider
// (Microsoft-Windows-DotNETRuntime) that a session records only when it asks for their keyword at
// their level. A trace does not say which keywords its session asked for; its events do: a
// figure is "not recorded" when it is zero and no event of the runtime provider in the trace
// carries its keyword at its level or a more verbose one.
enum class Figure : std::uint8_t {
  gcs,          // GC/Start ...
  allocations,  // GC/AllocationTick, AllocationSampled
  jit_methods,  // Method/Load of jitted code
  jit_time,     // Method/JittingStarted
  r2r_methods,  // R2RGetEntryPoint
  exceptions,   // Exception/Start
  contention,   // Contention/Start, Contention/Stop
  thread_pool,  // ThreadPoolWorkerThread/*, ThreadPoolWorkerThreadAdjustment/Adjustment
};
inline constexpr std::size_t kFigures = 8;

// A keyword that gives a figure. A figure given by either of two keywords has two rows.
struct FigureKeyword {
  Figure figure;
  std::string_view name;     // the figure, as the summary names it: "precompiled (R2R) methods"
  std::string_view keyword;  // the manifest's keyword, without "Keyword": "CompilationDiagnostic"
  std::uint64_t mask;        // its bit: 0x2000000000
  std::uint8_t level;        // the least verbose level that gives the figure's events: 2 error, 4 informational, 5 verbose
};
// Every row, figures in the order of the enum.
std::span<const FigureKeyword> figure_keywords() noexcept;
std::string_view figure_name(Figure figure) noexcept;
// What records a figure: "keyword CompilationDiagnostic (0x2000000000) at level 4 (informational)";
// for two keywords "keyword GC (0x1) at level 5 (verbose), or AllocationSampling (0x80000000000) at
// level 4 (informational)".
std::string figure_keyword_text(Figure figure);

// One process's totals.
struct ProcessSummary {
  std::uint32_t process_id = 0;
  double first_ms = 0, last_ms = 0;         // its first and last event
  std::array<std::uint64_t, 3> gcs{};       // per generation
  std::uint64_t background_gcs = 0, induced_gcs = 0;
  double pause_ms = 0, max_pause_ms = 0;    // the sum and the longest of its GCs' pauses
  double allocated_bytes = 0;               // estimated from allocation events
  std::uint64_t allocation_events = 0;
  std::uint64_t jitted = 0;                 // methods compiled (Method/Load of jitted code)
  double jit_ms = 0;
  std::uint64_t r2r_methods = 0;            // precompiled entry points used (R2RGetEntryPoint)
  std::uint64_t exceptions = 0;
  std::uint64_t contentions = 0;
  double contention_ms = 0;
  std::uint32_t max_workers = 0;
  std::uint64_t starvation_adjustments = 0;
  // Bit 1 << Figure: the figure is zero and the trace has no event of the keyword that gives it
  // (figure_keywords()): its zero says nothing. Never set when no event of the trace's runtime
  // provider carries a keyword (nothing to tell by).
  std::uint32_t not_recorded = 0;
  bool recorded(Figure f) const noexcept { return !((not_recorded >> static_cast<unsigned>(f)) & 1u); }
  double duration_ms() const noexcept { return last_ms - first_ms; }
  double pause_percent() const noexcept;    // share of duration_ms() paused for GCs
};

// The bytes an allocation event stands for, as the model counts them: GC/AllocationTick's amount
// (about 100 KB since the previous tick), AllocationSampled's object size over the probability it
// was sampled; nullopt for any other event (or a payload that does not verify).
std::optional<double> allocation_bytes(const EventRecord& record) noexcept;

class RuntimeModel {
 public:
  RuntimeModel();
  ~RuntimeModel();
  RuntimeModel(RuntimeModel&&) noexcept;
  RuntimeModel& operator=(RuntimeModel&&) noexcept;

  // One event, at `ms` since the trace start, in time order. Stacks are kept as addresses (the
  // innermost few) and named at finish().
  void observe(const EventRecord& record, double ms);
  // Only the keywords `record` carries, for ProcessSummary::not_recorded: the events a filter keeps
  // from observe() still say which keywords the session recorded (observe() notes them too).
  void observe_keywords(const EventRecord& record) noexcept;
  // The events observe() learns from, and the Symbolizer needs to name its sites: the runtime's,
  // its private provider's (background GC phases) and its rundown's. A source may pass the others over (OpenOptions::keep) before sorting.
  static bool wants(const EventRecord& record) noexcept;
  // Names throw sites and contended stacks with what `symbols` knows now; call once, at the end.
  void finish(const Symbolizer& symbols);

  // What was seen, in the order it began (processes in order of their first event).
  const std::vector<GcInfo>& gcs() const noexcept;
  const std::vector<JitMethod>& methods() const noexcept;
  const std::vector<ThreadPoolSample>& thread_pool() const noexcept;
  // Sorted: most bytes, most exceptions, longest total contention first.
  std::vector<TypeAllocations> allocations() const;
  std::vector<ExceptionType> exceptions() const;
  std::vector<LockContention> contention() const;
  std::vector<ProcessSummary> processes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clretw
