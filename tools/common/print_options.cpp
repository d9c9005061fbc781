#include "common/print_options.h"

#include "common/number_option.h"

namespace clretw::tools {

void add_print_options(CLI::App& app, PrintArgs& a, const std::string& format_names) {
  PrintOptions& o = a.print;
  a.format_flag = format_names.substr(format_names.rfind(',') + 1);
  app.add_option(format_names, a.format,
                 "Output: text (default), json (one object per line) or csv; or the sampled stacks as folded\n"
                 "(one line per distinct stack per thread, 'Thread (tid);root;...;leaf count', for flamegraph.pl\n"
                 "and inferno) or speedscope (speedscope.app's JSON, one profile per thread), frames named from\n"
                 "the trace's method events (see --top), or chromium (Chrome's trace-event JSON, for Perfetto and\n"
                 "chrome://tracing: each thread's sampled frames as begin/end events); or, with --report, html:\n"
                 "one self-contained page (summary, plots, sortable tables; nothing fetched from the network)")
      ->check(CLI::IsMember({"text", "json", "csv", "folded", "speedscope", "chromium", "html"}));
  app.add_option("--report", a.report,
                 "Instead of events, answer what the runtime did, per process: gc (every GC: generation, type,\n"
                 "reason, pause, suspension, heap before/after, promoted), alloc (bytes by type), jit (methods per\n"
                 "tier, JIT time, IL and native sizes), exceptions (by type, with a message and throw sites),\n"
                 "contention (by lock and waiting frame), threadpool (worker counts, adjustments), summary, or\n"
                 "all; comma-separated. " + a.format_flag + " text (tables; --top N rows, default 20), json (one object per\n"
                 "line with \"table\" and \"trace\"), csv (one report) or html. Several traces: one table, a\n"
                 "trace column. Times in ms since the trace start; MB = 10^6 bytes, as PerfView counts");
  app.add_option("--top", o.top,
                 "Print the N methods with the most exclusive samples, with inclusive samples, instead of events.\n"
                 "Samples are the CPU samples (EventPipe's sample profiler) unless --filter or --id choose other\n"
                 "events (e.g. --filter GC/AllocationTick for allocation stacks)")
      ->check(whole_number(1));
  app.add_flag("--resolve", o.resolve,
               "Text and JSON: print each event's stack frames by name, innermost first ('frames', beside the\n"
               "addresses in 'stack'); a file is read twice: first for its method events, rundown included, and\n"
               "in ETL files the StackWalk events that hold the kernel's CPU samples' stacks");
  app.add_option("--sample-interval", o.sample_interval_ms,
                 "Milliseconds one sample stands for in speedscope's weights (default: the interval an ETL trace\n"
                 "states for the kernel's samples, else 1, EventPipe's)")
      ->check(real_number("milliseconds", 0, std::numeric_limits<double>::infinity(), true));
  app.add_option("--filter", o.filters,
                 "Only events this name chooses, in any case, '*' for any run of characters (repeatable): a display\n"
                 "name (GC/Start, GC/*), a symbol (GCStart, GCStart_V2), a keyword (GC, GCKeyword), any of those in\n"
                 "one provider (DotNETRuntimeRundown:Method/*), or PROVIDER/NAME as events print ('*/GC/Start');\n"
                 "as clretw-gen config reads names. A name that chooses no known event is reported on stderr")
      ->allow_extra_args(false);
  app.add_option("--id", o.ids, "Only events with this id, 0 to 65535 (repeatable)")
      ->allow_extra_args(false)
      ->check(whole_number(0, 65535));
  app.add_option_function<std::string>(
         "--keywords",
         [&o](const std::string& text) {
           auto mask = parse_whole_number(text);
           if (!mask || !*mask)
             throw CLI::ValidationError("--keywords", text + " is not a keyword mask from 0x1 to 0xFFFFFFFFFFFFFFFF (hex with 0x, or decimal)");
           o.keywords = *mask;
         },
         "Only events with any of these keyword bits (e.g. 0x1)");
  app.add_option("--level", o.level, "Only events of this level or more severe (5 = verbose ... 1 = critical)")
      ->check(whole_number(0, 255));
  app.add_option("--from", o.from, "Only events at or after this time (ms since the trace start)")
      ->check(real_number("milliseconds"));
  app.add_option("--to", o.to, "Only events at or before this time (ms since the trace start)")
      ->check(real_number("milliseconds"));
  app.add_flag("--stats", o.stats, "Print counts per provider/event, lost, unknown and malformed events instead of events");
  app.add_option("--limit", o.limit, "Stop after this many events (per trace); 0: no limit")
      ->check(whole_number(0));
  app.add_flag("--no-progress", a.no_progress, "Do not show progress on stderr (shown only when stderr is a terminal)");
}

void check_print_options(const CLI::App& app, PrintArgs& a) {
  PrintOptions& o = a.print;
  o.format = parse_output_format(a.format).value_or(OutputFormat::text);
  o.progress = !a.no_progress;
  if (app.count("--from") && app.count("--to") && o.from > o.to)
    throw CLI::ValidationError("--from", std::to_string(o.from) + " is after --to " + std::to_string(o.to));
  for (const std::string& f : o.filters)
    if (f.empty()) throw CLI::ValidationError("--filter", "an empty pattern matches no event");
  if (app.count("--report")) {
    const auto kinds = parse_report_kinds(a.report);
    if (!kinds)
      throw CLI::ValidationError("--report", "'" + a.report + "' is not a list of gc, alloc, jit, exceptions, contention, "
                                                              "threadpool, summary or all");
    o.report = *kinds;
    if (o.stats) throw CLI::ValidationError("--report", "writes reports; it does not combine with --stats");
    if (o.resolve) throw CLI::ValidationError("--report", "names its frames itself; it does not combine with --resolve");
    if (a.format == "folded" || a.format == "speedscope" || a.format == "chromium")
      throw CLI::ValidationError("--report", "is written as text, json, csv or html, not " + a.format);
    if (a.format == "csv" && (*kinds & (*kinds - 1)))
      throw CLI::ValidationError("--report", a.format_flag + " csv holds one table: choose one report, not '" + a.report + "'");
    return;
  }
  if (a.format == "html") throw CLI::ValidationError(a.format_flag, "html is the page of --report; give --report too");
  if (o.stats && o.profile())
    throw CLI::ValidationError("--stats", "counts events; it does not combine with --top or " + a.format_flag + " " + a.format);
  if (o.top && app.count(a.format_flag) && a.format != "text")
    throw CLI::ValidationError("--top", "prints a table; it does not combine with " + a.format_flag + " " + a.format);
  if (o.resolve && (a.format == "csv" || o.profile()))
    throw CLI::ValidationError("--resolve", "names the stacks of text and JSON lines; " + a.format_flag + " " + a.format +
                                                " is not one of them" + (o.profile() ? " (profiles are always named)" : ""));
}

}  // namespace clretw::tools
