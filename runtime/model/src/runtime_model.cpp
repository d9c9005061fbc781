// RuntimeModel: the runtime's GC, allocation, JIT, exception, contention and thread-pool events
// folded into per-process facts. The GC rules are TraceEvent's (TraceLoadedDotNetRuntime), as
// docs/REPORTS.md states them; each handler below says which rule it carries out.
#include "clretw/runtime_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <unordered_map>

#include "clretw/dispatch.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_private.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"

namespace clretw {

namespace {

namespace rt = dotnet_runtime;

constexpr std::int64_t kNone = -1;
constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
// The frames of a stack kept to find its site: enough to step over the runtime's own frames.
constexpr std::size_t kSiteFrames = 8;
// AllocationSampled's mean sampling distance (bytes): an object of s bytes is sampled with
// probability 1 - exp(-s / distance).
constexpr double kSamplingDistance = 102400.0;


// Summed in double: a trace's sizes are untrusted, and five of them near INT64_MAX would overflow an integer sum.
double sum_mb(const GcSizes& sizes) {
  double total = 0;
  for (std::int64_t s : sizes) {
    if (s < 0) return -1.0;
    total += static_cast<double>(s);
  }
  return total / 1e6;
}

// A stack's innermost frames (and the throwing address first, for exceptions), the key of a site.
struct SiteKey {
  std::uint32_t process_id = 0;
  std::vector<std::uint64_t> frames;
  bool operator<(const SiteKey& o) const {
    return process_id != o.process_id ? process_id < o.process_id : frames < o.frames;
  }
};
struct SiteCount {
  std::uint64_t count = 0;
  std::int64_t timestamp = 0;  // the first one's: frames are named as of then
};

SiteKey site_key(const EventRecord& r, std::optional<std::uint64_t> first) {
  SiteKey k;
  k.process_id = r.process_id;
  if (first && *first) k.frames.push_back(*first);
  const std::size_t n = std::min(r.stack_depth(), kSiteFrames);
  for (std::size_t i = 0; i < n; ++i) k.frames.push_back(r.stack_frame(i));
  return k;
}

// The innermost frame named by a method (skipping those whose name starts with one of `skip`,
// when another is named), else the innermost frame's name; "" for no frames.
std::string site_name(const SiteKey& key, std::int64_t timestamp, const Symbolizer& symbols,
                      std::initializer_list<std::string_view> skip) {
  auto skipped = [&](const std::string& method) {
    for (std::string_view prefix : skip)
      if (method.compare(0, prefix.size(), prefix) == 0) return true;
    return false;
  };
  std::string fallback, name;
  for (std::uint64_t address : key.frames) {
    const Frame f = symbols.resolve(key.process_id, address, timestamp);
    name.clear();
    symbols.append_name(f, name);
    if (f.kind == Frame::Kind::method && f.method && !f.method->name.empty()) {
      if (!skipped(f.method->name)) return name;
      if (fallback.empty()) fallback = name;
    } else if (fallback.empty() && f.kind != Frame::Kind::unmanaged) {
      fallback = name;
    }
  }
  if (fallback.empty() && !key.frames.empty()) {
    name.clear();
    symbols.append_name(symbols.resolve(key.process_id, key.frames.front(), timestamp), name);
    return name;
  }
  return fallback;
}

// Each tick stands for the bytes allocated since the previous one (about 100 KB) of its kind.
double tick_bytes(const rt::GCAllocationTickView& v) {
  return static_cast<double>(v.AllocationAmount64().value_or(v.AllocationAmount()));
}
// An object of s bytes is sampled with probability 1 - exp(-s/d): it stands for s / P bytes.
double sampled_bytes(const rt::AllocationSampledView& v) {
  const double size = static_cast<double>(v.ObjectSize());
  const double p_sampled = size > 0 ? -std::expm1(-size / kSamplingDistance) : 1.0;
  return p_sampled > 0 ? size / p_sampled : size;
}

struct TypeCount {
  double bytes = 0;
  std::uint64_t events = 0;
  double large_bytes = 0;
};

struct ExceptionAcc {
  std::uint64_t count = 0;
  std::string message;
  std::map<SiteKey, SiteCount> sites;
};

struct LockKey {
  std::uint64_t lock_id;
  SiteKey site;
  bool operator<(const LockKey& o) const { return lock_id != o.lock_id ? lock_id < o.lock_id : site < o.site; }
};
struct LockAcc {
  std::uint64_t count = 0;
  double total_ms = 0, max_ms = 0;
  std::int64_t timestamp = 0;
};

struct OpenContention {
  double ms = 0;
  std::uint64_t lock_id = 0;
  SiteKey site;
  std::int64_t timestamp = 0;
};

// What a process's runtime has said so far.
struct ProcessState {
  std::uint32_t pid = 0;
  std::size_t order = 0;  // of its first event
  double first_ms = 0, last_ms = 0;
  std::uint64_t runtime_events = 0;  // of the runtime's provider: processes without are not reported
  // The GC state machine (TraceEvent's names in comments).
  std::int64_t suspend_tid_gc = kNone;     // suspendThreadIDGC: SuspendForGC's thread
  std::int64_t suspend_tid_bgc = kNone;    // suspendThreadIDBGC: SuspendForGCPrep's thread
  std::int64_t suspend_tid_other = kNone;  // suspendThreadIDOther
  std::uint32_t last_suspend_reason = 0;
  double suspend_start_ms = -1;  // suspendTimeRelativeMSec
  double suspend_end_ms = -1;    // suspendEndTimeRelativeMSec (never reset, as TraceEvent)
  std::vector<std::size_t> gcs;  // indices into Impl::gcs
  std::size_t current_bgc = kNoIndex;
  double bgc_phase_start_ms = -1;  // where the background GC's current phase began
  // Allocations: from ticks and from samples, kept apart (a trace may have both; samples win).
  std::map<std::string, TypeCount, std::less<>> by_type_ticks, by_type_sampled;
  double since_gc_ticks = 0, since_gc_sampled = 0;
  double total_ticks = 0, total_sampled = 0;
  std::uint64_t tick_events = 0, sampled_events = 0;
  // JIT: per thread, the methods whose compilation began and has not ended (latest last).
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> jitting;
  std::uint64_t r2r = 0;
  std::map<std::string, ExceptionAcc, std::less<>> exceptions;
  std::unordered_map<std::uint64_t, OpenContention> contending;  // by thread
  std::map<LockKey, LockAcc> locks;
  std::uint32_t workers = 0, io_threads = 0;
};

}  // namespace

double GcInfo::heap_before_mb() const noexcept { return sum_mb(size_before); }
double GcInfo::heap_after_mb() const noexcept { return sum_mb(size_after); }
double GcInfo::promoted_mb() const noexcept { return sum_mb(promoted); }
bool GcInfo::induced() const noexcept {
  using R = rt::GCReasonMap;
  const auto r = static_cast<R>(reason);
  return r == R::Induced || r == R::InducedNoForce || r == R::InducedLowMemory || r == R::InducedCompacting;
}

double ProcessSummary::pause_percent() const noexcept {
  const double d = duration_ms();
  return d > 0 ? 100.0 * pause_ms / d : 0.0;
}

const char* jit_tier_name(JitTier tier) noexcept {
  switch (tier) {
    case JitTier::unknown: return "Unknown";
    case JitTier::min_opt: return "MinOptJitted";
    case JitTier::optimized: return "Optimized";
    case JitTier::tier0: return "QuickJitted";
    case JitTier::tier1: return "OptimizedTier1";
    case JitTier::tier1_osr: return "OptimizedTier1OSR";
    case JitTier::tier0_instrumented: return "QuickJittedInstrumented";
    case JitTier::tier1_instrumented: return "OptimizedTier1Instrumented";
    case JitTier::ready_to_run: return "ReadyToRun";
  }
  return "Unknown";
}

namespace {

// Figure -> keyword: what the summary says is not recorded, and why (docs/REPORTS.md).
constexpr FigureKeyword kFigureKeywords[] = {
    {Figure::gcs, "GCs", "GC", 0x1, 4},
    {Figure::allocations, "allocations", "GC", 0x1, 5},
    {Figure::allocations, "allocations", "AllocationSampling", 0x80000000000, 4},
    {Figure::jit_methods, "methods jitted", "Jit", 0x10, 4},
    {Figure::jit_time, "JIT time", "Jit", 0x10, 5},
    {Figure::r2r_methods, "precompiled (R2R) methods", "CompilationDiagnostic", 0x2000000000, 4},
    {Figure::exceptions, "exceptions", "Exception", 0x8000, 2},
    {Figure::contention, "lock contention", "Contention", 0x4000, 4},
    {Figure::thread_pool, "thread pool", "Threading", 0x10000, 4},
};

const char* level_name(std::uint8_t level) noexcept {
  switch (level) {
    case 1: return "critical";
    case 2: return "error";
    case 3: return "warning";
    case 4: return "informational";
    case 5: return "verbose";
    default: return "always";
  }
}

}  // namespace

std::span<const FigureKeyword> figure_keywords() noexcept { return kFigureKeywords; }

std::string_view figure_name(Figure figure) noexcept {
  for (const FigureKeyword& k : kFigureKeywords)
    if (k.figure == figure) return k.name;
  return "?";
}

std::string figure_keyword_text(Figure figure) {
  std::string s;
  for (const FigureKeyword& k : kFigureKeywords) {
    if (k.figure != figure) continue;
    char mask[24];
    std::snprintf(mask, sizeof mask, "0x%llx", static_cast<unsigned long long>(k.mask));
    s += s.empty() ? "keyword " : ", or ";
    s += std::string(k.keyword) + " (" + mask + ") at level " + std::to_string(k.level) + " (" + level_name(k.level) + ")";
  }
  return s;
}

namespace {

// The keywords the runtime provider's events of a trace carry, by level: what the session asked for.
struct KeywordsSeen {
  std::array<std::uint64_t, 6> by_level{};  // levels 0 (always) to 5 (verbose); more verbose ones count as 5
  bool any = false;                         // an event carried a keyword
  void observe(const EventRecord& r) noexcept {
    by_level[std::min<std::size_t>(r.level, 5)] |= r.keywords;
    any |= r.keywords != 0;
  }
  // An event of one of the figure's keywords came at its level or a more verbose one (or the trace's
  // events carry no keywords: nothing to tell by).
  bool recorded(Figure figure) const noexcept {
    if (!any) return true;
    for (const FigureKeyword& k : kFigureKeywords)
      if (k.figure == figure)
        for (std::size_t level = k.level; level < by_level.size(); ++level)
          if (by_level[level] & k.mask) return true;
    return false;
  }
};

}  // namespace

struct RuntimeModel::Impl {
  KeywordsSeen keywords;
  std::vector<GcInfo> gcs;
  std::vector<JitMethod> methods;
  std::vector<ThreadPoolSample> pool;
  std::unordered_map<std::uint32_t, ProcessState> processes;
  // Named at finish().
  std::vector<ExceptionType> exception_rows;
  std::vector<LockContention> lock_rows;
  bool finished = false;
  Dispatcher dispatcher{&clretw::catalog()};
  // Set by observe() for the handlers.
  ProcessState* p = nullptr;
  double ms = 0;
  const EventRecord* record = nullptr;

  Impl() {
    gc_handlers();
    bgc_phase_handlers();
    allocation_handlers();
    jit_handlers();
    other_handlers();
  }

  ProcessState& process(std::uint32_t pid, double at) {
    auto [it, added] = processes.try_emplace(pid);
    if (added) {
      it->second.pid = pid;
      it->second.order = processes.size();
      it->second.first_ms = at;
    }
    return it->second;
  }

  std::int64_t tid() const { return static_cast<std::int64_t>(record->thread_id); }

  // GetCurrentGC: the process's last GC while it is not complete, else the background GC in flight.
  GcInfo* current_gc() {
    if (p->gcs.empty()) return nullptr;
    if (!gcs[p->gcs.back()].complete) return &gcs[p->gcs.back()];
    if (p->current_bgc != kNoIndex) return &gcs[p->gcs[p->current_bgc]];
    return nullptr;
  }

  // AddConcurrentPauseTime: a restart ends one of a background GC's pauses.
  void add_concurrent_pause(GcInfo& gc, double restart_ms) {
    if (p->suspend_tid_bgc > 0) {
      const double pause = restart_ms - p->suspend_start_ms;
      gc.pause_ms += pause;
      if (p->last_suspend_reason == static_cast<std::uint32_t>(rt::GCSuspendEEReasonMap::SuspendForGCPrep))
        gc.bgc_final_pause_ms = pause;
    } else {
      gc.pause_ms = restart_ms - gc.pause_start_ms;
    }
  }

  void gc_handlers() {
    using Reason = rt::GCSuspendEEReasonMap;
    dispatcher.on<rt::GCSuspendEEBegin>([this](const rt::GCSuspendEEBeginView& v, const EventRecord&) {
      // Only suspensions for a GC (or a background GC's preparation) open a GC's pause.
      switch (v.Reason()) {
        case Reason::SuspendForGC: p->suspend_tid_gc = tid(); break;
        case Reason::SuspendForGCPrep: p->suspend_tid_bgc = tid(); break;
        default: p->suspend_tid_other = tid(); return;
      }
      p->last_suspend_reason = static_cast<std::uint32_t>(v.Reason());
      p->suspend_start_ms = ms;
    });
    dispatcher.on<rt::GCSuspendEEEnd>([this](const rt::GCSuspendEEEndView&, const EventRecord&) {
      if (tid() != p->suspend_tid_bgc && tid() != p->suspend_tid_gc) return;  // a suspension not followed
      if (p->suspend_tid_bgc > 0 && p->current_bgc != kNoIndex)
        gcs[p->gcs[p->current_bgc]].suspend_ms += ms - p->suspend_start_ms;
      p->suspend_end_ms = ms;
    });
    dispatcher.on<rt::GCRestartEEEnd>([this](const rt::GCRestartEEEndView&, const EventRecord&) {
      if (tid() == p->suspend_tid_other) p->suspend_tid_other = kNone;
      if (tid() != p->suspend_tid_bgc && tid() != p->suspend_tid_gc) return;
      if (GcInfo* gc = current_gc()) {
        if (gc->type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC)) {
          add_concurrent_pause(*gc, ms);
        } else if (gc->end_ms < 0) {
          add_concurrent_pause(*gc, ms);  // no GC/End yet: a concurrent GC of a runtime without types
        } else {
          gc->pause_ms = ms - gc->pause_start_ms;
          if (gc->size_after[0] >= 0) gc->complete = true;  // a blocking GC ends at its restart, after GC/HeapStats
        }
      }
      p->suspend_start_ms = -1;
      p->suspend_tid_bgc = kNone;
      p->suspend_tid_gc = kNone;
    });
    dispatcher.on<rt::GCStart>([this](const rt::GCStartView& v, const EventRecord&) {
      // A GC counts only inside a suspension (a trace that begins in a GC loses it), once.
      if (!(p->suspend_tid_gc > 0 || p->suspend_tid_other > 0)) return;
      if (!p->gcs.empty() && gcs[p->gcs.back()].number == v.Count()) return;
      GcInfo gc;
      gc.process_id = p->pid;
      gc.number = v.Count();
      gc.generation = v.Depth().value_or(0);
      gc.reason = static_cast<std::uint32_t>(v.Reason());
      gc.type = static_cast<std::uint32_t>(v.Type().value_or(rt::GCTypeMap::NonConcurrentGC));
      gc.start_ms = ms;
      gc.allocated = static_cast<std::uint64_t>(p->sampled_events ? p->since_gc_sampled : p->since_gc_ticks);
      p->since_gc_ticks = p->since_gc_sampled = 0;
      const bool background = gc.type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC);
      // The blocking GC a background GC begins with has its own pause, from its start.
      bool ephemeral_at_bgc_start = false;
      if (!p->gcs.empty()) {
        const GcInfo& last = gcs[p->gcs.back()];
        ephemeral_at_bgc_start = last.type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC) && !last.complete &&
                                 gc.type == static_cast<std::uint32_t>(rt::GCTypeMap::NonConcurrentGC);
      }
      const bool pm_full = v.Reason() == rt::GCReasonMap::PMFullGC;
      if (ephemeral_at_bgc_start || pm_full) {
        gc.pause_start_ms = ms;
        if (pm_full)
          if (GcInfo* previous = current_gc()) previous->complete = true;  // provisional mode's gen1 ends here
      } else {
        gc.pause_start_ms = p->suspend_start_ms;
        if (p->suspend_end_ms == -1) p->suspend_end_ms = ms;
        gc.suspend_ms = p->suspend_end_ms - p->suspend_start_ms;
      }
      if (background) gc.pause_ms = gc.suspend_ms;  // the later pauses add to it
      gcs.push_back(gc);
      p->gcs.push_back(gcs.size() - 1);
      if (background) p->current_bgc = p->gcs.size() - 1;
    });
    dispatcher.on<rt::GCEnd>([this](const rt::GCEndView&, const EventRecord&) {
      if (GcInfo* gc = current_gc()) gc->end_ms = ms;
    });
    dispatcher.on<rt::GCHeapStats>([this](const rt::GCHeapStatsView& v, const EventRecord&) {
      GcInfo* gc = current_gc();
      if (!gc) return;
      auto i64 = [](std::uint64_t x) { return static_cast<std::int64_t>(std::min<std::uint64_t>(x, INT64_MAX)); };
      gc->size_after = {i64(v.GenerationSize0()), i64(v.GenerationSize1()), i64(v.GenerationSize2()),
                        i64(v.GenerationSize3()), i64(v.GenerationSize4().value_or(0))};
      gc->promoted = {i64(v.TotalPromotedSize0()), i64(v.TotalPromotedSize1()), i64(v.TotalPromotedSize2()),
                      i64(v.TotalPromotedSize3()), i64(v.TotalPromotedSize4().value_or(0))};
      gc->pinned_objects = v.PinnedObjectCount();
      // A background GC does not restart the runtime at its end: its heap stats end it.
      if (gc->type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC) && p->current_bgc != kNoIndex) {
        gcs[p->gcs[p->current_bgc]].complete = true;
        p->current_bgc = kNoIndex;
      }
    });
    dispatcher.on<rt::GCPerHeapHistory>([this](const rt::GCPerHeapHistoryView& v, const EventRecord&) {
      GcInfo* gc = current_gc();
      if (!gc) return;
      std::size_t gen = 0;
      if (gc->heaps == 0) {
        gc->size_before.fill(0);
        gc->fragmentation = 0;
      }
      ++gc->heaps;
      for (const auto& g : v.Values()) {
        if (gen >= kGcHeaps) break;
        gc->size_before[gen] += static_cast<std::int64_t>(std::min<std::uint64_t>(g.SizeBefore(), INT64_MAX / 4));
        gc->fragmentation += static_cast<std::int64_t>(std::min<std::uint64_t>(g.FreeListAfter() + g.FreeObjAfter(), INT64_MAX / 8));
        ++gen;
      }
    });
  }

  // A background GC's phases, from the private provider: a phase begins at one event and ends at another.
  void bgc_phase_handlers() {
    namespace pv = dotnet_runtime_private;
    auto begin = [this] { p->bgc_phase_start_ms = ms; };
    auto end = [this](std::size_t phase) {
      if (p->current_bgc == kNoIndex || p->bgc_phase_start_ms < 0) return;
      gcs[p->gcs[p->current_bgc]].bgc_phases_ms[phase] = ms - p->bgc_phase_start_ms;
      p->bgc_phase_start_ms = -1;
    };
    dispatcher.on<pv::BGCBegin>([begin](const pv::BGCBeginView&, const EventRecord&) { begin(); });
    dispatcher.on<pv::BGC1stNonConEnd>([begin, end](const pv::BGC1stNonConEndView&, const EventRecord&) {
      end(0);
      begin();  // the concurrent mark follows at once
    });
    dispatcher.on<pv::BGC1stConEnd>([end](const pv::BGC1stConEndView&, const EventRecord&) { end(1); });
    dispatcher.on<pv::BGC2ndNonConBegin>([begin](const pv::BGC2ndNonConBeginView&, const EventRecord&) { begin(); });
    dispatcher.on<pv::BGC2ndNonConEnd>([end](const pv::BGC2ndNonConEndView&, const EventRecord&) { end(2); });
    dispatcher.on<pv::BGC2ndConBegin>([begin](const pv::BGC2ndConBeginView&, const EventRecord&) { begin(); });
    dispatcher.on<pv::BGC2ndConEnd>([end](const pv::BGC2ndConEndView&, const EventRecord&) { end(3); });
  }

  void add_allocation(std::string_view type, double bytes, bool large, bool sampled) {
    auto& by_type = sampled ? p->by_type_sampled : p->by_type_ticks;
    auto it = by_type.find(type);
    if (it == by_type.end()) it = by_type.emplace(std::string(type), TypeCount{}).first;
    it->second.bytes += bytes;
    ++it->second.events;
    if (large) it->second.large_bytes += bytes;
    if (sampled) {
      p->since_gc_sampled += bytes;
      p->total_sampled += bytes;
      ++p->sampled_events;
    } else {
      p->since_gc_ticks += bytes;
      p->total_ticks += bytes;
      ++p->tick_events;
    }
  }

  std::string type_name;  // reused
  void allocation_handlers() {
    dispatcher.on<rt::GCAllocationTick>([this](const rt::GCAllocationTickView& v, const EventRecord&) {
      const double bytes = tick_bytes(v);
      type_name.clear();
      if (auto t = v.TypeName()) t->append_utf8(type_name);
      if (type_name.empty()) type_name = "(unknown type)";
      add_allocation(type_name, bytes, v.AllocationKind() != rt::GCAllocationKindMap::Small, false);
    });
    dispatcher.on<rt::AllocationSampled>([this](const rt::AllocationSampledView& v, const EventRecord&) {
      type_name.clear();
      v.TypeName().append_utf8(type_name);
      if (type_name.empty()) type_name = "(unknown type)";
      add_allocation(type_name, sampled_bytes(v), v.AllocationKind() != rt::GCAllocationKindMap::Small, true);
    });
  }

  std::string display;  // reused
  void jit_done(std::uint64_t method_id, std::uint32_t size, std::uint32_t flags, std::string name) {
    std::vector<std::size_t>& open = p->jitting[record->thread_id];
    std::size_t index;
    if (!open.empty()) {
      index = open.back();
      open.pop_back();
    } else {  // no JittingStarted: the load's time, no JIT time
      JitMethod m;
      m.process_id = p->pid;
      m.thread_id = static_cast<std::uint32_t>(record->thread_id);
      m.method_id = method_id;
      m.name = std::move(name);
      m.start_ms = ms;
      methods.push_back(std::move(m));
      index = methods.size() - 1;
    }
    JitMethod& m = methods[index];
    m.native_size = size;
    m.jit_ms = ms - m.start_ms;
    const std::uint32_t tier = (flags >> 7) & 0x7;
    m.tier = static_cast<JitTier>(tier);
    m.dynamic = (flags & 0x1) != 0;
    m.complete = true;
  }

  void jit_handlers() {
    dispatcher.on<rt::MethodJittingStarted>([this](const rt::MethodJittingStartedView& v, const EventRecord&) {
      JitMethod m;
      m.process_id = p->pid;
      m.thread_id = static_cast<std::uint32_t>(record->thread_id);
      m.method_id = v.MethodID();
      m.name = method_display_name(v.MethodNamespace().to_utf8(), v.MethodName().to_utf8(), v.MethodSignature().to_utf8());
      m.il_size = v.MethodILSize();
      m.start_ms = ms;
      methods.push_back(std::move(m));
      p->jitting[record->thread_id].push_back(methods.size() - 1);
    });
    constexpr std::uint32_t kJitted = 0x8;
    dispatcher.on<rt::MethodLoadVerbose>([this](const rt::MethodLoadVerboseView& v, const EventRecord&) {
      const auto flags = static_cast<std::uint32_t>(v.MethodFlags());
      if (!(flags & kJitted)) return;
      jit_done(v.MethodID(), v.MethodSize(), flags,
               method_display_name(v.MethodNamespace().to_utf8(), v.MethodName().to_utf8(), v.MethodSignature().to_utf8()));
    });
    dispatcher.on<rt::MethodLoad>([this](const rt::MethodLoadView& v, const EventRecord&) {
      const auto flags = static_cast<std::uint32_t>(v.MethodFlags());
      if (flags & kJitted) jit_done(v.MethodID(), v.MethodSize(), flags, "");
    });
    dispatcher.on<rt::R2RGetEntryPoint>([this](const rt::R2RGetEntryPointView&, const EventRecord&) { ++p->r2r; });
  }

  void pool_sample(std::uint32_t reason, double throughput) {
    ThreadPoolSample s;
    s.process_id = p->pid;
    s.ms = ms;
    s.workers = p->workers;
    s.io_threads = p->io_threads;
    s.reason = reason;
    s.throughput = throughput;
    pool.push_back(s);
  }

  void other_handlers() {
    dispatcher.on<rt::ExceptionThrown>([this](const rt::ExceptionThrownView& v, const EventRecord& r) {
      type_name.clear();
      if (auto t = v.ExceptionType()) t->append_utf8(type_name);
      if (type_name.empty()) type_name = "(unknown type)";
      auto it = p->exceptions.find(type_name);
      if (it == p->exceptions.end()) {
        it = p->exceptions.emplace(type_name, ExceptionAcc{}).first;
        if (auto m = v.ExceptionMessage()) it->second.message = m->to_utf8();
      }
      ++it->second.count;
      SiteCount& site = it->second.sites[site_key(r, v.ExceptionEIP())];
      if (site.count++ == 0) site.timestamp = r.timestamp;
    });
    dispatcher.on<rt::Contention>([this](const rt::ContentionView& v, const EventRecord& r) {
      OpenContention& c = p->contending[r.thread_id];
      c.ms = ms;
      c.lock_id = v.LockID().value_or(0);
      c.site = site_key(r, std::nullopt);
      c.timestamp = r.timestamp;
    });
    dispatcher.on<rt::ContentionStop>([this](const rt::ContentionStopView& v, const EventRecord& r) {
      auto it = p->contending.find(r.thread_id);
      if (it == p->contending.end()) return;  // its start came before the trace
      const double duration = v.DurationNs() ? *v.DurationNs() / 1e6 : ms - it->second.ms;
      LockAcc& lock = p->locks[LockKey{it->second.lock_id, std::move(it->second.site)}];
      if (lock.count++ == 0) lock.timestamp = it->second.timestamp;
      lock.total_ms += duration;
      lock.max_ms = std::max(lock.max_ms, duration);
      p->contending.erase(it);
    });
    dispatcher.on<rt::ThreadPoolWorkerThreadStart>([this](const rt::ThreadPoolWorkerThreadStartView& v, const EventRecord&) {
      p->workers = v.ActiveWorkerThreadCount();
      pool_sample(kNoAdjustment, 0);
    });
    dispatcher.on<rt::ThreadPoolWorkerThreadStop>([this](const rt::ThreadPoolWorkerThreadStopView& v, const EventRecord&) {
      p->workers = v.ActiveWorkerThreadCount();
      pool_sample(kNoAdjustment, 0);
    });
    dispatcher.on<rt::ThreadPoolWorkerThreadAdjustmentAdjustment>(
        [this](const rt::ThreadPoolWorkerThreadAdjustmentAdjustmentView& v, const EventRecord&) {
          p->workers = v.NewWorkerThreadCount();
          pool_sample(static_cast<std::uint32_t>(v.Reason()), v.AverageThroughput());
        });
    dispatcher.on<rt::IOThreadCreate>([this](const rt::IOThreadCreateView& v, const EventRecord&) {
      p->io_threads = v.IOThreadCount();
      pool_sample(kNoAdjustment, 0);
    });
    dispatcher.on<rt::IOThreadTerminate>([this](const rt::IOThreadTerminateView& v, const EventRecord&) {
      p->io_threads = v.IOThreadCount();
      pool_sample(kNoAdjustment, 0);
    });
  }

  // Heap sizes before a GC without GC/PerHeapHistory: TraceEvent's estimate from the latest earlier
  // GC/HeapStats (gen0: at least what was allocated since), the large and pinned heaps at least
  // what this GC left.
  void estimate_before(const ProcessState& ps) {
    const GcInfo* previous = nullptr;
    for (std::size_t i : ps.gcs) {
      GcInfo& gc = gcs[i];
      if (gc.heaps == 0) {
        gc.size_before = {static_cast<std::int64_t>(gc.allocated), 0, 0, 0, 0};
        if (previous) {
          const GcSizes& a = previous->size_after;
          gc.size_before[0] = std::max(a[0], gc.size_before[0]);
          gc.size_before[1] = a[1];
          gc.size_before[2] = a[2];
          gc.size_before[3] = std::max(a[3], gc.size_after[3]);
          gc.size_before[4] = std::max(a[4], gc.size_after[4]);
        }
      }
      if (gc.size_after[0] >= 0) previous = &gc;
    }
  }
};

RuntimeModel::RuntimeModel() : impl_(std::make_unique<Impl>()) {}
RuntimeModel::~RuntimeModel() = default;
RuntimeModel::RuntimeModel(RuntimeModel&&) noexcept = default;
RuntimeModel& RuntimeModel::operator=(RuntimeModel&&) noexcept = default;

std::optional<double> allocation_bytes(const EventRecord& r) noexcept {
  if (r.provider_guid != rt::provider_guid) return std::nullopt;
  if (r.id == rt::GCAllocationTick::id)
    if (auto v = rt::GCAllocationTickView::verify(r.payload, r.version, r.pointer_size)) return tick_bytes(*v);
  if (r.id == rt::AllocationSampled::id)
    if (auto v = rt::AllocationSampledView::verify(r.payload, r.version, r.pointer_size)) return sampled_bytes(*v);
  return std::nullopt;
}

bool RuntimeModel::wants(const EventRecord& r) noexcept {
  return r.provider_guid == rt::provider_guid || r.provider_guid == dotnet_runtime_private::provider_guid ||
         r.provider_guid == dotnet_runtime_rundown::provider_guid;
}

void RuntimeModel::observe(const EventRecord& record, double ms) {
  Impl& s = *impl_;
  ProcessState& p = s.process(record.process_id, ms);
  p.last_ms = std::max(p.last_ms, ms);
  if (record.provider_guid != rt::provider_guid && record.provider_guid != dotnet_runtime_private::provider_guid) return;
  observe_keywords(record);
  ++p.runtime_events;
  s.p = &p;
  s.ms = ms;
  s.record = &record;
  s.dispatcher.dispatch(record);
}

void RuntimeModel::observe_keywords(const EventRecord& record) noexcept {
  if (record.provider_guid == rt::provider_guid) impl_->keywords.observe(record);  // (other providers' keywords are their own)
}

void RuntimeModel::finish(const Symbolizer& symbols) {
  Impl& s = *impl_;
  if (s.finished) return;
  s.finished = true;
  std::vector<const ProcessState*> order;
  for (const auto& [pid, p] : s.processes) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const ProcessState* a, const ProcessState* b) { return a->order < b->order; });
  for (const ProcessState* p : order) {
    s.estimate_before(*p);
    for (const auto& [type, acc] : p->exceptions) {
      ExceptionType row;
      row.process_id = p->pid;
      row.type = type;
      row.count = acc.count;
      row.message = acc.message;
      std::map<std::string, std::uint64_t> by_frame;
      // The frame that threw: the innermost outside the runtime's exception dispatch and throw helpers.
      for (const auto& [key, site] : acc.sites)
        by_frame[site_name(key, site.timestamp, symbols,
                           {"System.Runtime.EH.", "System.ThrowHelper.", "System.Runtime.ExceptionServices."})] += site.count;
      for (auto& [frame, count] : by_frame) row.sites.push_back({frame.empty() ? "(no stack)" : frame, count});
      std::stable_sort(row.sites.begin(), row.sites.end(), [](const ThrowSite& a, const ThrowSite& b) { return a.count > b.count; });
      s.exception_rows.push_back(std::move(row));
    }
    std::map<std::pair<std::uint64_t, std::string>, LockContention> locks;
    for (const auto& [key, acc] : p->locks) {
      // The stack's innermost frame outside System.Threading (Monitor, Lock): the code that waited.
      std::string frame = site_name(key.site, acc.timestamp, symbols, {"System.Threading."});
      LockContention& row = locks[{key.lock_id, frame}];
      row.process_id = p->pid;
      row.lock_id = key.lock_id;
      row.frame = frame;
      row.count += acc.count;
      row.total_ms += acc.total_ms;
      row.max_ms = std::max(row.max_ms, acc.max_ms);
    }
    for (auto& [key, row] : locks) s.lock_rows.push_back(std::move(row));
  }
  std::stable_sort(s.exception_rows.begin(), s.exception_rows.end(),
                   [](const ExceptionType& a, const ExceptionType& b) { return a.count > b.count; });
  std::stable_sort(s.lock_rows.begin(), s.lock_rows.end(),
                   [](const LockContention& a, const LockContention& b) { return a.total_ms > b.total_ms; });
}

const std::vector<GcInfo>& RuntimeModel::gcs() const noexcept { return impl_->gcs; }
const std::vector<JitMethod>& RuntimeModel::methods() const noexcept { return impl_->methods; }
const std::vector<ThreadPoolSample>& RuntimeModel::thread_pool() const noexcept { return impl_->pool; }
std::vector<ExceptionType> RuntimeModel::exceptions() const { return impl_->exception_rows; }
std::vector<LockContention> RuntimeModel::contention() const { return impl_->lock_rows; }

std::vector<TypeAllocations> RuntimeModel::allocations() const {
  std::vector<TypeAllocations> rows;
  std::vector<const ProcessState*> order;
  for (const auto& [pid, p] : impl_->processes) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const ProcessState* a, const ProcessState* b) { return a->order < b->order; });
  for (const ProcessState* p : order) {
    const auto& by_type = p->sampled_events ? p->by_type_sampled : p->by_type_ticks;
    for (const auto& [type, c] : by_type) rows.push_back({p->pid, type, c.bytes, c.events, c.large_bytes});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TypeAllocations& a, const TypeAllocations& b) { return a.bytes > b.bytes; });
  return rows;
}

std::vector<ProcessSummary> RuntimeModel::processes() const {
  const Impl& s = *impl_;
  std::vector<ProcessSummary> rows;
  std::vector<const ProcessState*> order;
  for (const auto& [pid, p] : s.processes) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const ProcessState* a, const ProcessState* b) { return a->order < b->order; });
  for (const ProcessState* p : order) {
    if (!p->runtime_events) continue;
    ProcessSummary sum;
    sum.process_id = p->pid;
    sum.first_ms = p->first_ms;
    sum.last_ms = p->last_ms;
    for (std::size_t i : p->gcs) {
      const GcInfo& gc = s.gcs[i];
      ++sum.gcs[std::min<std::uint32_t>(gc.generation, 2)];
      sum.background_gcs += gc.type == static_cast<std::uint32_t>(rt::GCTypeMap::BackgroundGC);
      sum.induced_gcs += gc.induced();
      sum.pause_ms += gc.pause_ms;
      sum.max_pause_ms = std::max(sum.max_pause_ms, gc.pause_ms);
    }
    sum.allocated_bytes = p->sampled_events ? p->total_sampled : p->total_ticks;
    sum.allocation_events = p->sampled_events ? p->sampled_events : p->tick_events;
    for (const JitMethod& m : s.methods)
      if (m.process_id == p->pid && m.complete) {
        ++sum.jitted;
        sum.jit_ms += m.jit_ms;
      }
    sum.r2r_methods = p->r2r;
    for (const auto& [type, acc] : p->exceptions) sum.exceptions += acc.count;
    for (const auto& [key, acc] : p->locks) {
      sum.contentions += acc.count;
      sum.contention_ms += acc.total_ms;
    }
    for (const ThreadPoolSample& t : s.pool)
      if (t.process_id == p->pid) {
        sum.max_workers = std::max(sum.max_workers, t.workers);
        sum.starvation_adjustments += t.reason == static_cast<std::uint32_t>(rt::ThreadAdjustmentReasonMap::Starvation);
      }
    // A zero whose keyword no event of the trace carries says nothing.
    const bool zero[kFigures] = {sum.gcs[0] + sum.gcs[1] + sum.gcs[2] == 0, sum.allocation_events == 0, sum.jitted == 0,
                                 sum.jit_ms == 0, sum.r2r_methods == 0, sum.exceptions == 0, sum.contentions == 0,
                                 sum.max_workers == 0 && sum.starvation_adjustments == 0};
    for (std::size_t f = 0; f < kFigures; ++f)
      if (zero[f] && !s.keywords.recorded(static_cast<Figure>(f))) sum.not_recorded |= 1u << f;
    rows.push_back(sum);
  }
  return rows;
}

}  // namespace clretw
