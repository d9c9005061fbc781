// Conformance with TraceEvent on real traces (../shared/traces).
//
// Every event of the four traces (three .nettrace files and a .NET Core 2.1
// NetPerf file, read by the same reader) is decoded twice: with the decoders generated
// from ClrEtwAll.runtime-main.man (plus the built-in SampleProfiler description),
// and with the built-in decoders alone, as a user with no manifest at hand does.
// Every CLR event must decode and its generated view must consume exactly its
// payload. Then every line of each *.baseline.txt - TraceEvent's earliest
// event of each name, and the count of that name - is matched to our event at
// the same time and thread, and every field the baseline shows must have an
// equal value in ours after normalisation (names case-insensitive; integers
// regardless of thousands separators and hex/decimal; enum and flag names;
// booleans; GUIDs; doubles to 1e-9 relative; XML entities unescaped). The
// count per name must agree, and so must the activity id TraceEvent shows
// (ActivityID, when not empty). The few lines that cannot agree for a reason
// outside the trace are listed below with the reason; nothing else is excused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "shared_cases.h"
#include "clretw/describe.h"
#include "clretw/events.h"
#include "clretw/format.h"
#include "clretw/nettrace.h"
#include "clretw/runtime_main/events.h"
#include "reference.h"

using namespace clretw;

namespace {

// ---------------------------------------------------------------------------
// Our side: every event with its fields as comparable text.

struct Value {
  std::string text;                     // map name for map fields, else the value
  std::optional<std::uint64_t> number;  // integers (the raw value, also for map fields)
  const MapDesc* map = nullptr;
};

struct Record {  // a struct-array element, or an event's fields
  std::vector<std::pair<std::string, Value>> fields;
  std::vector<std::pair<std::string, std::vector<Record>>> arrays;  // struct arrays
};

struct Ours {
  std::string provider, name;
  Guid guid;
  std::uint16_t id = 0;
  std::uint8_t version = 0;
  std::string ms;  // "%.4f", as TraceEvent prints MSec
  std::uint64_t tid = 0;
  Guid activity, related;
  Record fields;
};

// Collects field values: integers in decimal, map values by name, strings raw.
class Collector final : public FieldVisitor {
 public:
  explicit Collector(Record& root) { stack_.push_back(&root); }
  void scalar(const Scalar& s) override {
    std::string v = value(s);
    if (!array_.empty()) {
      array_.back() += (array_first_.back() ? "" : ",") + v;
      array_first_.back() = false;
      return;
    }
    Value x{v, std::nullopt, s.field->map};
    if (is_integer(s.type())) x.number = is_signed(s.type()) ? static_cast<std::uint64_t>(s.as_int()) : s.as_uint();
    stack_.back()->fields.emplace_back(std::string(s.field->name), x);
  }
  void begin_array(const FieldDesc& f, std::uint64_t) override {
    if (f.type == InType::Struct) {
      stack_.back()->arrays.emplace_back(std::string(f.name), std::vector<Record>{});
      records_.push_back(&stack_.back()->arrays.back().second);
    } else {
      array_name_.push_back(std::string(f.name));
      array_.push_back("[");
      array_first_.push_back(true);
    }
  }
  void end_array(const FieldDesc& f) override {
    if (f.type == InType::Struct) {
      records_.pop_back();
      return;
    }
    stack_.back()->fields.emplace_back(array_name_.back(), Value{array_.back() + "]", std::nullopt, nullptr});
    array_name_.pop_back();
    array_.pop_back();
    array_first_.pop_back();
  }
  void begin_element(std::uint64_t) override {
    records_.back()->emplace_back();
    stack_.push_back(&records_.back()->back());
  }
  void end_element() override { stack_.pop_back(); }

 private:
  static std::string value(const Scalar& s) {
    const FieldDesc& f = *s.field;
    std::string out;
    switch (f.type) {
      case InType::UnicodeString: {
        std::string t = s.as_utf16().to_utf8();
        t.erase(std::remove(t.begin(), t.end(), '\0'), t.end());  // XML cannot hold NUL: TraceEvent drops it
        return t;
      }
      case InType::AnsiString: return std::string(s.as_ansi());
      case InType::Boolean: return s.as_bool() ? "true" : "false";
      case InType::Guid: return s.as_guid().to_string();
      case InType::Float: case InType::Double: append_double(out, s.as_double()); return out;
      default:
        if (is_integer(f.type) && f.map) {
          f.map->format(is_signed(f.type) ? static_cast<std::uint64_t>(s.as_int()) : s.as_uint(), out);
          return out;
        }
        if (is_signed(f.type)) return std::to_string(s.as_int());
        if (is_integer(f.type) || f.type == InType::FileTime) return std::to_string(s.as_uint());
        format_value(s, out, Format::text);
        return out;
    }
  }

  std::vector<Record*> stack_;
  std::vector<std::vector<Record>*> records_;
  std::vector<std::string> array_name_, array_;
  std::vector<bool> array_first_;
};

// ---------------------------------------------------------------------------
// TraceEvent's side.

struct BaselineLine {
  std::string name;  // "Provider/EventName"
  std::uint64_t count = 0;
  std::map<std::string, std::string> attrs;                          // of <Event>
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> children;  // nested elements
};

std::string unescape_xml(std::string s) {
  const std::pair<std::string, std::string> entities[] = {
      {"&quot;", "\""}, {"&apos;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (std::size_t p; (p = s.find(from)) != std::string::npos;) s.replace(p, from.size(), to);
  return s;
}

// Attributes name="value" (TraceEvent pads some with spaces: MSec=    "18.1697").
std::map<std::string, std::string> attributes(const std::string& tag) {
  std::map<std::string, std::string> a;
  std::size_t p = 0;
  while ((p = tag.find('=', p)) != std::string::npos) {
    std::size_t name_end = p, name_start = p;
    while (name_start > 0 && (std::isalnum(static_cast<unsigned char>(tag[name_start - 1])) || tag[name_start - 1] == '_'))
      --name_start;
    std::size_t q = p + 1;
    while (q < tag.size() && tag[q] == ' ') ++q;
    if (q >= tag.size() || tag[q] != '"') {
      ++p;
      continue;
    }
    const std::size_t close = tag.find('"', q + 1);
    if (close == std::string::npos) break;
    std::string value = tag.substr(q + 1, close - q - 1);
    value.erase(0, value.find_first_not_of(' '));
    a[tag.substr(name_start, name_end - name_start)] = unescape_xml(value);
    p = close + 1;
  }
  return a;
}

std::vector<BaselineLine> read_baseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<BaselineLine> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    if (line.empty()) continue;
    BaselineLine b;
    const std::size_t c1 = line.find(", ");
    const std::size_t c2 = line.find(", ", c1 + 2);
    b.name = line.substr(0, c1);
    b.count = std::stoull(line.substr(c1 + 2, c2 - c1 - 2));
    const std::string xml = line.substr(c2 + 2);
    // The <Event ...> tag, then nested elements (struct array values) up to </Event>.
    std::size_t tag_end = xml.find('>');
    b.attrs = attributes(xml.substr(0, tag_end));
    for (std::size_t p = xml.find('<', tag_end); p != std::string::npos; p = xml.find('<', p + 1)) {
      if (xml.compare(p, 2, "</") == 0) continue;
      const std::size_t end = xml.find('>', p);
      if (end == std::string::npos) break;  // a cut line: its last element is incomplete
      std::string tag = xml.substr(p + 1, end - p - 1);
      const std::string element = tag.substr(0, tag.find(' '));
      b.children.emplace_back(element, attributes(tag));
      p = end;
    }
    lines.push_back(std::move(b));
  }
  return lines;
}

// ---------------------------------------------------------------------------
// Comparison after normalisation.

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::uint64_t> as_integer(std::string s) {
  if (s.empty()) return std::nullopt;
  bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  std::uint64_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    auto r = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  } else {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    if (s.empty()) return std::nullopt;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, 10);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  }
  return negative ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(v)) : v;
}

std::optional<double> as_double(const std::string& s) {
  std::string t = s;
  t.erase(std::remove(t.begin(), t.end(), ','), t.end());
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) return std::nullopt;
  return d;
}

bool same_value(const std::string& theirs, const std::string& ours) {
  if (theirs == ours) return true;
  if (lower(theirs) == lower(ours)) return true;  // booleans, GUIDs, hex digits
  const auto ti = as_integer(theirs), oi = as_integer(ours);
  if (ti && oi) return *ti == *oi;
  if ((theirs == "None" && ours == "0") || (theirs == "0" && ours == "None")) return true;  // an empty flag set
  if (theirs.front() == '[' && ours.front() == '[') {  // arrays: element-wise
    auto split = [](const std::string& a) {
      std::vector<std::string> v;
      std::stringstream ss(a.substr(1, a.size() - 2));
      for (std::string e; std::getline(ss, e, ',');) v.push_back(e);
      return v;
    };
    auto a = split(theirs), b = split(ours);
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_value(a[i], b[i])) return false;
    return true;
  }
  const auto td = as_double(theirs), od = as_double(ours);
  if (td && od) return std::fabs(*td - *od) <= 1e-9 * std::max(std::fabs(*td), 1e-300) || *td == *od;
  return false;
}

const Value* find_field(const Record& r, const std::string& name) {
  for (const auto& [n, v] : r.fields)
    if (lower(n) == lower(name)) return &v;
  return nullptr;
}

// Fields TraceEvent prints that are not payload fields.
bool header_attribute(const std::string& a) {
  static const char* const kHeader[] = {"MSec", "PID", "PName", "TID", "EventName", "ProviderName", "FormattedMessage"};
  return std::any_of(std::begin(kHeader), std::end(kHeader), [&](const char* h) { return a == h; });
}

// ---------------------------------------------------------------------------
// What TraceEvent's hand-written event classes add to the manifest. Each rule
// says where TraceEvent's value comes from; the test recomputes it from our
// decoded fields and compares. Only values whose source is outside the trace
// and the manifest are excused, field by field, with the reason.

// A field TraceEvent shows under another name than the manifest's.
struct Rename {
  std::string event, theirs, ours;
};
const std::vector<Rename> kRenames = {
    {"GC/MarkWithType", "Promoted", "Bytes"},  // GCMarkWithTypeTraceData.Promoted reads the manifest's Bytes
    {"GC/PerHeapHistory", "FreeListSpaceBefore", "FreeListBefore"},
    {"GC/PerHeapHistory", "FreeObjSpaceBefore", "FreeObjBefore"},
    {"GC/PerHeapHistory", "FreeListSpaceAfter", "FreeListAfter"},
    {"GC/PerHeapHistory", "FreeObjSpaceAfter", "FreeObjAfter"},
};

// Names TraceEvent gives to values the manifest leaves unnamed (its own enums).
struct Names {
  std::string event, field;
  bool flags;
  std::vector<std::pair<std::string, std::uint64_t>> names;
  std::uint64_t ignore_bits;  // bits TraceEvent strips before naming
  std::string source;
  bool gap = false;  // the runtime's manifest lacks these names; the built-in manifest has them
};
const std::vector<Names> kNames = {
    {"GC/GlobalHeapHistory", "Reason", false,
     {{"AllocSmall", 0}, {"Induced", 1}, {"LowMemory", 2}, {"Empty", 3}, {"AllocLarge", 4}, {"OutOfSpaceSOH", 5},
      {"OutOfSpaceLOH", 6}, {"InducedNotForced", 7}}, 0,
     "the manifest's GCReasonMap, which its GCGlobalHeapHistory template does not attach to Reason", true},
    {"GC/GlobalHeapHistory", "GlobalMechanisms", true,
     {{"Concurrent", 1}, {"Compaction", 2}, {"Promotion", 4}, {"Demotion", 8}, {"CardBundles", 0x10}, {"Elevation", 0x20}},
     0, "the runtime's gc_global_mechanism_p bits (gcrecord.h), named by TraceEvent's GCGlobalMechanisms", true},
    {"*", "AssemblyFlags", true,
     {{"DomainNeutral", 1}, {"Dynamic", 2}, {"Native", 4}, {"Collectible", 8}, {"ReadyToRun", 0x10}}, 0,
     "the manifest's AssemblyFlagsMap plus ReadyToRun (0x10), which the runtime sets and no manifest names", true},
    {"Method/LoadVerbose", "MethodFlags", true,
     {{"Dynamic", 1}, {"Generic", 2}, {"HasSharedGenericCode", 4}, {"Jitted", 8}, {"JitHelper", 0x10},
      {"ProfilerRejectedPrecompiledCode", 0x20}, {"ReadyToRunRejectedPrecompiledCode", 0x40}},
     0x380, "the manifest's MethodFlagsMap; bits 7-9 carry the optimization tier, which TraceEvent shows apart"},
};

// Values TraceEvent computes from other fields; returns nullopt when our fields cannot produce them.
using Derive = std::optional<std::uint64_t> (*)(const Record& r, std::size_t element);
std::optional<std::uint64_t> num(const Record& r, const char* name) {
  const Value* v = find_field(r, name);
  return v && v->number ? v->number : std::nullopt;
}
// The fields' values added up, an absent field counting 0.
std::uint64_t sum(const Record& r, std::initializer_list<const char*> fields) {
  std::uint64_t s = 0;
  for (const char* f : fields) s += num(r, f).value_or(0);
  return s;
}
std::optional<std::uint64_t> total_heap_size(const Record& r, std::size_t) {
  return sum(r, {"GenerationSize0", "GenerationSize1", "GenerationSize2", "GenerationSize3", "GenerationSize4"});
}
std::optional<std::uint64_t> total_promoted(const Record& r, std::size_t) {
  return sum(r,
             {"TotalPromotedSize0", "TotalPromotedSize1", "TotalPromotedSize2", "TotalPromotedSize3", "TotalPromotedSize4"});
}
// TraceEvent's GenData: GC/PerHeapHistory's quantities per generation (an element of its Values).
std::optional<std::uint64_t> obj_space_before(const Record& e, std::size_t = 0) {
  return num(e, "SizeBefore").value_or(0) - sum(e, {"FreeListBefore", "FreeObjBefore"});
}
std::optional<std::uint64_t> fragmentation(const Record& e, std::size_t = 0) {
  return sum(e, {"FreeListAfter", "FreeObjAfter"});
}
std::optional<std::uint64_t> obj_size_after(const Record& e, std::size_t) {
  return num(e, "SizeAfter").value_or(0) - *fragmentation(e);
}
std::optional<std::uint64_t> out_size(const Record& e, std::size_t = 0) {
  return sum(e, {"PinnedSurv", "NonePinnedSurv"});
}
std::optional<std::uint64_t> surv_rate(const Record& e, std::size_t) {
  const std::uint64_t before = *obj_space_before(e);
  return before ? *out_size(e) * 100 / before : 0;
}
struct Derived {
  std::string event, field;
  Derive derive;
  std::vector<std::pair<std::string, std::uint64_t>> names;  // when TraceEvent shows the result by name
  std::string formula;
};
const std::vector<Derived> kDerived = {
    {"GC/HeapStats", "TotalHeapSize", total_heap_size, {}, "GenerationSize0 + ... + GenerationSize4"},
    {"GC/HeapStats", "TotalPromoted", total_promoted, {}, "TotalPromotedSize0 + ... + TotalPromotedSize4"},
    {"Method/LoadVerbose", "OptimizationTier",
     [](const Record& r, std::size_t) -> std::optional<std::uint64_t> {
       auto flags = num(r, "MethodFlags");
       return flags ? std::optional<std::uint64_t>((*flags >> 7) & 7) : std::nullopt;
     },
     {{"Unknown", 0}, {"MinOptJitted", 1}, {"Optimized", 2}, {"QuickJitted", 3}, {"OptimizedTier1", 4}},
     "bits 7-9 of MethodFlags (the runtime's JIT optimization tier)"},
    // GC/PerHeapHistory: one GenData per generation, computed from the manifest's Values elements.
    {"GC/PerHeapHistory", "ObjSpaceBefore", obj_space_before, {}, "SizeBefore - FreeListBefore - FreeObjBefore"},
    {"GC/PerHeapHistory", "Fragmentation", fragmentation, {}, "FreeListAfter + FreeObjAfter"},
    {"GC/PerHeapHistory", "ObjSizeAfter", obj_size_after, {}, "SizeAfter - Fragmentation"},
    {"GC/PerHeapHistory", "Out", out_size, {}, "PinnedSurv + NonePinnedSurv"},
    {"GC/PerHeapHistory", "SurvRate", surv_rate, {}, "Out * 100 / ObjSpaceBefore, truncated"},
    {"GC/PerHeapHistory", "Name",
     [](const Record&, std::size_t element) -> std::optional<std::uint64_t> { return element; },
     {{"Gen0", 0}, {"Gen1", 1}, {"Gen2", 2}, {"GenLargeObj", 3}, {"GenPinObj", 4}}, "the element's index: the generation"},
};

// Fields whose value is not in the trace, nor in the manifest: excused, with the reason.
struct ExcusedField {
  std::string event, field, reason;
  bool gap = false;  // the built-in manifest names these values: they compare as they are
};
const std::vector<ExcusedField> kExcusedFields = {
    {"GC/HeapStats", "Depth", "TraceEvent's GCHeapStatsTraceData has a Depth property that always returns 0; no such field "
                              "exists in any manifest version or payload"},
    {"GC/PerHeapHistory", "CompactMechanisms",
     "TraceEvent decodes the runtime's gc_heap_compact_reason bit encoding (high bit + reason index) by hand; the manifest "
     "declares a plain UInt32 (ours: the number)",
     true},
    {"GC/PerHeapHistory", "ExpandMechanisms",
     "TraceEvent names the runtime's gc_heap_expand_mechanism values by hand; the manifest declares a plain UInt32", true},
};

// Decoding with the built-in manifest, whose maps name what the runtime's manifest leaves unnamed.
bool g_builtin = false;

template <class T>
const T* rule_for(const std::vector<T>& rules, const std::string& event, const std::string& field) {
  for (const T& r : rules) {
    if constexpr (requires { r.gap; })
      if (g_builtin && r.gap) continue;
    if ((r.event == "*" || (event.size() >= r.event.size() && event.compare(event.size() - r.event.size(), r.event.size(), r.event) == 0)) &&
        lower(r.field) == lower(field))
      return &r;
  }
  return nullptr;
}
const Rename* rename_for(const std::string& event, const std::string& theirs) {
  for (const Rename& r : kRenames)
    if (event.size() >= r.event.size() && event.compare(event.size() - r.event.size(), r.event.size(), r.event) == 0 &&
        r.theirs == theirs)
      return &r;
  return nullptr;
}

// A name or a ", "-joined flag list to a number, through a table.
std::optional<std::uint64_t> named(const std::string& text, const std::vector<std::pair<std::string, std::uint64_t>>& table,
                                   bool flags) {
  if (auto n = as_integer(text)) return n;
  if (text == "None") return 0;
  std::uint64_t v = 0;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    part.erase(0, part.find_first_not_of(' '));
    bool found = false;
    for (const auto& [name, value] : table)
      if (name == part) v |= value, found = true;
    if (!found) return std::nullopt;
    if (!flags) break;
  }
  return v;
}

// How a baseline field was settled.
enum class Verdict { equal, defaulted, renamed, named, derived, excused, differs };

struct FieldCheck {
  Verdict verdict;
  std::string detail;
};

// Compares one field TraceEvent shows. `newer_fields`: names of fields that only later versions of the event have.
FieldCheck check_field(const std::string& event, const std::string& attr, const std::string& theirs, const Record& ours,
                       std::size_t element, const std::vector<std::string>& newer_fields) {
  if (const ExcusedField* x = rule_for(kExcusedFields, event, attr)) return {Verdict::excused, x->reason};
  if (const Derived* d = rule_for(kDerived, event, attr)) {
    auto mine = d->derive(ours, element);
    auto want = d->names.empty() ? as_integer(theirs) : named(theirs, d->names, false);
    if (mine && want && *mine == *want) return {Verdict::derived, d->formula};
    return {Verdict::differs, attr + "=\"" + theirs + "\" vs " + (mine ? std::to_string(*mine) : "none") + " (" + d->formula + ")"};
  }
  std::string name = attr;
  Verdict how = Verdict::equal;
  if (const Rename* r = rename_for(event, attr)) name = r->ours, how = Verdict::renamed;
  const Value* mine = find_field(ours, name);
  if (!mine) {
    // TraceEvent's classes show fields of later versions with their defaults.
    const bool later = std::any_of(newer_fields.begin(), newer_fields.end(), [&](const std::string& f) { return lower(f) == lower(attr); });
    if (later && as_integer(theirs) == std::optional<std::uint64_t>(0)) return {Verdict::defaulted, ""};
    return {Verdict::differs, attr + " missing"};
  }
  if (const Names* n = rule_for(kNames, event, attr)) {
    auto want = named(theirs, n->names, n->flags);
    if (want && mine->number && (*mine->number & ~n->ignore_bits) == *want) return {Verdict::named, n->source};
    return {Verdict::differs, attr + "=\"" + theirs + "\" vs \"" + mine->text + "\" (" + n->source + ")"};
  }
  if (same_value(theirs, mine->text)) return {how, ""};
  if (mine->number) {
    // A number TraceEvent prints where we print a map name, or signed where the manifest says unsigned.
    if (auto t = as_integer(theirs)) {
      if (*t == *mine->number || (theirs[0] == '-' && (*t & 0xFFFFFFFFu) == *mine->number)) return {how, ""};
    }
  }
  return {Verdict::differs, attr + "=\"" + theirs + "\" vs \"" + mine->text + "\""};
}

struct Excuse {  // a whole line whose count cannot agree
  std::string trace, line;
  std::vector<std::uint16_t> count_ids;  // the baseline count is the sum of our counts of these ids
  std::string reason;
};

// TraceEvent shows an event's non-empty activity ids as ActivityID="..." and RelatedActivityID="..."
// (32 hex digits); it leaves empty ones out.
FieldCheck check_activity(const std::string& attr, const std::map<std::string, std::string>& attrs, const Guid& ours) {
  std::string mine = ours.to_string();
  mine.erase(std::remove(mine.begin(), mine.end(), '-'), mine.end());
  const auto it = attrs.find(attr);
  if (it == attrs.end()) {
    if (ours.is_zero()) return {Verdict::equal, ""};
    return {Verdict::differs, attr + " absent vs " + mine};
  }
  std::string theirs = it->second;
  theirs.erase(std::remove(theirs.begin(), theirs.end(), '-'), theirs.end());
  if (lower(theirs) == lower(mine)) return {Verdict::equal, ""};
  return {Verdict::differs, attr + "=\"" + it->second + "\" vs \"" + mine + "\""};
}

struct Summary {
  std::size_t events = 0, clr_events = 0, lines = 0, matched = 0, elements = 0, excused_lines = 0;
  std::map<Verdict, std::size_t> fields;
  std::vector<std::string> problems;
  std::vector<std::string> excuses;
};

std::string trace_stem(const std::string& file) { return file.substr(0, file.rfind('.')); }

// Decodes the four traces with `catalogs` (the first one is the CLR decoders under test, whose
// generated views `for_each_version` walks) and compares with TraceEvent's baselines.
// What two descriptions of one event disagree on; empty when they agree (Described::type aside).
std::string description_diff(const Described& a, const Described& b) {
  std::string diff;
  auto field = [&](bool same, const char* what) {
    if (!same) diff += std::string(diff.empty() ? "" : ", ") + what;
  };
  field(a.kind == b.kind, "kind");
  field(a.provider == b.provider && a.event == b.event && a.self_description == b.self_description, "descriptors");
  field(a.provider_name == b.provider_name && a.name == b.name && a.symbol == b.symbol, "names");
  field(a.consumed == b.consumed && a.trailing == b.trailing && a.undescribed == b.undescribed, "extent");
  field(a.kind != Described::Kind::malformed || a.error.message() == b.error.message(), "error");
  return diff.empty() ? diff : std::string(a.provider_name) + "/" + std::string(a.name) + ": " + diff;
}

template <class ForEachVersion>
Summary conformance(const std::string& shared, const std::vector<const Catalog*>& catalogs, ForEachVersion for_each_version) {
  // Lines whose count has a cause outside the trace (BACKGROUND.md section 5).
  const std::vector<Excuse> excuses = {
      {"eventpipe-dotnetcore3.0-win-x64-objver4", "Microsoft-Windows-DotNETRuntime/GC", {200, 201},
       "TraceEvent took this line's name from the manifest installed on the Windows machine (BACKGROUND 5), where "
       "IncreaseMemoryPressure (200) and DecreaseMemoryPressure (201) are both called \"GC\": its count is the sum "
       "of both; the values of its earliest event agree"},
  };

  // Views of the generated decoders, by (provider, id): they must consume every payload exactly.
  using Verify = bool (*)(Bytes, unsigned, unsigned, std::uint32_t&);
  std::map<std::pair<std::string, std::uint16_t>, Verify> views;
  for_each_version([&]<class E, class P>(unsigned) {
    views[{E::provider_guid.to_string(), E::id}] = [](Bytes payload, unsigned version, unsigned ps, std::uint32_t& trailing) {
      auto v = E::View::verify(payload, version, ps);
      if (!v) return false;
      trailing = v->trailing_bytes();
      return true;
    };
  });

  const Catalog& catalog = *catalogs.front();
  EventDescriber describer(catalogs);
  std::uint64_t described_apart = 0;  // events the checks below describe otherwise than a visit
  std::string first_apart;
  Summary total;
  for (const char* file : {"eventpipe-dotnetcore3.0-win-x64-objver4.nettrace", "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
                           "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
                           "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf"}) {
    CAPTURE(file);
    const std::string path = shared + "/traces/" + file;
    auto reader = nettrace::Reader::open_file(path);
    REQUIRE(reader);
    // The NetPerf file (.NET Core 2.1) is told apart by its content and read by the same reader.
    CHECK(((*reader)->info().format == 3) == std::string(file).ends_with(".netperf"));
    std::vector<Ours> ours;
    std::map<std::pair<std::string, std::uint16_t>, std::uint64_t> count_by_id;
    std::map<Described::Kind, std::uint64_t> kinds;
    Summary s;
    while (true) {
      auto next = (*reader)->next();
      REQUIRE(next);
      if (!*next) break;
      const EventRecord& r = **next;
      Ours o;
      Collector collect(o.fields);
      Described d = describer.describe(r, &collect);
      // Checking alone (no visitor: a fixed layout's length, the layout view's check, the
      // description's check) and a describer that has seen no event say the same.
      {
        const Described checked = describer.describe(r);
        const EventDescriber new_describer(catalogs);
        const Described fresh = new_describer.describe(r);
        if (auto diff = description_diff(d, checked); !diff.empty()) ++described_apart, first_apart = first_apart.empty() ? diff : first_apart;
        if (auto diff = description_diff(d, fresh); !diff.empty()) ++described_apart, first_apart = first_apart.empty() ? diff : first_apart;
        if (checked.type != d.type || d.type >= describer.types() || fresh.type != 0) ++described_apart;
      }
      ++s.events;
      ++kinds[d.kind];
      const bool clr = r.provider_name.rfind("Microsoft-Windows-DotNETRuntime", 0) == 0;
      if (d.kind != Described::Kind::decoded) {
        s.problems.push_back(std::string(file) + ": " + std::string(r.provider_name) + " event " + std::to_string(r.id) +
                             " v" + std::to_string(r.version) + " is " +
                             (d.kind == Described::Kind::unknown ? "unknown" : "malformed: " + d.error.message()));
        continue;
      }
      if (clr) {
        ++s.clr_events;
        auto view = views.find({r.provider_guid.to_string(), r.id});
        std::uint32_t trailing = 0;
        if (view == views.end() || !view->second(r.payload, r.version, r.pointer_size, trailing))
          s.problems.push_back(std::string(file) + ": no view accepts " + std::string(d.name));
        else if (trailing)
          s.problems.push_back(std::string(file) + ": " + std::string(d.name) + " leaves " + std::to_string(trailing) + " bytes");
      }
      o.provider = std::string(d.provider_name);
      o.name = d.name;
      o.guid = r.provider_guid;
      o.id = r.id;
      o.version = r.version;
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.4f", (*reader)->info().milliseconds(r.timestamp));
      o.ms = ms;
      o.tid = r.thread_id;
      o.activity = r.activity_id;
      o.related = r.related_activity_id;
      ++count_by_id[{o.provider, o.id}];
      ours.push_back(std::move(o));
    }
    CHECK(s.events == (*reader)->stats().events);
    // The whole file reconciles: every event is decoded, unknown or malformed, and none is malformed.
    CHECK(s.events == kinds[Described::Kind::decoded] + kinds[Described::Kind::unknown] + kinds[Described::Kind::malformed]);
    CHECK(kinds[Described::Kind::malformed] == 0);

    for (const BaselineLine& b : read_baseline(path + ".baseline.txt")) {
      ++s.lines;
      const Excuse* excuse = nullptr;
      for (const Excuse& e : excuses)
        if (e.trace == trace_stem(file) && e.line == b.name) excuse = &e;
      // Our events at the same time and thread, of the same provider: the one whose fields agree.
      std::string best_problem = "no event at MSec=" + b.attrs.at("MSec") + " TID=" + b.attrs.at("TID");
      const Ours* match = nullptr;
      std::map<Verdict, std::size_t> verdicts;
      std::vector<std::string> field_excuses;
      std::size_t elements = 0;
      for (const Ours& o : ours) {
        if (o.ms != b.attrs.at("MSec") || std::to_string(o.tid) != b.attrs.at("TID")) continue;
        if (b.name.rfind(o.provider + "/", 0) != 0) continue;
        // Fields only later versions of this event have (TraceEvent shows them with defaults).
        std::vector<std::string> newer;
        if (const ProviderDesc* p = catalog.provider(o.guid))
          for (const EventDesc& e : p->versions(o.id))
            if (e.version > o.version && e.payload)
              for (const FieldDesc& f : e.payload->fields) newer.emplace_back(f.name);
        std::string problem;
        std::map<Verdict, std::size_t> v;
        std::vector<std::string> ex;
        auto check = [&](const std::string& attr, const std::string& theirs, const Record& rec, std::size_t element, const std::string& where) {
          FieldCheck c = check_field(b.name, attr, theirs, rec, element, newer);
          ++v[c.verdict];
          if (c.verdict == Verdict::differs) problem += " " + where + c.detail + ";";
          if (c.verdict == Verdict::excused) ex.push_back(b.name + " " + attr + ": " + c.detail);
        };
        for (const auto& [attr, theirs] : b.attrs)
          if (!header_attribute(attr) && attr != "ActivityID" && attr != "RelatedActivityID")
            check(attr, theirs, o.fields, 0, "");
        for (const auto& [attr, guid] :
             {std::pair<std::string, Guid>{"ActivityID", o.activity}, {"RelatedActivityID", o.related}}) {
          FieldCheck c = check_activity(attr, b.attrs, guid);
          if (c.verdict == Verdict::equal && !b.attrs.count(attr)) continue;  // empty on both sides: nothing shown
          ++v[c.verdict];
          if (c.verdict == Verdict::differs) problem += " " + c.detail + ";";
        }
        // Nested elements: the struct array's elements, in order.
        std::size_t elems = 0;
        if (!b.children.empty()) {
          const std::vector<Record>* values = o.fields.arrays.empty() ? nullptr : &o.fields.arrays[0].second;
          if (!values || values->size() < b.children.size()) {
            problem += " struct array elements missing;";
          } else {
            for (std::size_t i = 0; i < b.children.size(); ++i, ++elems)
              for (const auto& [attr, theirs] : b.children[i].second)
                check(attr, theirs, (*values)[i], i, "element " + std::to_string(i) + " ");
          }
        }
        if (problem.empty()) {
          match = &o;
          verdicts = v;
          field_excuses = ex;
          elements = elems;
          break;
        }
        best_problem = o.name + ":" + problem;
      }
      if (!match) {
        s.problems.push_back(std::string(file) + ": " + b.name + ": " + best_problem);
        continue;
      }
      ++s.matched;
      s.elements += elements;
      for (const auto& [k, n] : verdicts) s.fields[k] += n;
      for (const std::string& e : field_excuses)
        if (std::find(s.excuses.begin(), s.excuses.end(), e) == s.excuses.end()) s.excuses.push_back(e);
      std::uint64_t count = count_by_id[{match->provider, match->id}];
      if (excuse && !excuse->count_ids.empty()) {
        count = 0;
        for (std::uint16_t id : excuse->count_ids) count += count_by_id[{match->provider, id}];
        ++s.excused_lines;
        s.excuses.push_back(b.name + " (count): " + excuse->reason);
      }
      if (count != b.count)
        s.problems.push_back(std::string(file) + ": " + b.name + ": count " + std::to_string(b.count) + " in the baseline, " +
                             std::to_string(count) + " here");
    }
    std::size_t fields = 0;
    for (const auto& [k, n] : s.fields) fields += n;
    MESSAGE(std::string(file) << ": " << s.events << " events = " << kinds[Described::Kind::decoded] << " decoded + "
                 << kinds[Described::Kind::unknown] << " unknown + " << kinds[Described::Kind::malformed] << " malformed ("
                 << s.clr_events << " of CLR providers, each decoded and consumed exactly by its generated view); "
                 << s.matched << "/" << s.lines << " baseline lines matched, "
                 << fields << " fields (" << s.elements << " struct elements)");
    total.events += s.events;
    total.clr_events += s.clr_events;
    total.lines += s.lines;
    total.matched += s.matched;
    total.elements += s.elements;
    total.excused_lines += s.excused_lines;
    for (const auto& [k, n] : s.fields) total.fields[k] += n;
    total.problems.insert(total.problems.end(), s.problems.begin(), s.problems.end());
    total.excuses.insert(total.excuses.end(), s.excuses.begin(), s.excuses.end());
  }
  INFO("first difference: " << first_apart);
  CHECK(described_apart == 0);
  CHECK(describer.types() > 0);
  return total;
}

void report(const Summary& total, const std::string& decoders) {
  auto n = [&](Verdict v) { return total.fields.count(v) ? total.fields.at(v) : 0; };
  std::size_t fields = 0;
  for (const auto& [k, c] : total.fields) fields += c;
  MESSAGE("conformance (" << decoders << "): " << total.events << " events decoded (" << total.clr_events << " CLR); "
                          << total.matched << " of " << total.lines << " baseline lines matched; " << fields
                          << " fields compared: " << n(Verdict::equal) << " equal, " << n(Verdict::renamed)
                          << " equal under TraceEvent's name, " << n(Verdict::named)
                          << " equal through TraceEvent's value names, " << n(Verdict::derived)
                          << " recomputed from our fields, " << n(Verdict::defaulted)
                          << " later-version fields at their default, " << n(Verdict::excused) << " excused; "
                          << total.excused_lines << " line count(s) excused");
  for (const std::string& e : total.excuses) MESSAGE("excused: " << e);
  for (const std::string& p : total.problems) FAIL_CHECK(p);
  CHECK(total.problems.empty());
  CHECK(total.matched == total.lines);
  CHECK(n(Verdict::differs) == 0);
}

}  // namespace

CLRETW_SHARED_CASE("conformance with TraceEvent on the real traces: decoders generated from ClrEtwAll.runtime-main.man") {
  const std::string shared = clretw::test::shared_dir_or_skip("../shared/traces is absent");
  if (shared.empty()) return;
  g_builtin = false;
  // The built-in catalog after runtime-main's: SampleProfiler, which no ClrEtwAll.man describes.
  report(conformance(shared, {&clretw::runtime_main::catalog(), &clretw::catalog()},
                     [](auto f) { clretw::runtime_main::for_each_event_version(f); }),
         "runtime-main");
}

CLRETW_SHARED_CASE("conformance with TraceEvent on the real traces: the built-in decoders, with no manifest at hand") {
  const std::string shared = clretw::test::shared_dir_or_skip("../shared/traces is absent");
  if (shared.empty()) return;
  g_builtin = true;
  const Summary s = conformance(shared, {&clretw::catalog()}, [](auto f) { clretw::for_each_event_version(f); });
  g_builtin = false;
  report(s, "built-in");
  // The built-in manifest names what the runtime's leaves unnamed (GC mechanisms, GlobalHeapHistory's
  // Reason, ReadyToRun): those fields compare as they are. Left: HeapStats Depth, which is not in any payload.
  CHECK(s.fields.at(Verdict::excused) == 1);
  CHECK(s.fields.at(Verdict::named) == 1);  // MethodFlags: TraceEvent strips the tier bits it shows apart
}
