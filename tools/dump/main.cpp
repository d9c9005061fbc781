// clretw-dump: decode trace files (.nettrace, .netperf, .etl) to text, JSON or CSV, or count their events.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/events.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/open.h"
#include "common/event_printer.h"
#include "common/guarded_main.h"

namespace {

using namespace clretw;

struct Options {
  std::vector<std::string> traces;
  bool sorted = false;
  std::vector<std::string> manifests;
  tools::PrintOptions print;
};

// Returns 0 (read to the end), 1 (damaged: events before the damage were shown) or 2 (cannot open).
int dump(const std::string& path, const Options& o, const std::vector<const Catalog*>& catalogs, bool first) {
  OpenOptions oo;
  oo.sorted = o.sorted;
  auto opened = open_trace(path, oo);
  if (!opened) {
    std::cerr << "clretw-dump: " << path << ": " << opened.error().message() << "\n";
    return 2;
  }
  tools::PrintOptions print = o.print;
  if (print.trace_name.empty()) print.trace_name = path.substr(path.find_last_of("/\\") + 1);
  // (A pipe or standard input is read once: --resolve then names frames by what it has seen so
  // far, as a live session does.)
  if (!print.resolve || print.stats || print.quiet || !seekable_path(path))
    return tools::print_events(**opened, path, print, catalogs, first, "clretw-dump");
  // --resolve: the method events of the whole file first (rundown comes at its end), then the events
  // with their stacks named as of each event's time. Damage shows in the second pass.
  Symbolizer symbols;
  for (;;) {
    auto next = (*opened)->next();
    if (!next || !*next) break;
    symbols.observe(**next);
  }
  opened = open_trace(path, oo);
  if (!opened) {
    std::cerr << "clretw-dump: " << path << ": " << opened.error().message() << "\n";
    return 2;
  }
  return tools::print_events(**opened, path, print, catalogs, first, "clretw-dump", &symbols);
}

}  // namespace

int run(int argc, char** argv) {
  Options o;
  CLI::App app{
      "clretw-dump: decode .NET traces to text, JSON or CSV: EventPipe .nettrace (formats 4-6), .NET Core 2.1/2.2\n"
      ".netperf, and Windows .etl files (any OS; compressed or not), told apart by their content. Or turn their\n"
      "CPU samples into flame graphs (--format folded|speedscope) and a table of hot methods (--top N).\n"
      "CLR runtime events decode with the built-in decoders (or --manifest); EventSource events with the\n"
      "field lists in the trace. Unknown and malformed events are printed too, never dropped."};
  app.add_option("traces", o.traces,
                 "Trace files (.nettrace, .netperf, .etl); - is standard input. A pipe, a FIFO or standard input is\n"
                 "read once, as it comes (nettrace and NetPerf; ETL needs a file on disk)")
      ->required();
  tools::add_print_options(app, o.print);
  app.add_option("--manifest", o.manifests,
                 "Decode the providers this instrumentation manifest defines with it, at run time, instead of with the\n"
                 "built-in decoders (repeatable; the first manifest that defines a provider wins)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  app.add_flag("--sorted", o.sorted, "nettrace: deliver events in timestamp order across threads (buffers between sequence points);\n"
               "ETL files are always merged across processors by timestamp");
  app.footer("Exit status: 0 all traces read to the end; 1 a trace is damaged (everything before the damage was printed);\n"
             "2 bad usage or a trace or manifest that cannot be read.");
  try {
    app.parse(argc, argv);
    tools::check_print_options(app, o.print);
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

  int status = 0;
  for (std::size_t i = 0; i < o.traces.size(); ++i) status = std::max(status, dump(o.traces[i], o, catalogs, i == 0));
  return status;
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-dump", run, argc, argv); }
