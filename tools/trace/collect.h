// clretw-trace's commands, once their command line is parsed: ps and collect.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/print_options.h"

namespace clretw::tools {

struct CollectOptions {
  std::uint32_t pid = 0;
  std::string providers, profile, duration, output;
  std::uint32_t buffer_mb = 256;
  bool no_rundown = false, no_stacks = false, show_child_io = false;
  std::vector<std::string> command;
  PrintArgs print;
  bool decode_asked = false;  // a decoding option was given
};

// "5s", "500ms", "2m", "1h", a bare number of seconds, or dotnet-trace's dd:hh:mm:ss.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

// The .NET processes that can be traced, as a table on stdout. Returns 0.
int ps();
// A session with o.pid, or with o.command started for it, until --duration, Ctrl-C or the
// process's end; its events printed and/or its bytes written to -o. Returns the exit status.
int collect(CollectOptions& o);

}  // namespace clretw::tools
