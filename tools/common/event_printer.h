// The event printing of clretw-dump, shared with clretw-trace: filters, text/JSON/CSV lines or
// --stats counts, and progress on a terminal, over any TraceSource (a file of any format, or a live session).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/source.h"
#include "clretw/symbolizer.h"

namespace clretw::tools {

struct PrintOptions {
  std::string format = "text";
  std::vector<std::string> filters;
  std::vector<std::uint32_t> ids;
  std::uint64_t keywords = 0;
  int level = -1;
  double from = -1e300, to = 1e300;
  bool stats = false, no_progress = false;
  std::uint64_t limit = 0;
  bool live = false;   // flush each line: a live session's events are shown as they come
  bool quiet = false;  // print nothing (progress aside): read through so that damage is still reported
  // Stacks: --format folded|speedscope and --top aggregate sampled stacks; --resolve names the
  // stacks of printed events.
  std::size_t top = 0;
  bool resolve = false;
  double sample_interval_ms = 1.0;
  std::string trace_name;  // speedscope's profile name

  bool profile() const { return format == "folded" || format == "speedscope" || top > 0; }

  LineFormat line_format() const {
    return format == "json" ? LineFormat::json : format == "csv" ? LineFormat::csv : LineFormat::text;
  }
};

// Adds --format, --filter, --id, --keywords, --level, --from, --to, --stats, --limit, --no-progress,
// --top, --resolve, --sample-interval.
void add_print_options(CLI::App& app, PrintOptions& o);
// Checks what CLI11 cannot (--from after --to, empty filters); throws CLI::ValidationError.
void check_print_options(const CLI::App& app, const PrintOptions& o);

// Prints (or counts) every event of `reader`, labelled `label` in messages, decoded with `catalogs`
// (the first that defines a provider decides) and with the manifests EventSource providers write
// into the trace (ETW's ManifestData events, id 0xFFFE), loaded as they complete. Returns 0 when the
// trace was read to its end, 1 when it is damaged or cut (everything before was printed; the error
// goes to stderr, prefixed with `tool`).
// Stack names come from `symbols` when given (a symbolizer that has seen the whole trace already);
// otherwise from what the trace has said so far, which for a profile is everything (frames are
// named at its end) and for --resolve is the method events before each printed event.
int print_events(TraceSource& reader, const std::string& label, const PrintOptions& o,
                 const std::vector<const Catalog*>& catalogs, bool first, const char* tool,
                 const Symbolizer* symbols = nullptr);

}  // namespace clretw::tools
