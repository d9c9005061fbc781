#include "common/event_printer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#if defined(_WIN32)
#include <io.h>
#define CLRETW_ISATTY(fd) _isatty(fd)
#else
#include <unistd.h>
#define CLRETW_ISATTY(fd) isatty(fd)
#endif

#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/profile.h"

namespace clretw::tools {

namespace {

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
  explicit Progress(bool enabled) : enabled_(enabled) {}
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
      std::fprintf(stderr, "\r  %5.1f%%  %llu events", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                   static_cast<unsigned long long>(events));
    } else {
      if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;
      const double seconds = std::chrono::duration<double>(now - start_).count();
      std::fprintf(stderr, "\r  %.1f MB  %llu events  %.0f events/s   ", static_cast<double>(done) / 1e6,
                   static_cast<unsigned long long>(events), seconds > 0 ? static_cast<double>(events) / seconds : 0.0);
    }
    last_ = now;
    shown_ = true;
  }
  void done() {
    if (shown_) std::fprintf(stderr, "\r%40s\r", "");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point last_{}, start_{};
};

// EventSource providers logging to ETW write their manifest into the trace: events with id 0xFFFE
// whose payload is an envelope (format 1, major and minor version, magic 0x5B, chunk count, chunk
// number) and a chunk of the manifest's XML. Once every chunk of a provider's manifest has come, it
// is loaded through the generator's front end, and the provider's later events decode with it.
class TraceManifests {
 public:
  // True when `r` completed a manifest that loaded (the catalogs changed). Asked of every event:
  // the test of the id stays inline, the rest is take()'s.
  bool offer(const EventRecord& r, const std::string& label, const char* tool) {
    constexpr std::uint16_t kManifestEvent = 0xFFFE;
    return r.id == kManifestEvent && take(r, label, tool);
  }
  const std::vector<const Catalog*>& catalogs() const noexcept { return catalogs_; }

 private:
  bool take(const EventRecord& r, const std::string& label, const char* tool) {
    const Bytes p = r.payload;
    if (p.size() < 8 || p[0] != 1 || p[3] != 0x5B) return false;
    const std::string key = r.provider_guid.to_string();
    if (done_.count(key)) return false;
    const auto total = load_le<std::uint16_t>(p.data() + 4), chunk = load_le<std::uint16_t>(p.data() + 6);
    if (total == 0 || chunk >= total) return false;
    Pending& m = pending_[key];
    if (m.chunks.size() != total) m = Pending{std::vector<std::string>(total), std::vector<bool>(total), 0};
    if (!m.have[chunk]) {
      m.have[chunk] = true;
      ++m.count;
    }
    m.chunks[chunk].assign(reinterpret_cast<const char*>(p.data() + 8), p.size() - 8);
    if (m.count != total) return false;
    std::string xml;
    for (const std::string& c : m.chunks) xml += c;
    pending_.erase(key);
    done_.insert(key);
    gen::Diagnostics diags;
    gen::FrontEndOptions fo;
    fo.fixups = gen::FrontEndOptions::Fixups::none;
    auto l = gen::load_text(std::move(xml), "the manifest of provider " + key + " in the trace", fo, diags);
    if (!l || diags.error_count() > 0 || !l->schema) {
      std::cerr << tool << ": " << label << ": the manifest of provider " << key
                << " in the trace does not load; its events stay unknown\n" << gen::format_gcc(diags);
      return false;
    }
    catalogs_.push_back(&l->schema->catalog());
    loaded_.push_back(std::move(*l));
    return true;
  }

  struct Pending {
    std::vector<std::string> chunks;
    std::vector<bool> have;
    std::size_t count = 0;
  };
  std::map<std::string, Pending> pending_;
  std::set<std::string> done_;
  std::vector<gen::LoadedManifest> loaded_;
  std::vector<const Catalog*> catalogs_;
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

void print_profile_summary(const ProfileSummary& s, const Symbolizer& symbols, const char* tool) {
  auto pct = [&](std::uint64_t part) { return s.frames ? 100.0 * static_cast<double>(part) / static_cast<double>(s.frames) : 0.0; };
  const Symbolizer::Counts& c = symbols.counts();
  if (s.samples == 0)
    std::fprintf(stderr,
                 "%s: the trace has no CPU samples (Microsoft-DotNETCore-SampleProfiler's Thread/Sample); --filter or --id "
                 "choose other events to profile, e.g. --filter '*/GC/AllocationTick'\n",
                 tool);
  std::fprintf(stderr,
               "%s: %llu samples on %llu threads (%llu without a stack), %llu distinct stacks; frames: %llu, "
               "%.1f%% named by a method's range, %.1f%% by an R2R entry point, %.1f%% in a module only, %.1f%% unmanaged; "
               "methods known: %llu jitted, %llu from rundown, %llu R2R entry points, %llu unloaded\n",
               tool, static_cast<unsigned long long>(s.samples), static_cast<unsigned long long>(s.threads),
               static_cast<unsigned long long>(s.without_stack), static_cast<unsigned long long>(s.unique_stacks),
               static_cast<unsigned long long>(s.frames), pct(s.method_frames), pct(s.r2r_frames), pct(s.module_frames),
               pct(s.unmanaged_frames), static_cast<unsigned long long>(c.jitted), static_cast<unsigned long long>(c.rundown),
               static_cast<unsigned long long>(c.r2r), static_cast<unsigned long long>(c.unloads));
}

}  // namespace

int print_events(TraceSource& reader, const std::string& path, const PrintOptions& o,
                 const std::vector<const Catalog*>& catalogs, bool first, const char* tool, const Symbolizer* symbols) {
  const LineFormat format = o.line_format();
  const bool profiling = o.profile() && !o.stats;
  const bool naming = profiling || (o.resolve && !o.stats && !o.quiet);
  Symbolizer own;  // learns as the trace goes, unless `symbols` has seen it all
  const Symbolizer& sym = symbols ? *symbols : own;
  StackProfile profile(o.sample_interval_ms);
  std::string frame_name;
  TraceManifests in_trace;
  auto describer = std::make_unique<EventDescriber>(catalogs);

  StatsTable table;
  Described d;      // reused for every event, as are the line and the filter key
  std::string key;
  std::uint64_t in_file = 0, shown = 0, decoded = 0, unknown = 0, malformed = 0, trailing = 0, undescribed = 0, stacks = 0;
  Progress progress(!o.no_progress && CLRETW_ISATTY(2));
  // The lines, written to stdout some 64 KiB at a time (each line at once under --live).
  std::string line;
  constexpr std::size_t kWriteAt = 64 * 1024;
  line.reserve(kWriteAt + 4096);
  auto write_lines = [&] {
    std::cout.write(line.data(), static_cast<std::streamsize>(line.size()));
    line.clear();
  };
  // --filter: "Provider/Name" matches one of the globs.
  auto filtered_in = [&](const Described& described) {
    key.assign(described.provider_name);
    key += '/';
    key += described.name;
    for (const std::string& f : o.filters)
      if (glob_match(f, key)) return true;
    return false;
  };
  if (format == LineFormat::csv && first && !o.stats) std::cout << csv_header() << "\n";
  int status = 0;
  // The event's time, only where a range or the output needs it.
  const bool ranged = o.from != PrintOptions{}.from || o.to != PrintOptions{}.to;
  const bool need_ms = ranged || profiling || !(o.stats || o.quiet);
  for (;;) {
    auto next = reader.next();
    if (!next) {
      progress.done();
      write_lines();
      std::cout.flush();
      std::cerr << tool << ": " << path << ": " << next.error().message() << "\n";
      status = 1;
      break;
    }
    const EventRecord* r = *next;
    if (!r) break;
    ++in_file;
    if (in_trace.offer(*r, path, tool)) {  // the trace's own manifests come after the given catalogs
      std::vector<const Catalog*> all = catalogs;
      all.insert(all.end(), in_trace.catalogs().begin(), in_trace.catalogs().end());
      describer = std::make_unique<EventDescriber>(std::move(all));
      table.forget_types();
    }
    progress.update(reader, in_file);
    if (naming && !symbols) own.observe(*r);  // every method event, whatever the filters
    const double ms = need_ms ? reader.milliseconds(r->timestamp) : 0.0;
    if (ranged && (ms < o.from || ms > o.to)) continue;
    if (o.level >= 0 && r->level > o.level) continue;
    if (o.keywords && !(r->keywords & o.keywords)) continue;
    if (!o.ids.empty() && std::find(o.ids.begin(), o.ids.end(), r->id) == o.ids.end()) continue;
    if (profiling) {
      // The samples: CPU samples, or with --filter or --id the events those choose (allocation
      // ticks, exceptions...), stack or not.
      if (!o.filters.empty()) {
        describer->describe(*r, d);
        if (!filtered_in(d)) continue;
      } else if (o.ids.empty() && !is_cpu_sample(*r)) {
        continue;
      }
      ++shown;
      profile.add(*r, ms, sym);
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
      if (o.resolve) append_stack(*r, sym, format, line, frame_name);
      line.push_back('\n');
      if (o.live) {
        write_lines();
        std::cout.flush();
      } else if (line.size() >= kWriteAt) {
        write_lines();
      }
    }
    if (o.limit && shown >= o.limit) break;
  }
  write_lines();
  progress.done();
  if (profiling) {
    profile.finish(sym);
    if (o.top) profile.write_top(std::cout, o.top);
    else if (o.format == "folded") profile.write_folded(std::cout);
    else profile.write_speedscope(std::cout, o.trace_name.empty() ? path : o.trace_name, tool);
    std::cout.flush();
    if (!o.quiet) print_profile_summary(profile.summary(), sym, tool);
  }
  if (o.stats) {
    const SourceCounts s = reader.counts();
    std::printf("%s: %s, %llu bytes\n", path.c_str(), reader.summary().c_str(), static_cast<unsigned long long>(reader.position()));
    std::printf("%10s  %s\n", "count", "provider/event (id, version)");
    for (const auto& [names, c] : table.by_name())
      std::printf("%10llu  %s/%s (%s)\n", static_cast<unsigned long long>(c.count), names.first.c_str(), names.second.c_str(),
                  c.versions.c_str());
    std::printf("events: %llu in file%s, %llu counted = %llu decoded + %llu unknown + %llu malformed\n",
                static_cast<unsigned long long>(in_file), status ? " (before the damage)" : "",
                static_cast<unsigned long long>(shown), static_cast<unsigned long long>(decoded),
                static_cast<unsigned long long>(unknown), static_cast<unsigned long long>(malformed));
    std::printf("lost events: %llu; decoded with trailing bytes (newer versions): %llu; payloads the trace's metadata "
                "lists no fields for: %llu; events with a stack: %llu; sequence points: %llu\n",
                static_cast<unsigned long long>(s.lost_events), static_cast<unsigned long long>(trailing),
                static_cast<unsigned long long>(undescribed),
                static_cast<unsigned long long>(stacks), static_cast<unsigned long long>(s.sequence_points));
  }
  return status;
}


void add_print_options(CLI::App& app, PrintOptions& o) {
  app.add_option("-f,--format", o.format,
                 "Output: text (default), json (one object per line) or csv; or the sampled stacks as folded\n"
                 "(one line per distinct stack per thread, 'Thread (tid);root;...;leaf count', for flamegraph.pl\n"
                 "and inferno) or speedscope (speedscope.app's JSON, one profile per thread), frames named from\n"
                 "the trace's method events (see --top)")
      ->check(CLI::IsMember({"text", "json", "csv", "folded", "speedscope"}));
  app.add_option("--top", o.top,
                 "Print the N methods with the most exclusive samples, with inclusive samples, instead of events.\n"
                 "Samples are the CPU samples (EventPipe's sample profiler) unless --filter or --id choose other\n"
                 "events (e.g. --filter '*/GC/AllocationTick' for allocation stacks)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--resolve", o.resolve,
               "Text and JSON: print each event's stack frames by name, innermost first ('frames', beside the\n"
               "addresses in 'stack'); a file is read twice: first for its method events, rundown included");
  app.add_option("--sample-interval", o.sample_interval_ms,
                 "Milliseconds one sample stands for in speedscope's weights (EventPipe's default: 1)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--filter", o.filters, "Only events whose Provider/Name matches this glob, e.g. '*/GC/*' (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--id", o.ids, "Only events with this id, 0 to 65535 (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::Range(0, 65535));
  app.add_option_function<std::string>(
         "--keywords",
         [&o](const std::string& text) {
           auto mask = gen::parse_number(text);
           if (!mask || !*mask) throw CLI::ValidationError("--keywords", "'" + text + "' is not a non-zero keyword mask (e.g. 0x1 or 1)");
           o.keywords = *mask;
         },
         "Only events with any of these keyword bits (e.g. 0x1)");
  app.add_option("--level", o.level, "Only events of this level or more severe (5 = verbose ... 1 = critical)")
      ->check(CLI::Range(0, 255));
  app.add_option("--from", o.from, "Only events at or after this time (ms since the trace start)");
  app.add_option("--to", o.to, "Only events at or before this time (ms since the trace start)");
  app.add_flag("--stats", o.stats, "Print counts per provider/event, lost, unknown and malformed events instead of events");
  app.add_option("--limit", o.limit, "Stop after this many events (per trace); 0: no limit")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-progress", o.no_progress, "Do not show progress on stderr (shown only when stderr is a terminal)");
}

void check_print_options(const CLI::App& app, const PrintOptions& o) {
  if (app.count("--from") && app.count("--to") && o.from > o.to)
    throw CLI::ValidationError("--from", std::to_string(o.from) + " is after --to " + std::to_string(o.to));
  for (const std::string& f : o.filters)
    if (f.empty()) throw CLI::ValidationError("--filter", "an empty pattern matches no event");
  if (o.stats && o.profile())
    throw CLI::ValidationError("--stats", "counts events; it does not combine with --top or --format " + o.format);
  if (o.top && app.count("--format") && o.format != "text")
    throw CLI::ValidationError("--top", "prints a table; it does not combine with --format " + o.format);
  if (o.resolve && (o.format == "csv" || o.profile()))
    throw CLI::ValidationError("--resolve", "names the stacks of text and JSON lines; --format " + o.format +
                                                " is not one of them" + (o.profile() ? " (profiles are always named)" : ""));
}

}  // namespace clretw::tools
