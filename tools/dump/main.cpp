// clretw-dump: decode trace files (.nettrace, .netperf, .etl) to text, JSON or CSV, or count their events.
// The printing is clretw/print.h's; this is its command line.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/print.h"
#include "common/guarded_main.h"
#include "common/print_options.h"
#if CLRETW_WITH_GENERATOR
#include "clretw/gen/carried.h"
#endif

namespace {

using namespace clretw;

struct Options {
  std::vector<std::string> traces;
  bool file_order = false;
  bool sorted = false;  // --sorted, the default
  std::vector<std::string> manifests;
  tools::PrintArgs print;
};

}  // namespace

int run(int argc, char** argv) {
  Options o;
  CLI::App app{
      "clretw-dump: decode .NET traces to text, JSON or CSV: EventPipe .nettrace (formats 4-6), .NET Core 2.1/2.2\n"
      ".netperf, and Windows .etl files (any OS; compressed or not), told apart by their content. Or turn their\n"
      "CPU samples into flame graphs (--format folded|speedscope) and a table of hot methods (--top N). Or answer\n"
      "what the runtime did (--report gc|alloc|jit|exceptions|contention|threadpool|summary|all): GC pauses and\n"
      "heap sizes, allocations by type, JIT tiers and times, exceptions, lock contention, as text, JSON lines,\n"
      "CSV or one HTML page.\n"
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
  // Time order is the default: a trace's buffers come per thread, so file order steps back in
  // time (hundreds of times in a .NET 10 trace); the readers' sorters do it in bounded memory.
  app.add_flag("--file-order", o.file_order,
               "Print events in the order the file stores them (nettrace: per thread, between sequence points)\n"
               "instead of in timestamp order, the default; ETL files are always merged across processors by time");
  app.add_flag("--sorted", o.sorted, "Timestamp order: the default now, kept for old command lines")
      ->group("");  // hidden
  app.footer("Exit status: 0 all traces read to the end; 1 a trace is damaged (everything before the damage was printed);\n"
             "2 bad usage or a trace or manifest that cannot be read.");
  try {
    app.parse(argc, argv);
    tools::check_print_options(app, o.print);
    if (o.sorted && o.file_order) throw CLI::ValidationError("--sorted", "timestamp order does not combine with --file-order");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  // Catalogs, in order of precedence: manifests loaded now (with the CLR fix-ups), then the built-in
  // decoders; the manifests an ETL file carries come after them, loaded by the generator's front end.
  std::vector<std::shared_ptr<const Catalog>> manifests;
  std::vector<const Catalog*> catalogs;
  OpenOptions open;
  // Counts and the call trees of --top and folded stacks do not depend on the order: they read the
  // file as it is stored, which costs less (the sorter's copy of every event).
  const PrintOptions& p = o.print.print;
  const bool order_free = p.stats || (!p.report && (p.top || p.format == OutputFormat::folded));
  open.sorted = !o.file_order && !order_free;
#if CLRETW_WITH_GENERATOR
  for (const std::string& path : o.manifests) {
    std::string report;
    manifests.push_back(gen::load_catalog(path, report));
    std::cerr << report;
    if (!manifests.back()) return 2;
    catalogs.push_back(manifests.back().get());
  }
  const gen::CarriedManifestLoader loader;
  open.manifest_loader = &loader;
#else
  if (!o.manifests.empty()) {
    std::cerr << "clretw-dump: --manifest " << o.manifests.front()
              << ": loading a manifest needs clretw's generator, which this build leaves out (CLRETW_GENERATOR=OFF)\n";
    return 2;
  }
#endif
  catalogs.push_back(&clretw::catalog());

  o.print.print.tool = "clretw-dump";
  EventPrinter printer(o.print.print, catalogs);
  int status = 0;
  for (const std::string& path : o.traces) status = std::max(status, printer.print_file(path, open));
  return std::max(status, printer.finish());
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-dump", run, argc, argv); }
