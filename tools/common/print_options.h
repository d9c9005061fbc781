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
  std::string report;
  bool no_progress = false;
};

void add_print_options(CLI::App& app, PrintArgs& a);
// After parsing: sets what the options say into a.print and checks what CLI11 cannot (--from
// after --to, empty filters, options that do not combine); throws CLI::ValidationError.
void check_print_options(const CLI::App& app, PrintArgs& a);

}  // namespace clretw::tools
