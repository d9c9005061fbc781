// clretw-trace: live EventPipe sessions with running .NET processes, on dotnet-trace 10's command
// line. The command line; the commands are in collect.cpp, the mechanics in clretw/diagnostics.h
// and the printing in clretw/print.h.
#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/diagnostics.h"
#include "common/guarded_main.h"
#include "common/number_option.h"
#include "trace/collect.h"

namespace {

using namespace clretw;

// dotnet-trace's command line also takes "--option:value" (--resume-runtime:false); CLI11 takes
// "--option=value". Rewritten for the options of collect, up to "--".
std::vector<std::string> dotnet_style_values(int argc, char** argv) {
  static const std::set<std::string, std::less<>> kOptions = {
      "--rundown", "--resume-runtime", "--show-child-io", "--buffersize", "--buffering-mode", "--format", "--duration",
      "--profile", "--providers", "--clrevents", "--clreventlevel", "--output", "--process-id", "--name", "--dport",
      "--diagnostic-port", "--stopping-event-provider-name", "--stopping-event-event-name", "--stopping-event-payload-filter"};
  std::vector<std::string> out;
  bool rest = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    rest |= a == "--";
    const std::size_t colon = a.find(':');
    if (!rest && a.starts_with("--") && colon != std::string::npos && a.find('=') == std::string::npos &&
        kOptions.count(std::string_view(a).substr(0, colon)))
      a[colon] = '=';
    out.push_back(std::move(a));
  }
  return out;
}

int run(int argc, char** argv) {
  CLI::App app{
      "clretw-trace: live EventPipe sessions with running .NET processes, on dotnet-trace 10's command line.\n"
      "Talks the runtime's diagnostics IPC protocol itself: no .NET needed on this side."};
  app.require_subcommand(1);
  app.add_subcommand("ps", "List the .NET processes that can be traced: pid, name, runtime version, command line");
  app.add_subcommand("list-profiles", "List the profiles --profile takes (dotnet-trace 10's), with their providers");

  tools::CollectOptions o;
  auto* c = app.add_subcommand(
      "collect",
      "Trace a running process (-p, -n, --dport) or a program started for it (-- COMMAND ARGS) to a .nettrace file,\n"
      "as dotnet-trace collect does; with --print (or --filter, --stats, --top, --report) its events are also decoded\n"
      "live to stdout. Started with -- COMMAND, clretw-trace exits with the program's exit code.");
  c->add_option("-p,--process-id", o.pid, "The process to trace")->check(tools::whole_number(1, 4294967295u));
  c->add_option("-n,--name", o.name, "The process to trace, by name (its entry assembly or executable)");
  c->add_option("--dport,--diagnostic-port", o.dport,
                "A diagnostic port: PATH (or PATH,listen) is created here and a runtime started with\n"
                "DOTNET_DiagnosticPorts=PATH connects to it; PATH,connect is a runtime listening at PATH");
  c->add_option("-o,--output", o.output,
                "The trace file (default <app>_<yyyyMMdd>_<HHmmss>.nettrace in the current directory)");
  c->add_option("--providers", o.providers,
                "Providers, as dotnet-trace takes them: Name[:Keywords[:Level[:Key=Value;...]]], comma separated.\n"
                "Keywords: a hex mask or keyword names joined by + (GC+Exception). These take precedence over\n"
                "the profiles' configuration of the same provider");
  std::string profiles;  // those for collect (list-profiles shows collect-linux's too)
  for (const clretw::diagnostics::ProfileInfo& p : clretw::diagnostics::profiles())
    if (p.verb.empty() || p.verb == "collect") profiles += (profiles.empty() ? "" : ", ") + std::string(p.name);
  c->add_option("--profile", o.profile,
                "Profiles, comma separated (a union of their providers): " + profiles +
                    ".\nDefault without --providers or --clrevents: dotnet-common,dotnet-sampled-thread-time");
  c->add_option("--clrevents", o.clrevents, "CLR runtime keywords joined by + (gc+jit+exception), when no other option names the runtime provider");
  c->add_option("--clreventlevel", o.clreventlevel, "The level of --clrevents (0-5 or critical ... verbose; default informational)");
  c->add_option("--format", o.format,
                "NetTrace (default), Speedscope or Chromium: the latter two write an additional file beside the trace\n"
                "(<output>.speedscope.json, <output>.chromium.json) from its sampled stacks")
      ->transform(CLI::IsMember({"NetTrace", "Speedscope", "Chromium"}, CLI::ignore_case));
  c->add_option("--duration", o.duration,
                "Stop after this long: dd:hh:mm:ss (dotnet-trace's) or 5s, 500ms, 2m, 1h; default: until Enter or Ctrl-C");
  c->add_option("--buffersize", o.buffer_mb, "The runtime's buffer for this session, in MB (default 256)")->check(tools::whole_number(1, 4096, "MB"));
  c->add_option("--buffering-mode", o.buffering_mode,
                "Drop (default): the circular buffer drops events when full (they are counted and reported);\n"
                "Block: the runtime waits for the reader, losing nothing (.NET 11 and later)")
      ->transform(CLI::IsMember({"Drop", "Block", "0", "1"}, CLI::ignore_case));
  c->add_option("--rundown", o.rundown, "Collect the method and module rundown at the end: true (default) or false")
      ->expected(0, 1)
      ->check(CLI::IsMember({"", "true", "false", "0", "1"}, CLI::ignore_case));
  c->add_option("--resume-runtime", o.resume_runtime,
                "Resume a runtime that waits for it (-- COMMAND, --dport) once the session is on: true (default) or false")
      ->expected(0, 1)
      ->check(CLI::IsMember({"", "true", "false", "0", "1"}, CLI::ignore_case));
  c->add_flag("--show-child-io", o.show_child_io, "Show the output of the program started with -- COMMAND (hidden by default)");
  c->add_option("--stopping-event-provider-name", o.stop_provider, "Stop the session at the first event of this provider");
  c->add_option("--stopping-event-event-name", o.stop_event,
                "... with this event name (GC/Start, or the symbol GCStart; needs --stopping-event-provider-name)");
  c->add_option("--stopping-event-payload-filter", o.stop_payload,
                "... whose payload has these field values: name:value pairs, comma separated (needs the event name)");
  std::string dsrouter;
  c->add_option("--dsrouter", dsrouter, "Not supported: trace mobile targets with dotnet-dsrouter and --dport")->group("");
  c->add_flag("--no-stacks", o.no_stacks, "Do not collect a stack with each event (clretw's own)");
  c->add_flag("-v,--verbose", o.verbose, "Also say which session the runtime started: its id and the CollectTracing command");
  bool no_rundown = false;
  c->add_flag("--no-rundown", no_rundown, "The same as --rundown false")->group("");
  tools::add_print_options(*c, o.print, "--print");
  c->add_option("command", o.command, "-- COMMAND ARGS...: start this program and trace it from its first instruction");
  c->footer("Enter (standard input a terminal; not with --show-child-io), Ctrl-C, --duration or the stopping event stops\n"
            "the session with StopTracing; the rundown is read and the file stays valid. A second Ctrl-C abandons a session\n"
            "the runtime does not end. The table of enabled providers goes to stderr before tracing.\n"
            "Exit status: the traced program's when clretw-trace started it and it ended by itself; else 0 when the\n"
            "session ended cleanly, 1 when it could not start or its stream broke, 2 on bad usage.");

  std::string input, convert_format, convert_output;
  auto* conv = app.add_subcommand("convert", "Convert a nettrace file to speedscope or Chromium JSON (its sampled stacks)");
  conv->add_option("input", input, "The trace")->required();
  conv->add_option("--format", convert_format, "Speedscope or Chromium (NetTrace: nothing to do)")
      ->required()
      ->transform(CLI::IsMember({"NetTrace", "Speedscope", "Chromium"}, CLI::ignore_case));
  conv->add_option("-o,--output", convert_output, "The output's name; its extension becomes the format's (.speedscope.json, .chromium.json)");

  std::size_t top_n = 5;
  bool inclusive = false, verbose = false;
  auto* report = app.add_subcommand("report", "Reports of a trace: topN, the methods on the sampled stacks the longest");
  report->add_option("trace", input, "The trace")->required();
  report->require_subcommand(1);
  auto* top = report->add_subcommand("topN", "The top N methods by exclusive samples (or inclusive, with --inclusive)");
  top->add_option("-n,--number", top_n, "How many (default 5)")->check(tools::whole_number(1));
  top->add_flag("--inclusive", inclusive, "Rank by inclusive samples");
  top->add_flag("-v,--verbose", verbose, "Method names in full (they always are)");
  app.footer("Exit status 2 on bad usage. clretw-dump reads the files; clretw-gen config says which providers and keywords\n"
             "an event needs.");

  const std::vector<std::string> args = dotnet_style_values(argc, argv);
  std::vector<const char*> rewritten;
  for (const std::string& a : args) rewritten.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(rewritten.size()), rewritten.data());
    if (c->parsed()) {
      tools::check_print_options(*c, o.print);
      if (no_rundown) o.rundown = "false";
      const int targets = (o.pid != 0) + !o.name.empty() + !o.dport.empty() + !o.command.empty();
      if (targets == 0) throw CLI::ValidationError("-p", "collect needs -p PID, -n NAME, --dport PATH or -- COMMAND");
      if (targets > 1) throw CLI::ValidationError("-p", "give one of -p PID, -n NAME, --dport PATH and -- COMMAND");
      if (o.show_child_io && o.command.empty())
        throw CLI::ValidationError("--show-child-io", "shows the output of a program started with -- COMMAND; there is none");
      if (!dsrouter.empty())
        throw CLI::ValidationError("--dsrouter", "is not supported: run dotnet-dsrouter yourself and give its port with --dport");
      if (o.stop_provider.empty() && (!o.stop_event.empty() || !o.stop_payload.empty()))
        throw CLI::ValidationError("--stopping-event-event-name", "needs --stopping-event-provider-name");
      if (o.stop_event.empty() && !o.stop_payload.empty())
        throw CLI::ValidationError("--stopping-event-payload-filter", "needs --stopping-event-event-name");
      for (const char* opt : {"--print", "--stats", "--report", "--filter", "--id", "--keywords", "--level", "--from", "--to", "--limit",
                              "--top", "--resolve"})
        o.decode_asked |= c->count(opt) > 0;
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ps")) return tools::ps();
  if (app.got_subcommand("list-profiles")) return tools::list_profiles();
  if (conv->parsed()) return tools::convert(input, convert_format, convert_output);
  if (report->parsed()) return tools::report_top(input, top_n, inclusive);
  return tools::collect(o);
}

}  // namespace

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-trace", run, argc, argv); }
