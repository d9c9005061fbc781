// The event printing of clretw-dump, shared with clretw-trace: filters, text/JSON/CSV lines or
// --stats counts, and progress on a terminal, over any TraceSource (a file of any format, or a live session).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "clretw/describe.h"
#include "clretw/source.h"

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

  LineFormat line_format() const {
    return format == "json" ? LineFormat::json : format == "csv" ? LineFormat::csv : LineFormat::text;
  }
};

// Adds --format, --filter, --id, --keywords, --level, --from, --to, --stats, --limit, --no-progress.
void add_print_options(CLI::App& app, PrintOptions& o);
// Checks what CLI11 cannot (--from after --to, empty filters); throws CLI::ValidationError.
void check_print_options(const CLI::App& app, const PrintOptions& o);

// Prints (or counts) every event of `reader`, labelled `label` in messages, decoded with `catalogs`
// (the first that defines a provider decides) and with the manifests EventSource providers write
// into the trace (ETW's ManifestData events, id 0xFFFE), loaded as they complete. Returns 0 when the
// trace was read to its end, 1 when it is damaged or cut (everything before was printed; the error
// goes to stderr, prefixed with `tool`).
int print_events(TraceSource& reader, const std::string& label, const PrintOptions& o,
                 const std::vector<const Catalog*>& catalogs, bool first, const char* tool);

}  // namespace clretw::tools
