// clretw/print.h - what clretw-dump and clretw-trace print, as a library: every event of a trace
// as text, JSON or CSV lines, or their counts (stats), or the sampled stacks as a profile (folded
// stacks, speedscope, the hottest methods), or reports of what the runtime did (GCs, allocations,
// JIT, exceptions, contention, thread pool: clretw/report.h), with filters, progress on a
// terminal, stack frames named by the trace's method events, and the manifests the trace carries
// loaded as they come.
//
//   clretw::PrintOptions o;
//   o.format = clretw::OutputFormat::json;
//   o.filters = {"*/GC/*"};
//   clretw::EventPrinter printer(o, {&clretw::catalog()});   // std::cout, std::cerr
//   int status = printer.print_file("trace.nettrace");       // 0 read to the end, 1 damaged, 2 cannot open
//
// Unknown and malformed events are printed too, never dropped; damage ends a trace after
// everything before it was printed, with a message on `err`. Nothing is allocated per event once
// the buffers are warm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/describe.h"
#include "clretw/open.h"
#include "clretw/report.h"
#include "clretw/schema.h"
#include "clretw/select.h"
#include "clretw/source.h"
#include "clretw/symbolizer.h"

namespace clretw {

enum class OutputFormat : std::uint8_t {
  text, json, csv,    // one line per event (format_event())
  folded, speedscope, // the sampled stacks (StackProfile)
  chromium,           // the sampled stacks as Chrome's trace events (Perfetto, chrome://tracing)
  html                 // reports only: one self-contained page
};
const char* output_format_name(OutputFormat f) noexcept;  // "text", "json", ...
std::optional<OutputFormat> parse_output_format(std::string_view name) noexcept;

struct PrintOptions {
  OutputFormat format = OutputFormat::text;
  // Filters: an event is printed when it passes every one that is set.
  std::vector<std::string> filters;   // one of these names chooses it (clretw::EventPattern: GC/Start, GC/*,
                                      // GCStart, a keyword, PROVIDER:NAME, '*/GC/Start'); one that chooses
                                      // no event the decoders or the trace know is reported on `err`
  std::vector<std::uint32_t> ids;     // its id is one of these
  std::uint64_t keywords = 0;         // it has one of these keyword bits (0: any event)
  int level = -1;                     // its level is this or more severe (lower); -1: any
  double from = -1e300, to = 1e300;   // its time, in ms since the trace start, is in [from, to]
  std::uint64_t limit = 0;            // stop after this many printed events (per trace); 0: no limit
  // Instead of events: counts per provider/event, with the outcome of each (stats); or the N
  // methods with the most exclusive samples (top). Samples are the CPU samples, or with filters
  // or ids the events those choose.
  bool stats = false;
  std::size_t top = 0;
  bool top_inclusive = false;         // top: the methods with the most inclusive samples instead
  // Instead of events: the reports these kinds name (ReportKind bits; 0: none), in `format` (text,
  // json, csv or html), for all traces together, written by finish(). The filters, ids, keywords,
  // level and time range choose the events the model sees; `top` bounds the text tables' rows.
  unsigned report = 0;
  // Text and JSON: each event's stack frames by name ("frames"); print_file() reads a file twice
  // for it, first for its method events (rundown included, which comes at the end).
  bool resolve = false;
  double sample_interval_ms = 0;    // what one sample weighs in speedscope's output; 0: the interval the
                                    // trace states (ETL: the kernel's profile-interval events), else 1
  std::string trace_name;           // speedscope's profile name; print_file(): the file's name
  bool progress = true;             // shown on `err` while a trace is read, when stderr is a terminal
  bool live = false;                // each line written and flushed at once (a live session)
  bool quiet = false;               // print nothing (progress aside): read through, report damage
  std::string tool = "clretw";      // the prefix of messages ("clretw-dump: trace.etl: ...")

  bool profile() const noexcept {
    return !report && (format == OutputFormat::folded || format == OutputFormat::speedscope || format == OutputFormat::chromium ||
                       top > 0);
  }
  LineFormat line_format() const noexcept {
    return format == OutputFormat::json ? LineFormat::json : format == OutputFormat::csv ? LineFormat::csv : LineFormat::text;
  }
};

// Prints traces one after another to `out` (messages, progress and a profile's summary to
// `err`). CSV's header line comes once, before the first trace's lines.
class EventPrinter {
 public:
  // Events decode with `catalogs`, in order of precedence (the first that defines a provider
  // decides), then with the catalogs of the manifests the trace carries, as they come.
  EventPrinter(PrintOptions options, std::vector<const Catalog*> catalogs, std::ostream& out = std::cout,
               std::ostream& err = std::cerr);

  // Every event of `source`, labelled `label` in messages. Stack frames are named by `symbols`
  // when given (a symbolizer that has seen the whole trace: read_methods()); else by what the
  // trace has said so far: for a profile everything (frames are named at its end), for resolve
  // the method events before each printed event. Returns 0 when the trace was read to its end,
  // 1 when it is damaged or cut (everything before was printed; the error is on `err`).
  int print(TraceSource& source, const std::string& label, const Symbolizer* symbols = nullptr);
  // The trace file at `path` (open_trace(), "-" for standard input), with resolve's first pass
  // when asked and the file can be read twice. 0 and 1 as print(); 2 when it cannot be opened.
  int print_file(const std::string& path, const OpenOptions& open = {});
  // After the last trace: the reports (PrintOptions::report) of every trace printed, as one table per
  // kind. 0, or 2 when they cannot be written in the format asked (CSV holds one table).
  int finish();

  const PrintOptions& options() const noexcept { return o_; }

 private:
  PrintOptions o_;
  std::vector<const Catalog*> catalogs_;
  std::vector<EventPattern> patterns_;  // o_.filters, read once
  std::ostream& out_;
  std::ostream& err_;
  bool first_ = true;      // no trace printed yet (CSV's header)
  std::vector<TraceReport> reports_;  // the models of the traces printed (report)
  std::string file_name_;  // print_file()'s, while it prints
  // resolve's first pass over an ETL file: the kernel's CPU samples' stacks, joined from the StackWalk events
  // after them, by (thread, timestamp), frames of 8 bytes; print_file()'s, while it prints.
  std::map<std::pair<std::uint64_t, std::int64_t>, std::vector<std::uint8_t>> joined_stacks_;
};

// resolve's first pass: a symbolizer that has seen every method event of `source`, up to its end
// or its damage.
Symbolizer read_methods(TraceSource& source);

}  // namespace clretw
