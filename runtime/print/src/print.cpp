// The printing of clretw-dump and clretw-trace: EventPrinter's loop over a trace, with the stats
// table, the progress line, resolve's frame names and the manifests the trace carries.
#include "clretw/print.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#if defined(_WIN32)
#include <io.h>
#define CLRETW_ISATTY(fd) _isatty(fd)
#else
#include <unistd.h>
#define CLRETW_ISATTY(fd) isatty(fd)
#endif

#include "clretw/kernel_stacks.h"
#include "clretw/profile.h"
#include "clretw/text.h"

namespace clretw {

namespace {

// printf's formatting onto a stream's buffer (the stats table, progress, the profile's summary: a
// few lines per trace).
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void put(std::ostream& out, const char* format, ...) {
  char small[512];
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<std::size_t>(n) < sizeof small) {
    va_end(again);
    out.rdbuf()->sputn(small, n);
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::vsnprintf(big.data(), big.size(), format, again);
  va_end(again);
  out.rdbuf()->sputn(big.data(), n);
}

struct Counter {
  std::uint64_t count = 0;
  std::string versions;
};

// --stats counts events per (provider, name) with the versions seen. An event finds its counter
// by the describer's number for its type and its outcome (decoded, unknown, malformed), in a
// dense table; a row's names and its version text are made once, when the row is first met.
// Events the describer did not number (it stopped at EventDescriber::kMaxTypes) are found by
// (provider GUID, id, version, outcome) and their names in a hash table. Nothing is allocated
// per event.
class StatsTable {
 public:
  void count(const EventRecord& r, const Described& d) {
    const std::size_t index = std::size_t{d.type} * 3 + static_cast<std::uint8_t>(d.kind);
    if (d.type != kNoEventType && index < dense_.size() && dense_[index]) ++dense_[index]->count;
    else count_new(r, d);
  }
  // A row first met, or an event the describer did not number.
  void count_new(const EventRecord& r, const Described& d) {
    const auto kind = static_cast<std::uint8_t>(d.kind);
    if (d.type != kNoEventType) {
      const std::size_t index = std::size_t{d.type} * 3 + kind;
      if (index >= dense_.size()) dense_.resize(std::max(index + 1, dense_.size() * 2), nullptr);
      Counter*& c = dense_[index];
      if (!c) c = make_row(r, d).counter;
      ++c->count;
      return;
    }
    const Key key{r.provider_guid, r.id, r.version, kind};
    auto it = rows_.find(key);
    // The same key may be named anew later, when the trace's own manifest arrives.
    if (it == rows_.end() || it->second.provider != d.provider_name || it->second.name != d.name)
      it = rows_.insert_or_assign(key, make_row(r, d)).first;
    ++it->second.counter->count;
  }
  // A new describer numbers types anew (the trace's own manifests arrived).
  void forget_types() { dense_.clear(); }
  const std::map<std::pair<std::string, std::string>, Counter>& by_name() const { return by_name_; }

 private:
  struct Key {
    Guid guid;
    std::uint16_t id;
    std::uint8_t version, kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      std::uint64_t h = k.guid.data1 ^ (std::uint64_t{k.guid.data2} << 32) ^ (std::uint64_t{k.guid.data3} << 48);
      for (std::uint8_t b : k.guid.data4) h = h * 0x100000001B3ull ^ b;
      h ^= (std::uint64_t{k.id} << 16) ^ (std::uint64_t{k.version} << 8) ^ k.kind;
      return static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ull);
    }
  };
  struct Row {
    std::string provider, name;
    Counter* counter;
  };
  Row make_row(const EventRecord& r, const Described& d) {
    Row row{std::string(d.provider_name), std::string(d.name), nullptr};
    row.counter = &by_name_[{row.provider, row.name}];
    const std::string v = std::to_string(r.id) + " v" + std::to_string(r.version) +
                          (d.kind == Described::Kind::unknown     ? " unknown"
                           : d.kind == Described::Kind::malformed ? " malformed"
                                                                  : "");
    std::string& versions = row.counter->versions;
    if (versions.find(v) == std::string::npos) versions += (versions.empty() ? "" : ", ") + v;
    return row;
  }
  std::unordered_map<Key, Row, KeyHash> rows_;
  std::vector<Counter*> dense_;  // by type * 3 + outcome
  std::map<std::pair<std::string, std::string>, Counter> by_name_;  // (provider, name) -> count
};

class Progress {
 public:
  Progress(bool enabled, std::ostream& err) : enabled_(enabled), err_(err) {}
  // A file shows how far it is; a stream (size 0) its bytes, events and rate. The source is
  // asked where it is only when progress is shown.
  void update(const TraceSource& source, std::uint64_t events) {
    if (!enabled_) return;
    const std::uint64_t total = source.size();
    if (total != 0 && (++calls_ & 0x3FFF)) return;
    const std::uint64_t done = source.position();
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    if (total != 0) {
      put(err_, "\r  %5.1f%%  %llu events", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                   static_cast<unsigned long long>(events));
    } else {
      if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;
      const double seconds = std::chrono::duration<double>(now - start_).count();
      put(err_, "\r  %.1f MB  %llu events  %.0f events/s   ", static_cast<double>(done) / 1e6,
                   static_cast<unsigned long long>(events), seconds > 0 ? static_cast<double>(events) / seconds : 0.0);
    }
    last_ = now;
    shown_ = true;
  }
  void done() {
    if (shown_) put(err_, "\r%40s\r", "");
  }

 private:
  bool enabled_;
  std::ostream& err_;
  bool shown_ = false;
  std::uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point last_{}, start_{};
};

// The named stack of a printed event (--resolve), innermost first: "frames" beside the addresses.
void append_stack(const EventRecord& r, const Symbolizer& symbols, LineFormat format, std::string& line,
                  std::string& name) {
  const std::size_t n = r.stack_depth();
  if (n == 0) return;
  if (format == LineFormat::json) {
    if (line.empty() || line.back() != '}') return;
    line.pop_back();
    line += ",\"frames\":[";  // beside "stack", the addresses
  } else {
    line += "  frames: ";
  }
  for (std::size_t i = 0; i < n; ++i) {
    name.clear();
    symbols.append_name(symbols.resolve(r.process_id, r.stack_frame(i), r.timestamp), name);
    if (format == LineFormat::json) {
      if (i) line += ',';
      line += '"';
      append_json_escaped(line, name);
      line += '"';
    } else {
      if (i) line += " <- ";
      line += name;
    }
  }
  if (format == LineFormat::json) line += "]}";
}

// `chosen`: --filter or --id chose the samples. A hint never suggests what the user already gave.
// `kernel`: the samples were the kernel's (ETL), joined to their StackWalk events. `what`: what was
// profiled, "samples" (CPU samples) or "events" (others chosen).
void print_profile_summary(const ProfileSummary& s, const Symbolizer& symbols, bool chosen, const KernelStacks* kernel,
                           double interval_ms, const char* what, const char* tool, std::ostream& err) {
  auto pct = [&](std::uint64_t part) { return s.frames ? 100.0 * static_cast<double>(part) / static_cast<double>(s.frames) : 0.0; };
  const Symbolizer::Counts& c = symbols.counts();
  if (kernel) {
    const KernelStackCounts& k = kernel->counts();
    char stated[80] = "the trace states none";
    if (kernel->interval_ms() > 0 && kernel->interval_ms() == interval_ms) std::snprintf(stated, sizeof stated, "as the trace states");
    else if (kernel->interval_ms() > 0) std::snprintf(stated, sizeof stated, "the trace states %g ms", kernel->interval_ms());
    put(err,
        "%s: kernel samples: %llu, %llu with a stack, %llu without one left out (the kernel walks no stack for most "
        "samples of the idle process); %llu with their kernel-mode part alone, %llu parts never defined; "
        "sample interval %g ms (%s)\n",
        tool, static_cast<unsigned long long>(k.samples), static_cast<unsigned long long>(k.with_stack),
        static_cast<unsigned long long>(k.without_stack), static_cast<unsigned long long>(k.kernel_only),
        static_cast<unsigned long long>(k.undefined), interval_ms, stated);
  }
  if (s.samples == 0 && kernel && kernel->counts().samples)
    put(err, "%s: no kernel CPU sample of the trace has a stack: nothing to profile\n", tool);
  else if (s.samples == 0 && chosen)
    put(err, "%s: no event of the trace is one --filter or --id chose (among those the other options let through): "
             "nothing to profile\n", tool);
  else if (s.samples == 0)
    put(err,
        "%s: the trace has no CPU samples (Microsoft-DotNETCore-SampleProfiler's Thread/Sample, or the kernel's "
        "PerfInfo/Sample in ETL files); --filter or --id "
        "choose other events to profile, e.g. --filter GC/AllocationTick\n",
        tool);
  put(err,
      "%s: %llu %s on %llu threads (%llu without a stack), %llu distinct stacks; frames: %llu, "
      "%.1f%% named by a method's range, %.1f%% by an R2R entry point, %.1f%% in a module only, %.1f%% unmanaged; "
      "methods known: %llu jitted, %llu from rundown, %llu R2R entry points, %llu unloaded\n",
      tool, static_cast<unsigned long long>(s.samples), what, static_cast<unsigned long long>(s.threads),
      static_cast<unsigned long long>(s.without_stack), static_cast<unsigned long long>(s.unique_stacks),
      static_cast<unsigned long long>(s.frames), pct(s.method_frames), pct(s.r2r_frames), pct(s.module_frames),
      pct(s.unmanaged_frames), static_cast<unsigned long long>(c.jitted), static_cast<unsigned long long>(c.rundown),
      static_cast<unsigned long long>(c.r2r), static_cast<unsigned long long>(c.unloads));
}

// What the source says of the manifests it carried since `seen`: a catalog to decode with, or a
// message. True when the catalogs changed.
bool take_carried(const TraceSource& source, std::size_t& seen, std::vector<const Catalog*>& carried,
                  const std::string& label, const char* tool, std::ostream& err) {
  bool changed = false;
  const std::vector<CarriedManifest>& all = source.carried_manifests();
  for (; seen < all.size(); ++seen) {
    const CarriedManifest& m = all[seen];
    const std::string guid = m.provider_guid.to_string();
    switch (m.status) {
      case CarriedManifest::Status::loaded:
        carried.push_back(m.catalog.get());
        changed = true;
        break;
      case CarriedManifest::Status::failed:
        err << tool << ": " << label << ": the manifest of provider " << guid
            << " in the trace does not load; its events stay unknown\n" << m.diagnostics;
        break;
      case CarriedManifest::Status::no_loader:
        err << tool << ": " << label << ": the manifest of provider "
            << (m.provider_name.empty() ? guid : m.provider_name + " (" + guid + ")")
            << " in the trace needs clretw's generator to load, which this build leaves out; its events stay unknown\n";
        break;
    }
  }
  return changed;
}

// A filter that chose no event of a trace: a warning, unless the catalogs know events it chooses
// (the trace then has none of them, which the output shows), with the names nearest to it among
// the catalogs' and the trace's.
void warn_unmatched(const EventPattern& pattern, const std::vector<const Catalog*>& catalogs,
                    const std::vector<std::string>& seen, const std::string& label, const char* tool, std::ostream& err) {
  bool qualified = false;
  std::vector<std::string> names = seen;
  for (const Catalog* c : catalogs)
    for (const ProviderDesc* p : c->providers) {
      qualified |= pattern.qualifies(p->name);
      for (const KeywordDesc& k : p->keywords) names.emplace_back(k.name);
      for (const EventDesc& e : p->events) {
        if (pattern.selects(*p, e)) return;
        names.emplace_back(e.name);
        names.emplace_back(e.symbol);
        names.emplace_back(without_version_suffix(e.symbol));
      }
    }
  const std::vector<std::string> near = nearest_names(qualified ? pattern.unqualified() : pattern.text(), names);
  std::string list;
  for (const std::string& n : near) list += (list.empty() ? "" : ", ") + n;
  put(err, "%s: --filter '%s' matches no event the decoders know, nor any event of %s%s%s\n", tool, pattern.text().c_str(),
      label.c_str(), list.empty() ? " (names are like GC/Start, GCStart, GC/*, a keyword like GC, or PROVIDER:NAME)" : "; nearest: ",
      list.c_str());
}

}  // namespace

const char* output_format_name(OutputFormat f) noexcept {
  switch (f) {
    case OutputFormat::text: return "text";
    case OutputFormat::json: return "json";
    case OutputFormat::csv: return "csv";
    case OutputFormat::folded: return "folded";
    case OutputFormat::speedscope: return "speedscope";
    case OutputFormat::chromium: return "chromium";
    case OutputFormat::html: return "html";
  }
  return "?";
}

std::optional<OutputFormat> parse_output_format(std::string_view name) noexcept {
  for (OutputFormat f : {OutputFormat::text, OutputFormat::json, OutputFormat::csv, OutputFormat::folded, OutputFormat::speedscope,
                         OutputFormat::chromium, OutputFormat::html})
    if (name == output_format_name(f)) return f;
  return std::nullopt;
}

EventPrinter::EventPrinter(PrintOptions options, std::vector<const Catalog*> catalogs, std::ostream& out, std::ostream& err)
    : o_(std::move(options)), catalogs_(std::move(catalogs)), out_(out), err_(err) {
  for (const std::string& f : o_.filters) patterns_.emplace_back(f);
}

int EventPrinter::finish() {
  if (!o_.report || reports_.empty()) return 0;
  ReportOptions r;
  r.kinds = o_.report;
  r.format = o_.format == OutputFormat::json  ? ReportFormat::json
             : o_.format == OutputFormat::csv ? ReportFormat::csv
             : o_.format == OutputFormat::html ? ReportFormat::html
                                               : ReportFormat::text;
  if (o_.top) r.top = o_.top;
  try {
    write_report(out_, reports_, r);
  } catch (const std::invalid_argument& e) {
    err_ << o_.tool << ": " << e.what() << "\n";
    return 2;
  }
  out_.flush();
  reports_.clear();
  return 0;
}

Symbolizer read_methods(TraceSource& source) {
  Symbolizer symbols;
  for (;;) {
    auto next = source.next();
    if (!next || !*next) break;
    symbols.observe(**next);
  }
  return symbols;
}

int EventPrinter::print_file(const std::string& path, const OpenOptions& given) {
  OpenOptions oo = given;
  if (o_.report) {  // the model follows each process in time order; it needs the runtime's events only
    oo.sorted = true;
    oo.keep = &RuntimeModel::wants;
  }
  auto opened = open_trace(path, oo);
  if (!opened) {
    first_ = false;  // (a trace that cannot be opened takes the first place all the same)
    err_ << o_.tool << ": " << path << ": " << opened.error().message() << "\n";
    return 2;
  }
  file_name_ = path.substr(path.find_last_of("/\\") + 1);
  struct Forget {
    std::string& name;
    std::map<std::pair<std::uint64_t, std::int64_t>, std::vector<std::uint8_t>>& stacks;
    ~Forget() {
      name.clear();
      stacks.clear();
    }
  } forget{file_name_, joined_stacks_};
  // (A pipe or standard input is read once: resolve then names frames by what it has seen so
  // far, as a live session does.)
  if (!o_.resolve || o_.stats || o_.quiet || o_.report || !seekable_path(path)) return print(**opened, path);
  // resolve: the method events of the whole file first (rundown comes at its end), then the
  // events with their stacks named as of each event's time. Damage shows in the second pass.
  // An ETL file's kernel CPU samples: their stacks, which the kernel logs as StackWalk events after them,
  // joined in the same pass, so that each sample's line names its frames.
  Symbolizer symbols;
  KernelStacks kernel;
  for (;;) {
    auto next = (*opened)->next();
    if (!next || !*next) break;
    const EventRecord& r = **next;
    symbols.observe(r);
    kernel.observe(r);
    if (is_kernel_cpu_sample(r) && r.stack.empty()) kernel.add(r, 0.0);
  }
  if (!kernel.empty())
    kernel.finish([this](const EventRecord& s, double, std::uint64_t) {
      joined_stacks_[{s.thread_id, s.timestamp}].assign(s.stack.begin(), s.stack.end());
    });
  opened = open_trace(path, oo);
  if (!opened) {
    first_ = false;
    err_ << o_.tool << ": " << path << ": " << opened.error().message() << "\n";
    return 2;
  }
  return print(**opened, path, &symbols);
}

int EventPrinter::print(TraceSource& reader, const std::string& path, const Symbolizer* symbols) {
  const PrintOptions& o = o_;
  const char* tool = o.tool.c_str();
  std::ostream& out = out_;
  const LineFormat format = o.line_format();
  const bool reporting = o.report != 0;
  const bool profiling = o.profile() && !o.stats && !reporting;
  const bool naming = profiling || reporting || (o.resolve && !o.stats && !o.quiet);
  RuntimeModel model;
  bool weighted = false;      // a profile of allocations: weights are bytes
  bool only_samples = true;   // every profiled event a CPU sample: weights are samples, else events
  Symbolizer own;  // learns as the trace goes, unless `symbols` has seen it all
  const Symbolizer& sym = symbols ? *symbols : own;
  StackProfile profile(o.sample_interval_ms > 0 ? o.sample_interval_ms : 1.0, o.format == OutputFormat::chromium);
  // ETL: the kernel's samples (and, once one is chosen, every chosen event: time order) wait for
  // the StackWalk events that follow them.
  KernelStacks kernel_stacks;
  const bool user_chosen = !o.filters.empty() || !o.ids.empty();
  std::string frame_name;
  std::vector<const Catalog*> carried;  // the catalogs of the manifests the trace carries
  std::size_t carried_seen = 0;
  auto describer = std::make_unique<EventDescriber>(catalogs_);

  StatsTable table;
  Described d;      // reused for every event, as is the line
  std::uint64_t in_file = 0, shown = 0, decoded = 0, unknown = 0, malformed = 0, trailing = 0, undescribed = 0, stacks = 0;
  Progress progress(o.progress && CLRETW_ISATTY(2), err_);
  // The lines, written out some 64 KiB at a time (each line at once when live).
  std::string line;
  constexpr std::size_t kWriteAt = 64 * 1024;
  line.reserve(kWriteAt + 4096);
  auto write_lines = [&] {
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    line.clear();
  };
  // filters: one of the patterns chooses the event. Every pattern is asked once per event type
  // (the describer's number), so that each one's hits are known for the warning at the end.
  std::vector<std::uint8_t> chosen;  // by type: 0 not asked yet, 1 left out, 2 chosen
  std::vector<bool> hit(patterns_.size(), false);
  std::vector<std::string> seen_names;  // of the types asked about: the nearest names of a filter that chose none
  auto choose = [&](const Described& described) {
    bool in = false;
    for (std::size_t i = 0; i < patterns_.size(); ++i)
      if (described.event && described.provider ? patterns_[i].selects(*described.provider, *described.event)
                                                : patterns_[i].names_event(described.provider_name, described.name, described.symbol)) {
        hit[i] = true;
        in = true;
      }
    return in;
  };
  auto filtered_in = [&](const Described& described) {
    if (described.type == kNoEventType) return choose(described);
    if (described.type >= chosen.size()) chosen.resize(std::size_t{described.type} + 1, 0);
    std::uint8_t& c = chosen[described.type];
    if (c == 0) {
      c = choose(described) ? 2 : 1;
      seen_names.emplace_back(described.name);
    }
    return c == 2;
  };
  if (format == LineFormat::csv && first_ && !o.stats && !reporting) out << csv_header() << "\n";
  first_ = false;
  int status = 0;
  // The event's time, only where a range or the output needs it.
  const bool ranged = o.from != PrintOptions{}.from || o.to != PrintOptions{}.to;
  const bool need_ms = ranged || profiling || reporting || !(o.stats || o.quiet);
  std::string damage;
  for (;;) {
    auto next = reader.next();
    if (!next) {
      progress.done();
      write_lines();
      out.flush();
      err_ << tool << ": " << path << ": " << next.error().message() << "\n";
      damage = next.error().message();
      status = 1;
      break;
    }
    const EventRecord* r = *next;
    if (!r) break;
    ++in_file;
    if (reader.carried_count() != carried_seen &&
        take_carried(reader, carried_seen, carried, path, tool, err_)) {  // they come after the given catalogs
      std::vector<const Catalog*> all = catalogs_;
      all.insert(all.end(), carried.begin(), carried.end());
      describer = std::make_unique<EventDescriber>(std::move(all));
      table.forget_types();
      chosen.clear();
    }
    progress.update(reader, in_file);
    if (naming && !symbols) own.observe(*r);  // every method event, whatever the filters
    if (profiling) kernel_stacks.observe(*r);  // every stack event, whatever the filters
    if (reporting) model.observe_keywords(*r);  // which keywords were recorded, whatever the filters
    const double ms = need_ms ? reader.milliseconds(r->timestamp) : 0.0;
    if (ranged && (ms < o.from || ms > o.to)) continue;
    if (o.level >= 0 && r->level > o.level) continue;
    if (o.keywords && !(r->keywords & o.keywords)) continue;
    if (!o.ids.empty() && std::find(o.ids.begin(), o.ids.end(), r->id) == o.ids.end()) continue;
    if (reporting) {
      if (!o.filters.empty()) {
        describer->describe(*r, d);
        if (!filtered_in(d)) continue;
      }
      ++shown;
      model.observe(*r, ms);
      if (o.limit && shown >= o.limit) break;
      continue;
    }
    if (profiling) {
      // The samples: CPU samples, or with filters or ids the events those choose (allocation
      // ticks, exceptions...), stack or not.
      if (!o.filters.empty()) {
        describer->describe(*r, d);
        if (!filtered_in(d)) continue;
      } else if (o.ids.empty() && !is_cpu_sample(*r) && !is_kernel_cpu_sample(*r)) {
        continue;
      }
      ++shown;
      // Allocations weigh their bytes (--top, folded); other events one each.
      const std::optional<double> bytes = allocation_bytes(*r);
      weighted |= bytes.has_value();
      only_samples &= is_cpu_sample(*r) || is_kernel_cpu_sample(*r);
      const std::uint64_t weight = bytes ? static_cast<std::uint64_t>(*bytes + 0.5) : 1;
      if (is_kernel_event(*r) || (user_chosen && !kernel_stacks.empty())) kernel_stacks.add(*r, ms, weight);
      else profile.add(*r, ms, sym, weight);
      if (o.limit && shown >= o.limit) break;
      continue;
    }
    const std::size_t line_start = line.size();
    if (o.stats || o.quiet) describer->describe(*r, d);
    else format_event(*r, *describer, ms, format, line, &d);
    if (!o.filters.empty() && !filtered_in(d)) {
      line.resize(line_start);
      continue;
    }
    ++shown;
    stacks += !r->stack.empty();
    switch (d.kind) {
      case Described::Kind::decoded: ++decoded; break;
      case Described::Kind::unknown: ++unknown; break;
      case Described::Kind::malformed: ++malformed; break;
    }
    if (d.kind == Described::Kind::decoded && d.undescribed) ++undescribed;
    else if (d.kind == Described::Kind::decoded && d.trailing) ++trailing;
    if (o.stats) {
      table.count(*r, d);
    } else if (!o.quiet) {
      if (o.resolve) {
        const EventRecord* named = &*r;
        EventRecord joined;
        if (r->stack.empty() && !joined_stacks_.empty() && is_kernel_cpu_sample(*r)) {
          if (auto it = joined_stacks_.find({r->thread_id, r->timestamp}); it != joined_stacks_.end()) {
            joined = *r;
            joined.stack = Bytes(it->second.data(), it->second.size());
            joined.stack_pointer_size = 8;
            named = &joined;
          }
        }
        append_stack(*named, sym, format, line, frame_name);
      }
      line.push_back('\n');
      if (o.live) {
        write_lines();
        out.flush();
      } else if (line.size() >= kWriteAt) {
        write_lines();
      }
    }
    if (o.limit && shown >= o.limit) break;
  }
  write_lines();
  progress.done();
  if (!(o.limit && shown >= o.limit)) {  // (when --limit ended the reading, a pattern may choose events later on)
    std::vector<const Catalog*> all = catalogs_;
    all.insert(all.end(), carried.begin(), carried.end());
    for (std::size_t i = 0; i < patterns_.size(); ++i)
      if (!hit[i]) warn_unmatched(patterns_[i], all, seen_names, path, tool, err_);
  }
  if (reporting) {
    model.finish(sym);
    reports_.push_back({!file_name_.empty() ? file_name_ : path, std::move(model), std::move(damage)});
  }
  if (profiling) {
    // The kernel's samples unless the trace has EventPipe's sample profiler (the default choice).
    const bool kernel = !kernel_stacks.empty() && (user_chosen || profile.summary().samples == 0);
    if (kernel) {
      if (o.sample_interval_ms <= 0 && kernel_stacks.interval_ms() > 0) profile.set_sample_interval(kernel_stacks.interval_ms());
      kernel_stacks.finish(profile, sym);
    }
    profile.finish(sym);
    // What the weights count, named in the table's header and the summary line.
    const char* unit = weighted ? "bytes" : only_samples ? "samples" : "events";
    if (o.top)
      profile.write_top(out, o.top, unit, o.top_inclusive, weighted ? "bytes allocated, estimated from the allocation events" : "");
    else if (o.format == OutputFormat::folded) profile.write_folded(out);
    else if (o.format == OutputFormat::chromium) profile.write_chromium(out);
    else profile.write_speedscope(out, !o.trace_name.empty() ? o.trace_name : !file_name_.empty() ? file_name_ : path, tool);
    out.flush();
    if (!o.quiet)
      print_profile_summary(profile.summary(), sym, user_chosen, kernel ? &kernel_stacks : nullptr, profile.sample_interval(),
                            only_samples ? "samples" : "events", tool, err_);
  }
  if (o.stats) {
    const SourceCounts s = reader.counts();
    put(out, "%s: %s, %llu bytes\n", path.c_str(), reader.summary().c_str(), static_cast<unsigned long long>(reader.position()));
    put(out, "%10s  %s\n", "count", "provider/event (id, version)");
    for (const auto& [names, c] : table.by_name())
      put(out, "%10llu  %s/%s (%s)\n", static_cast<unsigned long long>(c.count), names.first.c_str(), names.second.c_str(),
          c.versions.c_str());
    put(out, "events: %llu in file%s, %llu counted = %llu decoded + %llu unknown + %llu malformed\n",
        static_cast<unsigned long long>(in_file), status ? " (before the damage)" : "", static_cast<unsigned long long>(shown),
        static_cast<unsigned long long>(decoded), static_cast<unsigned long long>(unknown),
        static_cast<unsigned long long>(malformed));
    put(out,
        "lost events: %llu; decoded with trailing bytes (newer versions): %llu; payloads the trace's metadata "
        "lists no fields for: %llu; events with a stack: %llu; sequence points: %llu\n",
        static_cast<unsigned long long>(s.lost_events), static_cast<unsigned long long>(trailing),
        static_cast<unsigned long long>(undescribed), static_cast<unsigned long long>(stacks),
        static_cast<unsigned long long>(s.sequence_points));
  }
  return status;
}

}  // namespace clretw
