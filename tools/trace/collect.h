// clretw-trace's commands, once their command line is parsed: collect, ps, list-profiles,
// convert and report.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clretw/result.h"
#include "common/print_options.h"

namespace clretw::tools {

struct CollectOptions {
  // The target: one of these.
  std::uint32_t pid = 0;
  std::string name;              // -n: a process by name
  std::string dport;             // --dport PATH[,listen|,connect]
  std::vector<std::string> command;
  // What to collect (dotnet-trace's options).
  std::string providers, profile, clrevents, clreventlevel, duration, output;
  std::string rundown = "unset"; // "" (the option alone), "true", "false" (--rundown false, --rundown:false)
  std::string resume_runtime;    // likewise; default true
  std::string buffering_mode = "Drop";
  std::string format = "NetTrace";  // an additional file: Speedscope, Chromium
  std::string stop_provider, stop_event, stop_payload;
  std::uint32_t buffer_mb = 256;
  bool show_child_io = false, no_stacks = false;
  bool verbose = false;          // -v: the session's id and CollectTracing command too
  // Decoding live to stdout (clretw's own): --print FORMAT, or any decoding option.
  PrintArgs print;
  bool decode_asked = false;
};

// "5s", "500ms", "2m", "1h" (clretw's), or "dd:hh:mm:ss" / "hh:mm:ss" (dotnet-trace's). A bare
// number is an error: dotnet-trace would read "2" as two days.
Result<std::chrono::milliseconds> parse_duration(const std::string& text);
// "true"/"false" (any case), "1"/"0", or "" (the option alone) as true; nullopt otherwise.
std::optional<bool> parse_bool(const std::string& text);

int ps();                 // the .NET processes that can be traced, as a table on stdout
int list_profiles();      // dotnet-trace's profiles, on stdout
// A session with the target until --duration, Ctrl-C, Enter (standard input a terminal), the
// stopping event or the process's end:
// its bytes written to -o (or <app>_<yyyyMMdd>_<HHmmss>.nettrace), its events decoded to stdout
// when asked. Returns the exit status: the traced child's own when it ended by itself.
int collect(CollectOptions& o);
// A nettrace file as speedscope or Chromium JSON, written beside it (or to `output`).
int convert(const std::string& input, const std::string& format, const std::string& output);
// The top `n` methods of a trace's CPU samples, by exclusive (or inclusive) samples.
int report_top(const std::string& input, std::size_t n, bool inclusive);

}  // namespace clretw::tools
