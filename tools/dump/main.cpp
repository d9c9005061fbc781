// clretw-dump: decode .nettrace files to text, JSON or CSV, or count their events.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <io.h>
#define CLRETW_ISATTY(fd) _isatty(fd)
#else
#include <unistd.h>
#define CLRETW_ISATTY(fd) isatty(fd)
#endif

#include "clretw/describe.h"
#include "clretw/events.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/nettrace.h"
#include "common/guarded_main.h"

namespace {

using namespace clretw;

struct Options {
  std::vector<std::string> traces;
  std::string format = "text";
  std::vector<std::string> filters;
  std::vector<std::uint32_t> ids;
  std::uint64_t keywords = 0;
  int level = -1;
  double from = -1e300, to = 1e300;
  bool stats = false, sorted = false, no_progress = false;
  std::vector<std::string> manifests;
  std::uint64_t limit = 0;
};


// "0x1F" or "31"; nullopt when not a number that fits 64 bits.
std::optional<std::uint64_t> parse_mask(const std::string& text) { return gen::parse_number(text); }

struct Counter {
  std::uint64_t count = 0;
  std::string versions;
};

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void update(std::uint64_t done, std::uint64_t total, std::uint64_t events) {
    if (!enabled_ || total == 0 || (++calls_ & 0x3FFF)) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    std::fprintf(stderr, "\r  %5.1f%%  %llu events", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                 static_cast<unsigned long long>(events));
    shown_ = true;
  }
  void done() {
    if (shown_) std::fprintf(stderr, "\r%40s\r", "");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

// Returns 0 (read to the end), 1 (damaged: events before the damage were shown) or 2 (cannot open).
int dump(const std::string& path, const Options& o, const EventDescriber& describer, LineFormat format, bool first) {
  nettrace::ReaderOptions ro;
  ro.sorted = o.sorted;
  auto opened = nettrace::Reader::open_file(path, ro);
  if (!opened) {
    std::cerr << "clretw-dump: " << path << ": " << opened.error().message() << "\n";
    return 2;
  }
  nettrace::Reader& reader = **opened;
  const nettrace::TraceInfo& info = reader.info();

  std::map<std::pair<std::string, std::string>, Counter> table;  // (provider, name) -> count
  std::uint64_t in_file = 0, shown = 0, decoded = 0, unknown = 0, malformed = 0, trailing = 0, undescribed = 0;
  Progress progress(!o.no_progress && CLRETW_ISATTY(2));
  std::string line;
  if (format == LineFormat::csv && first && !o.stats) std::cout << csv_header() << "\n";
  int status = 0;
  for (;;) {
    auto next = reader.next();
    if (!next) {
      progress.done();
      std::cout.flush();
      std::cerr << "clretw-dump: " << path << ": " << next.error().message() << "\n";
      status = 1;
      break;
    }
    const EventRecord* r = *next;
    if (!r) break;
    ++in_file;
    progress.update(reader.position(), reader.size(), in_file);
    const double ms = info.milliseconds(r->timestamp);
    if (ms < o.from || ms > o.to) continue;
    if (o.level >= 0 && r->level > o.level) continue;
    if (o.keywords && !(r->keywords & o.keywords)) continue;
    if (!o.ids.empty() && std::find(o.ids.begin(), o.ids.end(), r->id) == o.ids.end()) continue;
    Described d;
    line.clear();
    if (o.stats) d = describer.describe(*r);
    else format_event(*r, describer, ms, format, line, &d);
    if (!o.filters.empty()) {
      const std::string key = std::string(d.provider_name) + "/" + d.name;
      bool match = false;
      for (const std::string& f : o.filters) match |= glob_match(f, key);
      if (!match) continue;
    }
    ++shown;
    switch (d.kind) {
      case Described::Kind::decoded: ++decoded; break;
      case Described::Kind::unknown: ++unknown; break;
      case Described::Kind::malformed: ++malformed; break;
    }
    if (d.kind == Described::Kind::decoded && d.undescribed) ++undescribed;
    else if (d.kind == Described::Kind::decoded && d.trailing) ++trailing;
    if (o.stats) {
      Counter& c = table[{std::string(d.provider_name), d.name}];
      ++c.count;
      const std::string v = std::to_string(r->id) + " v" + std::to_string(r->version) +
                            (d.kind == Described::Kind::unknown ? " unknown" : d.kind == Described::Kind::malformed ? " malformed" : "");
      if (c.versions.find(v) == std::string::npos) c.versions += (c.versions.empty() ? "" : ", ") + v;
    } else {
      line.push_back('\n');
      std::cout << line;
    }
    if (o.limit && shown >= o.limit) break;
  }
  progress.done();
  if (o.stats) {
    const nettrace::Stats& s = reader.stats();
    std::printf("%s: nettrace format %u, pointer size %u, pid %u, %llu bytes\n", path.c_str(), info.format,
                info.pointer_size, info.process_id, static_cast<unsigned long long>(reader.position()));
    std::printf("%10s  %s\n", "count", "provider/event (id, version)");
    for (const auto& [key, c] : table)
      std::printf("%10llu  %s/%s (%s)\n", static_cast<unsigned long long>(c.count), key.first.c_str(), key.second.c_str(),
                  c.versions.c_str());
    std::printf("events: %llu in file%s, %llu counted = %llu decoded + %llu unknown + %llu malformed\n",
                static_cast<unsigned long long>(in_file), status ? " (before the damage)" : "",
                static_cast<unsigned long long>(shown), static_cast<unsigned long long>(decoded),
                static_cast<unsigned long long>(unknown), static_cast<unsigned long long>(malformed));
    std::printf("lost events: %llu; decoded with trailing bytes (newer versions): %llu; payloads the trace's metadata "
                "lists no fields for: %llu; stacks: %llu; sequence points: %llu\n",
                static_cast<unsigned long long>(s.lost_events), static_cast<unsigned long long>(trailing),
                static_cast<unsigned long long>(undescribed),
                static_cast<unsigned long long>(s.stacks), static_cast<unsigned long long>(s.sequence_points));
  }
  return status;
}

}  // namespace

int run(int argc, char** argv) {
  Options o;
  CLI::App app{
      "clretw-dump: decode .NET EventPipe traces (.nettrace) to text, JSON or CSV.\n"
      "CLR runtime events decode with the built-in decoders (or --manifest); EventSource events with the\n"
      "field lists in the trace. Unknown and malformed events are printed too, never dropped."};
  app.add_option("traces", o.traces, "Trace files (.nettrace)")->required();
  app.add_option("-f,--format", o.format, "Output: text (default), json (one object per line) or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  app.add_option("--filter", o.filters, "Only events whose Provider/Name matches this glob, e.g. '*/GC/*' (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--id", o.ids, "Only events with this id, 0 to 65535 (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::Range(0, 65535));
  app.add_option_function<std::string>(
         "--keywords",
         [&](const std::string& text) {
           auto mask = parse_mask(text);
           if (!mask || !*mask) throw CLI::ValidationError("--keywords", "'" + text + "' is not a non-zero keyword mask (e.g. 0x1 or 1)");
           o.keywords = *mask;
         },
         "Only events with any of these keyword bits (e.g. 0x1)");
  app.add_option("--level", o.level, "Only events of this level or more severe (5 = verbose ... 1 = critical)")
      ->check(CLI::Range(0, 255));
  auto* from = app.add_option("--from", o.from, "Only events at or after this time (ms since the trace start)");
  auto* to = app.add_option("--to", o.to, "Only events at or before this time (ms since the trace start)");
  app.add_flag("--stats", o.stats, "Print counts per provider/event, lost, unknown and malformed events instead of events");
  app.add_option("--manifest", o.manifests,
                 "Decode the providers this instrumentation manifest defines with it, at run time, instead of with the\n"
                 "built-in decoders (repeatable; the first manifest that defines a provider wins)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  app.add_flag("--sorted", o.sorted, "Deliver events in timestamp order across threads (buffers between sequence points)");
  app.add_option("--limit", o.limit, "Stop after this many events (per trace); 0: no limit")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-progress", o.no_progress, "Do not show progress on stderr (shown only when stderr is a terminal)");
  app.footer("Exit status: 0 all traces read to the end; 1 a trace is damaged (everything before the damage was printed);\n"
             "2 bad usage or a trace or manifest that cannot be read.");
  try {
    app.parse(argc, argv);
    if (from->count() && to->count() && o.from > o.to)
      throw CLI::ValidationError("--from", std::to_string(o.from) + " is after --to " + std::to_string(o.to));
    for (const std::string& f : o.filters)
      if (f.empty()) throw CLI::ValidationError("--filter", "an empty pattern matches no event");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  // Catalogs, in order of precedence: manifests loaded now (with the CLR fix-ups), then the built-in decoders.
  std::vector<gen::LoadedManifest> manifests;
  std::vector<const Catalog*> catalogs;
  for (const std::string& path : o.manifests) {
    gen::Diagnostics diags;
    auto l = gen::load(path, {}, diags);
    if (!l) {
      std::cerr << gen::format_gcc(diags);
      return 2;
    }
    for (const gen::Diagnostic& d : diags.items())
      if (d.severity == gen::Severity::error) std::cerr << gen::format_gcc(d);
    catalogs.push_back(&l->schema->catalog());
    manifests.push_back(std::move(*l));
  }
  catalogs.push_back(&clretw::catalog());
  EventDescriber describer(catalogs);
  const LineFormat format = o.format == "json" ? LineFormat::json : o.format == "csv" ? LineFormat::csv : LineFormat::text;

  int status = 0;
  for (std::size_t i = 0; i < o.traces.size(); ++i) status = std::max(status, dump(o.traces[i], o, describer, format, i == 0));
  return status;
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-dump", run, argc, argv); }
