// The options of clretw/print.h on a command line (clretw-dump, clretw-trace collect): --format,
// --filter, --id, --keywords, --level, --from, --to, --stats, --limit, --no-progress, --top,
// --resolve, --sample-interval, --report.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "clretw/print.h"

namespace clretw::tools {

struct PrintArgs {
  PrintOptions print;
  std::string format = "text";
  std::string format_flag = "--format";  // the option that sets `format` (clretw-trace: --print)
  std::string report;
  bool no_progress = false;
};

// `format_names`: the names of the output format's option, CLI11 style ("-f,--format"); the last
// is the one messages name (kept in a.format_flag).
void add_print_options(CLI::App& app, PrintArgs& a, const std::string& format_names = "-f,--format");
// After parsing: sets what the options say into a.print and checks what CLI11 cannot (--from
// after --to, empty filters, options that do not combine); throws CLI::ValidationError.
void check_print_options(const CLI::App& app, PrintArgs& a);

}  // namespace clretw::tools
