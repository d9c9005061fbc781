// Generated zero-copy views against an honest hand-written decoder (issue 12:
// "As fast as hand-written C++"), on the payloads of a real trace.
//
// The payloads of 13 Microsoft-Windows-DotNETRuntime events of
// eventpipe-dotnetcore3.0-win-x64-objver4.nettrace (from ../shared) are copied
// out once. Five contenders then read every field of every one of them and fold
// each value into a 64-bit checksum:
//   Memcpy   the floor: copy each payload to a scratch buffer, fold it 8 bytes at a time
//   Hand     what a native profiler author writes: #pragma pack structs, one bounds
//            check per fixed part and per string or array, memcpy, fold each field
//   Layout   the payload struct's layout view (View<8>): verify(), then every accessor;
//            chosen by version and pointer size as Hand chooses its struct
//   View     the generated event view (all versions merged): verify(), then every accessor
//   Owning   the generated owning payload struct: decode(), then every member
//   Dynamic  clretw::visit_fields() with a visitor folding each Scalar (the descriptor is
//            looked up per event with provider.find(id, version), as a dynamic consumer does)
// Each contender picks its decoder per event by id (a switch), the same way.
// All but Memcpy fold the same values in the same order (strings: their length
// in UTF-16 code units and the sum of the units), so their checksums must agree;
// the program checks that before it measures anything.
//
// Benchmarks: <Contender>_<Group> for the groups All (every chosen event),
// Fixed2 (the 2-byte RestartEE/SuspendEEStop events), AllocationTick and
// BulkMovedObjectRanges (a struct array). items_processed counts events.
// --iterations=N runs each benchmark exactly N times (no calibration), so that
// callgrind's instruction counts divide evenly (bench/ratios.sh); --groups
// prints the number of events of each group and exits.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "clretw/decode.h"
#include "clretw/dispatch.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/nettrace.h"
#include "bench_main.h"

static_assert(std::endian::native == std::endian::little, "the hand-written decoder reads little-endian fields in place");

namespace {

namespace rt = clretw::dotnet_runtime;

// --- The payloads ------------------------------------------------------------------

struct Event {
  std::uint16_t id = 0;
  std::uint8_t version = 0;
  std::uint8_t pointer_size = 0;
  clretw::Bytes payload;  // into g_payloads, or the reader's buffer (whole-trace benchmarks)
};

// The (id, version) pairs measured, as this trace records them.
struct Chosen {
  std::uint16_t id;
  std::uint8_t version;
};
constexpr Chosen kChosen[] = {
    {10, 3},  // GC/AllocationTick
    {3, 1},   // GC/RestartEEStop
    {7, 1},   // GC/RestartEEStart
    {8, 1},   // GC/SuspendEEStop
    {9, 1},   // GC/SuspendEEStart
    {23, 0},  // GC/GCGenerationRange
    {202, 0}, // GC/Mark
    {159, 0}, // Method/R2RGetEntryPoint
    {35, 0},  // GC/Triggered
    {2, 1},   // GC/Stop
    {1, 2},   // GC/Start
    {4, 1},   // GC/HeapStats
    {22, 0},  // GC/GCBulkMovedObjectRanges
};

enum Group { kAll, kFixed2, kAllocationTick, kBulkMoved, kGroups };
constexpr const char* kGroupNames[kGroups] = {"All", "Fixed2", "AllocationTick", "BulkMovedObjectRanges"};

bool in_group(Group g, const Event& e) {
  switch (g) {
    case kAll: return true;
    case kFixed2: return e.id == 3 || e.id == 7 || e.id == 8;
    case kAllocationTick: return e.id == 10;
    case kBulkMoved: return e.id == 22;
    case kGroups: break;
  }
  return false;
}

std::vector<Event> g_events[kGroups];
std::deque<std::vector<std::uint8_t>> g_payloads;  // the chosen events' payloads, copied out
std::size_t g_max_payload = 0;
std::vector<std::uint8_t> g_trace;  // the whole file, for the whole-trace benchmarks
std::uint64_t g_trace_events = 0;

// Every contender's per-event function is inlined into the loop that runs it, so that each
// is measured as a program that calls it directly would see it, whatever the compiler's
// size heuristics decide for one and not another.
#if defined(__GNUC__)
#define CLRETW_CONTENDER [[gnu::always_inline]] inline
#else
#define CLRETW_CONTENDER inline
#endif

// --- Folding -------------------------------------------------------------------------

constexpr std::uint64_t kSeed = 0x243F6A8885A308D3;

inline std::uint64_t fold(std::uint64_t h, std::uint64_t v) noexcept { return std::rotl(h, 5) + v; }

// A string: its length in UTF-16 code units, then the sum of its units.
inline std::uint64_t fold_utf16(std::uint64_t h, const std::uint8_t* p, std::size_t units) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < units; ++i) {
    std::uint16_t u;
    std::memcpy(&u, p + 2 * i, 2);
    sum += u;
  }
  return fold(fold(h, units), sum);
}
inline std::uint64_t fold_utf16(std::uint64_t h, clretw::Utf16View s) noexcept {
  return fold_utf16(h, s.data(), s.size());
}

// The same for UTF-8 text (the owning structs' strings): the UTF-16 units it stands for.
inline std::uint64_t fold_utf8_as_utf16(std::uint64_t h, std::string_view s) noexcept {
  std::uint64_t units = 0, sum = 0;
  for (std::size_t i = 0; i < s.size();) {
    // ASCII eight bytes at a time: each byte is a unit; their sum in four 16-bit lanes.
    if (i + 8 <= s.size()) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (!(w & 0x8080808080808080u)) {
        const std::uint64_t pairs = (w & 0x00FF00FF00FF00FFu) + ((w >> 8) & 0x00FF00FF00FF00FFu);
        sum += (pairs * 0x0001000100010001u) >> 48;
        units += 8, i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++units, sum += c, ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    std::uint32_t cp = c & (0x7Fu >> n);
    for (std::size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    i += n;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units += 2, sum += 0xD800u + (cp >> 10) + 0xDC00u + (cp & 0x3FFu);
    } else {
      ++units, sum += cp;
    }
  }
  return fold(fold(h, units), sum);
}

template <class E>
inline std::uint64_t fold_enum(std::uint64_t h, E e) noexcept {
  return fold(h, static_cast<std::uint64_t>(e));
}
template <class T>
inline std::uint64_t fold_opt(std::uint64_t h, const std::optional<T>& v) noexcept {
  if (!v) return h;
  if constexpr (std::is_enum_v<T>) return fold_enum(h, *v);
  else return fold(h, *v);
}

// --- a. Memcpy: the floor --------------------------------------------------------------

std::vector<std::uint8_t> g_scratch;

CLRETW_CONTENDER bool memcpy_event(const Event& e, std::uint64_t& h) {
  const std::size_t n = e.payload.size();
  std::uint8_t* buf = g_scratch.data();
  std::memcpy(buf, e.payload.data(), n);
  std::memset(buf + n, 0, 8);  // the last word's bytes past the payload (the scratch buffer has 8 spare)
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, buf + i, 8);
    h = fold(h, w);
  }
  return true;
}

// --- b. Hand: a hand-written decoder -----------------------------------------------

namespace hand {

#pragma pack(push, 1)
struct ClrInstanceOnly {  // GCNoUserData: RestartEEStop/Start, SuspendEEStop v1
  std::uint16_t ClrInstanceID;
};
struct SuspendEEBeginV1 {
  std::uint32_t Reason;
  std::uint32_t Count;
  std::uint16_t ClrInstanceID;
};
struct AllocationTickV3Head {
  std::uint32_t AllocationAmount;
  std::uint32_t AllocationKind;
  std::uint16_t ClrInstanceID;
  std::uint64_t AllocationAmount64;
  std::uint64_t TypeID;  // pointer (8 bytes: checked)
};
struct AllocationTickV3Tail {  // after TypeName
  std::uint32_t HeapIndex;
  std::uint64_t Address;  // pointer
};
struct GenerationRange {
  std::uint8_t Generation;
  std::uint64_t RangeStart;  // pointer
  std::uint64_t RangeUsedLength;
  std::uint64_t RangeReservedLength;
  std::uint16_t ClrInstanceID;
};
struct MarkWithType {
  std::uint32_t HeapNum;
  std::uint16_t ClrInstanceID;
  std::uint32_t Type;
  std::uint64_t Bytes;
};
struct MethodLoadHead {  // R2RGetEntryPoint, before the three strings
  std::uint64_t MethodID;
};
struct MethodLoadTail {
  std::uint64_t EntryPoint;
  std::uint16_t ClrInstanceID;
};
struct Triggered {
  std::uint32_t Reason;
  std::uint16_t ClrInstanceID;
};
struct GCEndV1 {
  std::uint32_t Count;
  std::uint32_t Depth;
  std::uint16_t ClrInstanceID;
};
struct GCStartV2 {
  std::uint32_t Count;
  std::uint32_t Depth;
  std::uint32_t Reason;
  std::uint32_t Type;
  std::uint16_t ClrInstanceID;
  std::uint64_t ClientSequenceNumber;
};
struct HeapStatsV1 {
  std::uint64_t GenerationSize0, TotalPromotedSize0, GenerationSize1, TotalPromotedSize1, GenerationSize2,
      TotalPromotedSize2, GenerationSize3, TotalPromotedSize3, FinalizationPromotedSize, FinalizationPromotedCount;
  std::uint32_t PinnedObjectCount, SinkBlockCount, GCHandleCount;
  std::uint16_t ClrInstanceID;
};
struct BulkMovedHead {
  std::uint32_t Index;
  std::uint32_t Count;
  std::uint16_t ClrInstanceID;
};
struct MovedRange {  // one element of Values
  std::uint64_t OldRangeBase;  // pointer
  std::uint64_t NewRangeBase;  // pointer
  std::uint64_t RangeLength;
};
#pragma pack(pop)

// A cursor over a payload: each take is one bounds check.
struct Reader {
  const std::uint8_t* p;
  const std::uint8_t* end;

  template <class T>
  bool take(T& out) noexcept {
    if (static_cast<std::size_t>(end - p) < sizeof(T)) return false;
    std::memcpy(&out, p, sizeof(T));
    p += sizeof(T);
    return true;
  }
  // A NUL-terminated UTF-16 string: its units (without the NUL) and their count.
  bool take_string(const std::uint8_t*& text, std::size_t& units) noexcept {
    const std::uint8_t* q = p;
    while (end - q >= 2) {
      if (q[0] == 0 && q[1] == 0) {
        text = p, units = static_cast<std::size_t>(q - p) / 2;
        p = q + 2;
        return true;
      }
      q += 2;
    }
    return false;
  }
};

// A payload that is one fixed part (from `min_version` on: newer versions append fields):
// the version, one bounds check, one copy.
template <class S>
bool read_fixed(const Event& e, unsigned min_version, S& s) {
  if (e.version < min_version) return false;
  Reader r{e.payload.data(), e.payload.data() + e.payload.size()};
  return r.take(s);
}

bool allocation_tick(const Event& e, std::uint64_t& h) {
  if (e.version < 3 || e.pointer_size != 8) return false;
  Reader r{e.payload.data(), e.payload.data() + e.payload.size()};
  AllocationTickV3Head a;
  const std::uint8_t* name;
  std::size_t name_units;
  AllocationTickV3Tail t;
  if (!r.take(a) || !r.take_string(name, name_units) || !r.take(t)) return false;
  h = fold(h, a.AllocationAmount), h = fold(h, a.AllocationKind), h = fold(h, a.ClrInstanceID);
  h = fold(h, a.AllocationAmount64), h = fold(h, a.TypeID);
  h = fold_utf16(h, name, name_units);
  h = fold(h, t.HeapIndex), h = fold(h, t.Address);
  return true;
}
bool clr_instance_only(const Event& e, std::uint64_t& h) {
  ClrInstanceOnly s;
  if (!read_fixed(e, 1, s)) return false;
  h = fold(h, s.ClrInstanceID);
  return true;
}
bool suspend_ee_begin(const Event& e, std::uint64_t& h) {
  SuspendEEBeginV1 s;
  if (!read_fixed(e, 1, s)) return false;
  h = fold(h, s.Reason), h = fold(h, s.Count), h = fold(h, s.ClrInstanceID);
  return true;
}
bool generation_range(const Event& e, std::uint64_t& h) {
  if (e.pointer_size != 8) return false;
  GenerationRange s;
  if (!read_fixed(e, 0, s)) return false;
  h = fold(h, s.Generation), h = fold(h, s.RangeStart), h = fold(h, s.RangeUsedLength);
  h = fold(h, s.RangeReservedLength), h = fold(h, s.ClrInstanceID);
  return true;
}
bool mark_with_type(const Event& e, std::uint64_t& h) {
  MarkWithType s;
  if (!read_fixed(e, 0, s)) return false;
  h = fold(h, s.HeapNum), h = fold(h, s.ClrInstanceID), h = fold(h, s.Type), h = fold(h, s.Bytes);
  return true;
}
bool method_load(const Event& e, std::uint64_t& h) {
  Reader r{e.payload.data(), e.payload.data() + e.payload.size()};
  MethodLoadHead a;
  const std::uint8_t *ns, *name, *sig;
  std::size_t ns_units, name_units, sig_units;
  MethodLoadTail t;
  if (!r.take(a) || !r.take_string(ns, ns_units) || !r.take_string(name, name_units) ||
      !r.take_string(sig, sig_units) || !r.take(t))
    return false;
  h = fold(h, a.MethodID);
  h = fold_utf16(h, ns, ns_units), h = fold_utf16(h, name, name_units), h = fold_utf16(h, sig, sig_units);
  h = fold(h, t.EntryPoint), h = fold(h, t.ClrInstanceID);
  return true;
}
bool triggered(const Event& e, std::uint64_t& h) {
  Triggered s;
  if (!read_fixed(e, 0, s)) return false;
  h = fold(h, s.Reason), h = fold(h, s.ClrInstanceID);
  return true;
}
bool gc_end(const Event& e, std::uint64_t& h) {
  GCEndV1 s;
  if (!read_fixed(e, 1, s)) return false;
  h = fold(h, s.Count), h = fold(h, s.Depth), h = fold(h, s.ClrInstanceID);
  return true;
}
bool gc_start(const Event& e, std::uint64_t& h) {
  GCStartV2 s;
  if (!read_fixed(e, 2, s)) return false;
  h = fold(h, s.Count), h = fold(h, s.Depth), h = fold(h, s.Reason), h = fold(h, s.Type);
  h = fold(h, s.ClrInstanceID), h = fold(h, s.ClientSequenceNumber);
  return true;
}
bool heap_stats(const Event& e, std::uint64_t& h) {
  HeapStatsV1 s;
  if (!read_fixed(e, 1, s)) return false;
  h = fold(h, s.GenerationSize0), h = fold(h, s.TotalPromotedSize0), h = fold(h, s.GenerationSize1);
  h = fold(h, s.TotalPromotedSize1), h = fold(h, s.GenerationSize2), h = fold(h, s.TotalPromotedSize2);
  h = fold(h, s.GenerationSize3), h = fold(h, s.TotalPromotedSize3), h = fold(h, s.FinalizationPromotedSize);
  h = fold(h, s.FinalizationPromotedCount), h = fold(h, s.PinnedObjectCount), h = fold(h, s.SinkBlockCount);
  h = fold(h, s.GCHandleCount), h = fold(h, s.ClrInstanceID);
  return true;
}
bool bulk_moved(const Event& e, std::uint64_t& h) {
  if (e.pointer_size != 8) return false;
  Reader r{e.payload.data(), e.payload.data() + e.payload.size()};
  BulkMovedHead s;
  if (!r.take(s)) return false;
  if (std::uint64_t{s.Count} * sizeof(MovedRange) > static_cast<std::size_t>(r.end - r.p)) return false;
  h = fold(h, s.Index), h = fold(h, s.Count), h = fold(h, s.ClrInstanceID);
  for (std::uint32_t i = 0; i < s.Count; ++i) {
    MovedRange m;
    std::memcpy(&m, r.p + i * sizeof(MovedRange), sizeof m);
    h = fold(h, m.OldRangeBase), h = fold(h, m.NewRangeBase), h = fold(h, m.RangeLength);
  }
  return true;
}

}  // namespace hand

CLRETW_CONTENDER bool hand_event(const Event& e, std::uint64_t& h) {
  switch (e.id) {
    case 10: return hand::allocation_tick(e, h);
    case 3: case 7: case 8: return hand::clr_instance_only(e, h);
    case 9: return hand::suspend_ee_begin(e, h);
    case 23: return hand::generation_range(e, h);
    case 202: return hand::mark_with_type(e, h);
    case 159: return hand::method_load(e, h);
    case 35: return hand::triggered(e, h);
    case 2: return hand::gc_end(e, h);
    case 1: return hand::gc_start(e, h);
    case 4: return hand::heap_stats(e, h);
    case 22: return hand::bulk_moved(e, h);
    default: return false;
  }
}

// --- c. View: the generated zero-copy views ---------------------------------------------

// Every field of a verified event view, folded (the Dispatcher's handlers below do the same).
template <class View>
CLRETW_CONTENDER std::uint64_t fold_clr_instance(std::uint64_t h, const View& v) {
  return fold_opt(h, v.ClrInstanceID());
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCRestartEEEndView& v) { return fold_clr_instance(h, v); }
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCRestartEEBeginView& v) { return fold_clr_instance(h, v); }
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCSuspendEEEndView& v) { return fold_clr_instance(h, v); }
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCAllocationTickView& v) {
  h = fold(h, v.AllocationAmount()), h = fold_enum(h, v.AllocationKind()), h = fold_opt(h, v.ClrInstanceID());
  h = fold_opt(h, v.AllocationAmount64()), h = fold_opt(h, v.TypeID());
  if (auto name = v.TypeName()) h = fold_utf16(h, *name);
  h = fold_opt(h, v.HeapIndex()), h = fold_opt(h, v.Address()), h = fold_opt(h, v.ObjectSize());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCSuspendEEBeginView& v) {
  h = fold_enum(h, v.Reason()), h = fold_opt(h, v.Count()), h = fold_opt(h, v.ClrInstanceID());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCGenerationRangeView& v) {
  h = fold(h, v.Generation()), h = fold(h, v.RangeStart()), h = fold(h, v.RangeUsedLength());
  h = fold(h, v.RangeReservedLength()), h = fold(h, v.ClrInstanceID());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCMarkWithTypeView& v) {
  h = fold(h, v.HeapNum()), h = fold(h, v.ClrInstanceID()), h = fold_enum(h, v.Type()), h = fold(h, v.Bytes());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::R2RGetEntryPointView& v) {
  h = fold(h, v.MethodID());
  h = fold_utf16(h, v.MethodNamespace()), h = fold_utf16(h, v.MethodName()), h = fold_utf16(h, v.MethodSignature());
  h = fold(h, v.EntryPoint()), h = fold(h, v.ClrInstanceID());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCTriggeredView& v) {
  h = fold_enum(h, v.Reason()), h = fold(h, v.ClrInstanceID());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCEndView& v) {
  h = fold(h, v.Count()), h = fold(h, v.Depth()), h = fold_opt(h, v.ClrInstanceID());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCStartView& v) {
  h = fold(h, v.Count()), h = fold_opt(h, v.Depth()), h = fold_enum(h, v.Reason()), h = fold_opt(h, v.Type());
  h = fold_opt(h, v.ClrInstanceID()), h = fold_opt(h, v.ClientSequenceNumber());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCHeapStatsView& v) {
  h = fold(h, v.GenerationSize0()), h = fold(h, v.TotalPromotedSize0()), h = fold(h, v.GenerationSize1());
  h = fold(h, v.TotalPromotedSize1()), h = fold(h, v.GenerationSize2()), h = fold(h, v.TotalPromotedSize2());
  h = fold(h, v.GenerationSize3()), h = fold(h, v.TotalPromotedSize3()), h = fold(h, v.FinalizationPromotedSize());
  h = fold(h, v.FinalizationPromotedCount()), h = fold(h, v.PinnedObjectCount()), h = fold(h, v.SinkBlockCount());
  h = fold(h, v.GCHandleCount()), h = fold_opt(h, v.ClrInstanceID());
  h = fold_opt(h, v.GenerationSize4()), h = fold_opt(h, v.TotalPromotedSize4());
  return h;
}
CLRETW_CONTENDER std::uint64_t fold_view(std::uint64_t h, const rt::GCBulkMovedObjectRangesView& v) {
  h = fold(h, v.Index()), h = fold(h, v.Count()), h = fold(h, v.ClrInstanceID());
  for (auto m : v.Values()) h = fold(h, m.OldRangeBase()), h = fold(h, m.NewRangeBase()), h = fold(h, m.RangeLength());
  return h;
}

template <class View>
CLRETW_CONTENDER bool verified_view(const Event& e, std::uint64_t& h) {
  auto v = View::verify(e.payload, e.version, e.pointer_size);
  if (!v) return false;
  h = fold_view(h, *v);
  return true;
}

CLRETW_CONTENDER bool view_event(const Event& e, std::uint64_t& h) {
  switch (e.id) {
    case 10: return verified_view<rt::GCAllocationTickView>(e, h);
    case 3: return verified_view<rt::GCRestartEEEndView>(e, h);
    case 7: return verified_view<rt::GCRestartEEBeginView>(e, h);
    case 8: return verified_view<rt::GCSuspendEEEndView>(e, h);
    case 9: return verified_view<rt::GCSuspendEEBeginView>(e, h);
    case 23: return verified_view<rt::GCGenerationRangeView>(e, h);
    case 202: return verified_view<rt::GCMarkWithTypeView>(e, h);
    case 159: return verified_view<rt::R2RGetEntryPointView>(e, h);
    case 35: return verified_view<rt::GCTriggeredView>(e, h);
    case 2: return verified_view<rt::GCEndView>(e, h);
    case 1: return verified_view<rt::GCStartView>(e, h);
    case 4: return verified_view<rt::GCHeapStatsView>(e, h);
    case 22: return verified_view<rt::GCBulkMovedObjectRangesView>(e, h);
    default: return false;
  }
}

// --- c2. Layout: the payload structs' layout views ---------------------------------------

// A payload struct's View<8>, chosen as the hand-written decoder chooses its struct: by
// the event's version (from `min_version` on: newer versions append fields) and, for
// layouts with pointers, a pointer size of 8.
template <class P>
auto layout(const Event& e, unsigned min_version) {
  using V = typename P::template View<8>;
  return e.version >= min_version ? V::verify(e.payload) : std::optional<V>{};
}

CLRETW_CONTENDER bool layout_event(const Event& e, std::uint64_t& h) {
  namespace pl = rt::payload;
  switch (e.id) {
    case 10: {
      if (e.pointer_size != 8) return false;
      auto v = layout<pl::GCAllocationTick_V3>(e, 3);
      if (!v) return false;
      h = fold(h, v->AllocationAmount()), h = fold_enum(h, v->AllocationKind()), h = fold(h, v->ClrInstanceID());
      h = fold(h, v->AllocationAmount64()), h = fold(h, v->TypeID());
      h = fold_utf16(h, v->TypeName());
      h = fold(h, v->HeapIndex()), h = fold(h, v->Address());
      return true;
    }
    case 3: case 7: case 8: {  // all GCNoUserData
      auto v = layout<pl::GCRestartEEEnd_V1>(e, 1);
      if (!v) return false;
      h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 9: {
      auto v = layout<pl::GCSuspendEEBegin_V1>(e, 1);
      if (!v) return false;
      h = fold_enum(h, v->Reason()), h = fold(h, v->Count()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 23: {
      if (e.pointer_size != 8) return false;
      auto v = layout<pl::GCGenerationRange>(e, 0);
      if (!v) return false;
      h = fold(h, v->Generation()), h = fold(h, v->RangeStart()), h = fold(h, v->RangeUsedLength());
      h = fold(h, v->RangeReservedLength()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 202: {
      auto v = layout<pl::GCMarkWithType>(e, 0);
      if (!v) return false;
      h = fold(h, v->HeapNum()), h = fold(h, v->ClrInstanceID()), h = fold_enum(h, v->Type()), h = fold(h, v->Bytes());
      return true;
    }
    case 159: {
      auto v = layout<pl::R2RGetEntryPoint>(e, 0);
      if (!v) return false;
      h = fold(h, v->MethodID());
      h = fold_utf16(h, v->MethodNamespace()), h = fold_utf16(h, v->MethodName()), h = fold_utf16(h, v->MethodSignature());
      h = fold(h, v->EntryPoint()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 35: {
      auto v = layout<pl::GCTriggered>(e, 0);
      if (!v) return false;
      h = fold_enum(h, v->Reason()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 2: {
      auto v = layout<pl::GCEnd_V1>(e, 1);
      if (!v) return false;
      h = fold(h, v->Count()), h = fold(h, v->Depth()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 1: {
      auto v = layout<pl::GCStart_V2>(e, 2);
      if (!v) return false;
      h = fold(h, v->Count()), h = fold(h, v->Depth()), h = fold_enum(h, v->Reason()), h = fold_enum(h, v->Type());
      h = fold(h, v->ClrInstanceID()), h = fold(h, v->ClientSequenceNumber());
      return true;
    }
    case 4: {
      auto v = layout<pl::GCHeapStats_V1>(e, 1);
      if (!v) return false;
      h = fold(h, v->GenerationSize0()), h = fold(h, v->TotalPromotedSize0()), h = fold(h, v->GenerationSize1());
      h = fold(h, v->TotalPromotedSize1()), h = fold(h, v->GenerationSize2()), h = fold(h, v->TotalPromotedSize2());
      h = fold(h, v->GenerationSize3()), h = fold(h, v->TotalPromotedSize3()), h = fold(h, v->FinalizationPromotedSize());
      h = fold(h, v->FinalizationPromotedCount()), h = fold(h, v->PinnedObjectCount()), h = fold(h, v->SinkBlockCount());
      h = fold(h, v->GCHandleCount()), h = fold(h, v->ClrInstanceID());
      return true;
    }
    case 22: {
      if (e.pointer_size != 8) return false;
      auto v = layout<pl::GCBulkMovedObjectRanges>(e, 0);
      if (!v) return false;
      h = fold(h, v->Index()), h = fold(h, v->Count()), h = fold(h, v->ClrInstanceID());
      for (auto m : v->Values()) h = fold(h, m.OldRangeBase()), h = fold(h, m.NewRangeBase()), h = fold(h, m.RangeLength());
      return true;
    }
    default: return false;
  }
}

// --- d. Owning: the generated payload structs' decode() ------------------------------------

CLRETW_CONTENDER bool owning_event(const Event& e, std::uint64_t& h) {
  namespace pl = rt::payload;
  const clretw::Bytes p(e.payload);
  const unsigned ps = e.pointer_size;
  switch (e.id) {
    case 10: {
      if (e.version != 3) return false;
      auto s = pl::GCAllocationTick_V3::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->AllocationAmount), h = fold_enum(h, s->AllocationKind), h = fold(h, s->ClrInstanceID);
      h = fold(h, s->AllocationAmount64), h = fold(h, s->TypeID), h = fold_utf8_as_utf16(h, s->TypeName);
      h = fold(h, s->HeapIndex), h = fold(h, s->Address);
      return true;
    }
    case 3: case 7: case 8: {  // GCRestartEEEnd_V1, GCRestartEEBegin_V1, GCSuspendEEEnd_V1: all GCNoUserData
      if (e.version != 1) return false;
      auto s = pl::GCRestartEEEnd_V1::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 9: {
      if (e.version != 1) return false;
      auto s = pl::GCSuspendEEBegin_V1::decode(p, ps);
      if (!s) return false;
      h = fold_enum(h, s->Reason), h = fold(h, s->Count), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 23: {
      auto s = pl::GCGenerationRange::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->Generation), h = fold(h, s->RangeStart), h = fold(h, s->RangeUsedLength);
      h = fold(h, s->RangeReservedLength), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 202: {
      auto s = pl::GCMarkWithType::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->HeapNum), h = fold(h, s->ClrInstanceID), h = fold_enum(h, s->Type), h = fold(h, s->Bytes);
      return true;
    }
    case 159: {
      auto s = pl::R2RGetEntryPoint::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->MethodID);
      h = fold_utf8_as_utf16(h, s->MethodNamespace), h = fold_utf8_as_utf16(h, s->MethodName);
      h = fold_utf8_as_utf16(h, s->MethodSignature);
      h = fold(h, s->EntryPoint), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 35: {
      auto s = pl::GCTriggered::decode(p, ps);
      if (!s) return false;
      h = fold_enum(h, s->Reason), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 2: {
      if (e.version != 1) return false;
      auto s = pl::GCEnd_V1::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->Count), h = fold(h, s->Depth), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 1: {
      if (e.version != 2) return false;
      auto s = pl::GCStart_V2::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->Count), h = fold(h, s->Depth), h = fold_enum(h, s->Reason), h = fold_enum(h, s->Type);
      h = fold(h, s->ClrInstanceID), h = fold(h, s->ClientSequenceNumber);
      return true;
    }
    case 4: {
      if (e.version != 1) return false;
      auto s = pl::GCHeapStats_V1::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->GenerationSize0), h = fold(h, s->TotalPromotedSize0), h = fold(h, s->GenerationSize1);
      h = fold(h, s->TotalPromotedSize1), h = fold(h, s->GenerationSize2), h = fold(h, s->TotalPromotedSize2);
      h = fold(h, s->GenerationSize3), h = fold(h, s->TotalPromotedSize3), h = fold(h, s->FinalizationPromotedSize);
      h = fold(h, s->FinalizationPromotedCount), h = fold(h, s->PinnedObjectCount), h = fold(h, s->SinkBlockCount);
      h = fold(h, s->GCHandleCount), h = fold(h, s->ClrInstanceID);
      return true;
    }
    case 22: {
      auto s = pl::GCBulkMovedObjectRanges::decode(p, ps);
      if (!s) return false;
      h = fold(h, s->Index), h = fold(h, s->Count), h = fold(h, s->ClrInstanceID);
      for (const auto& m : s->Values) h = fold(h, m.OldRangeBase), h = fold(h, m.NewRangeBase), h = fold(h, m.RangeLength);
      return true;
    }
    default: return false;
  }
}

// --- e. Dynamic: visit_fields with a folding visitor --------------------------------------

class FoldVisitor final : public clretw::FieldVisitor {
 public:
  std::uint64_t h = 0;
  void scalar(const clretw::Scalar& s) override {
    if (s.type() == clretw::InType::UnicodeString) h = fold_utf16(h, s.as_utf16());
    else h = fold(h, s.as_uint());
  }
};

CLRETW_CONTENDER bool dynamic_event(const Event& e, std::uint64_t& h) {
  const clretw::EventDesc* d = rt::provider.find(e.id, e.version);
  if (!d || !d->payload) return false;
  FoldVisitor v;
  v.h = h;
  if (!clretw::visit_fields(*d->payload, e.payload, e.pointer_size, v)) return false;
  h = v.h;
  return true;
}

// --- Running -----------------------------------------------------------------------------

using EventFn = bool (*)(const Event&, std::uint64_t&);

struct Sum {
  std::uint64_t h = kSeed;
  std::uint64_t failed = 0;
};

// The contender is a template argument: a direct call that the compiler may inline, as in a
// program that uses the decoder, and the same treatment for every contender.
template <EventFn Fn>
Sum checksum(const std::vector<Event>& events) {
  Sum s;
  for (const Event& e : events)
    if (!Fn(e, s.h)) ++s.failed;
  return s;
}

template <EventFn Fn>
void run(benchmark::State& state, Group g) {
  const std::vector<Event>& events = g_events[g];
  std::uint64_t failed = 0;
  for (auto _ : state) {
    Sum s = checksum<Fn>(events);
    benchmark::DoNotOptimize(s.h);
    failed += s.failed;
  }
  if (failed) state.SkipWithError("an event failed to decode");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(events.size()));
}

// One named function per benchmark, so that callgrind reports each on its own (bench/ratios.sh).
#define CLRETW_VIEWS_BENCH(C, F)                                                     \
  void C##_All(benchmark::State& s) { run<F>(s, kAll); }                             \
  void C##_Fixed2(benchmark::State& s) { run<F>(s, kFixed2); }                       \
  void C##_AllocationTick(benchmark::State& s) { run<F>(s, kAllocationTick); }       \
  void C##_BulkMovedObjectRanges(benchmark::State& s) { run<F>(s, kBulkMoved); }
CLRETW_VIEWS_BENCH(Memcpy, memcpy_event)
CLRETW_VIEWS_BENCH(Hand, hand_event)
CLRETW_VIEWS_BENCH(View, view_event)
CLRETW_VIEWS_BENCH(Layout, layout_event)
CLRETW_VIEWS_BENCH(Owning, owning_event)
CLRETW_VIEWS_BENCH(Dynamic, dynamic_event)
#undef CLRETW_VIEWS_BENCH

// --- The whole trace --------------------------------------------------------------------
// The reader over the whole file in memory, handing every event to `on`; then the same with
// the chosen events decoded: by Hand (a switch on provider and id, as above) and by a
// Dispatcher whose typed handlers read every field of the event views it verified. All fold
// every event's id and the chosen events' fields in file order (Hand and Dispatcher agree).

template <class On>
CLRETW_CONTENDER Sum over_trace(On&& on) {
  Sum s;
  auto reader = clretw::nettrace::Reader::open_memory(g_trace);
  if (!reader) return Sum{0, 1};
  while (true) {
    auto next = (*reader)->next();
    if (!next) {
      ++s.failed;
      break;
    }
    if (!*next) break;
    on(**next, s);
  }
  return s;
}

bool chosen_id(std::uint16_t id) {
  return std::any_of(std::begin(kChosen), std::end(kChosen), [&](const Chosen& c) { return c.id == id; });
}

Sum trace_reader() {
  return over_trace([](const clretw::EventRecord& r, Sum& s) { s.h = fold(s.h, r.id); });
}

Sum trace_hand() {
  return over_trace([](const clretw::EventRecord& r, Sum& s) {
    s.h = fold(s.h, r.id);
    if (r.provider_guid != rt::provider_guid) return;
    const Event e{r.id, r.version, r.pointer_size, r.payload};
    if (!hand_event(e, s.h) && chosen_id(r.id)) ++s.failed;
  });
}

std::uint64_t g_dispatched;  // what the Dispatcher's handlers fold into
clretw::Dispatcher make_dispatcher() {
  clretw::Dispatcher d({&clretw::catalog()});
  auto on = [&]<class E>() {
    d.on<E>([](const typename E::View& v, const clretw::EventRecord&) { g_dispatched = fold_view(g_dispatched, v); });
  };
  on.operator()<rt::GCAllocationTick>(), on.operator()<rt::GCRestartEEEnd>(), on.operator()<rt::GCRestartEEBegin>();
  on.operator()<rt::GCSuspendEEEnd>(), on.operator()<rt::GCSuspendEEBegin>(), on.operator()<rt::GCGenerationRange>();
  on.operator()<rt::GCMarkWithType>(), on.operator()<rt::R2RGetEntryPoint>(), on.operator()<rt::GCTriggered>();
  on.operator()<rt::GCEnd>(), on.operator()<rt::GCStart>(), on.operator()<rt::GCHeapStats>();
  on.operator()<rt::GCBulkMovedObjectRanges>();
  return d;
}

Sum trace_dispatcher() {
  static clretw::Dispatcher d = make_dispatcher();
  return over_trace([](const clretw::EventRecord& r, Sum& s) {
    g_dispatched = fold(s.h, r.id);
    if (d.dispatch(r) == clretw::Dispatcher::Outcome::malformed) ++s.failed;
    s.h = g_dispatched;
  });
}

template <Sum (*Fn)()>
void run_trace(benchmark::State& state) {
  std::uint64_t failed = 0, events = 0;
  for (auto _ : state) {
    Sum s = Fn();
    benchmark::DoNotOptimize(s.h);
    failed += s.failed;
    events += g_trace_events;
  }
  if (failed) state.SkipWithError("an event failed to decode");
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}
void Trace_Reader(benchmark::State& s) { run_trace<trace_reader>(s); }
void Trace_Hand(benchmark::State& s) { run_trace<trace_hand>(s); }
void Trace_Dispatcher(benchmark::State& s) { run_trace<trace_dispatcher>(s); }

struct Entry {
  const char* name;
  void (*run)(benchmark::State&);
};
#define CLRETW_VIEWS_ENTRIES(C) \
  {#C "_All", C##_All}, {#C "_Fixed2", C##_Fixed2}, {#C "_AllocationTick", C##_AllocationTick}, \
      {#C "_BulkMovedObjectRanges", C##_BulkMovedObjectRanges}
const Entry kBenchmarks[] = {
    CLRETW_VIEWS_ENTRIES(Memcpy), CLRETW_VIEWS_ENTRIES(Hand),    CLRETW_VIEWS_ENTRIES(Layout),
    CLRETW_VIEWS_ENTRIES(View),   CLRETW_VIEWS_ENTRIES(Owning), CLRETW_VIEWS_ENTRIES(Dynamic),
    {"Trace_Reader", Trace_Reader}, {"Trace_Hand", Trace_Hand}, {"Trace_Dispatcher", Trace_Dispatcher},
};
#undef CLRETW_VIEWS_ENTRIES

struct Contender {
  const char* name;
  Sum (*checksum)(const std::vector<Event>&);
  bool must_agree;
};
const Contender kContenders[] = {
    {"Memcpy", checksum<memcpy_event>, false}, {"Hand", checksum<hand_event>, true},
    {"Layout", checksum<layout_event>, true},  {"View", checksum<view_event>, true},
    {"Owning", checksum<owning_event>, true},
    {"Dynamic", checksum<dynamic_event>, true},
};

// Reads the chosen events' payloads; false (with a message) when the trace cannot be read.
bool load(const std::string& path) {
  {
    std::ifstream in(path, std::ios::binary);
    g_trace.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto reader = clretw::nettrace::Reader::open_file(path);
  if (!reader) {
    std::fprintf(stderr, "clretw_bench_views: %s: %s\n", path.c_str(), reader.error().message().c_str());
    return false;
  }
  while (true) {
    auto next = (*reader)->next();
    if (!next) {
      std::fprintf(stderr, "clretw_bench_views: %s: %s\n", path.c_str(), next.error().message().c_str());
      return false;
    }
    const clretw::EventRecord* r = *next;
    if (!r) break;
    ++g_trace_events;
    if (r->provider_guid != rt::provider_guid) continue;
    if (std::none_of(std::begin(kChosen), std::end(kChosen),
                     [&](const Chosen& c) { return c.id == r->id && c.version == r->version; }))
      continue;
    Event e;
    e.id = r->id, e.version = r->version, e.pointer_size = r->pointer_size;
    e.payload = g_payloads.emplace_back(r->payload.begin(), r->payload.end());
    g_max_payload = std::max(g_max_payload, e.payload.size());
    for (int g = 0; g < kGroups; ++g)
      if (in_group(static_cast<Group>(g), e)) g_events[g].push_back(e);
  }
  for (const Chosen& c : kChosen)
    if (std::none_of(g_events[kAll].begin(), g_events[kAll].end(),
                     [&](const Event& e) { return e.id == c.id && e.version == c.version; })) {
      std::fprintf(stderr, "clretw_bench_views: %s has no event %u v%u\n", path.c_str(), c.id, c.version);
      return false;
    }
  for (const Event& e : g_events[kFixed2])
    if (e.payload.size() != 2) {
      std::fprintf(stderr, "clretw_bench_views: event %u v%u has %zu payload bytes, not 2\n", e.id, e.version,
                   e.payload.size());
      return false;
    }
  g_scratch.resize(g_max_payload + 8);
  return true;
}

// Every contender decodes every event, and all but Memcpy fold the same checksum; over the
// whole trace, Hand and Dispatcher fold the same.
bool check() {
  bool ok = true;
  const Sum hand_trace = trace_hand(), dispatched = trace_dispatcher(), read = trace_reader();
  std::fprintf(stderr, "  whole trace: %llu events; Hand %016llx, Dispatcher %016llx\n",
               static_cast<unsigned long long>(g_trace_events), static_cast<unsigned long long>(hand_trace.h),
               static_cast<unsigned long long>(dispatched.h));
  if (hand_trace.failed || dispatched.failed || read.failed || hand_trace.h != dispatched.h) {
    std::fprintf(stderr, "clretw_bench_views: over the whole trace, Hand and Dispatcher disagree or fail\n");
    ok = false;
  }
  for (int g = 0; g < kGroups; ++g) {
    const Sum hand = checksum<hand_event>(g_events[g]);
    for (const Contender& c : kContenders) {
      const Sum s = c.checksum(g_events[g]);
      if (g == kAll) std::fprintf(stderr, "  %-8s checksum %016llx\n", c.name, static_cast<unsigned long long>(s.h));
      if (s.failed) {
        std::fprintf(stderr, "clretw_bench_views: %s failed to decode %llu of the %s events\n", c.name,
                     static_cast<unsigned long long>(s.failed), kGroupNames[g]);
        ok = false;
      } else if (c.must_agree && s.h != hand.h) {
        std::fprintf(stderr, "clretw_bench_views: %s's checksum of the %s events is %016llx, Hand's %016llx\n", c.name,
                     kGroupNames[g], static_cast<unsigned long long>(s.h), static_cast<unsigned long long>(hand.h));
        ok = false;
      }
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t iterations = 0;
  if (!clretw_bench::take_iterations("clretw_bench_views", argc, argv, iterations)) return 2;
  bool groups = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--groups") groups = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;

  const std::string path = std::string(CLRETW_SHARED_DIR) + "/traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace";
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    std::printf("SKIPPED: ../shared is absent\n");
    return 0;
  }
  if (!load(path)) return 1;
  if (groups) {
    for (int g = 0; g < kGroups; ++g) std::printf("%s %zu\n", kGroupNames[g], g_events[g].size());
    std::printf("Trace %llu\n", static_cast<unsigned long long>(g_trace_events));
    return 0;
  }
  std::fprintf(stderr, "clretw_bench_views: %zu events (Fixed2 %zu, AllocationTick %zu, BulkMovedObjectRanges %zu)\n",
               g_events[kAll].size(), g_events[kFixed2].size(), g_events[kAllocationTick].size(),
               g_events[kBulkMoved].size());
  if (!check()) {
    std::fprintf(stderr, "clretw_bench_views: the contenders disagree; not measuring\n");
    return 1;
  }

  for (const Entry& e : kBenchmarks) {
    auto* b = benchmark::RegisterBenchmark(e.name, e.run);
    if (iterations) b->Iterations(iterations);
  }
  return clretw_bench::run_registered(argc, argv);
}
