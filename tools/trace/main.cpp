// clretw-trace: live EventPipe sessions with running .NET processes, in the manner of dotnet-trace.
// The command line; the commands are in collect.cpp, the mechanics in clretw/diagnostics.h and
// the printing in clretw/print.h.
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

#include "clretw/diagnostics.h"
#include "common/guarded_main.h"
#include "trace/collect.h"

namespace {

using namespace clretw;

int run(int argc, char** argv) {
  CLI::App app{
      "clretw-trace: live EventPipe sessions with running .NET processes, in the manner of dotnet-trace.\n"
      "Talks the runtime's diagnostics IPC protocol itself: no .NET needed on this side."};
  app.require_subcommand(1);
  app.add_subcommand("ps", "List the .NET processes that can be traced: pid, name, runtime version, command line");
  tools::CollectOptions o;
  auto* c = app.add_subcommand("collect", "Trace a process to a .nettrace file, or decode its events live to stdout");
  c->add_option("-p,--process-id", o.pid, "The process to trace")->check(CLI::PositiveNumber);
  c->add_option("--providers", o.providers,
                "Providers, as dotnet-trace takes them: Name[:Keywords[:Level[:Key=Value;...]]], comma separated");
  std::string profiles;
  for (std::string_view p : diagnostics::profile_names()) profiles += (profiles.empty() ? "" : ", ") + std::string(p);
  c->add_option("--profile", o.profile, "A set of providers: " + profiles + " (default cpu-sampling without --providers)");
  c->add_option("--duration", o.duration, "Stop after this long (5s, 500ms, 2m, or dd:hh:mm:ss); default: Ctrl-C");
  c->add_option("-o,--output", o.output,
                "Write the trace here (.nettrace). Without it, events are decoded to stdout as clretw-dump prints them");
  c->add_option("--buffersize", o.buffer_mb, "The runtime's buffer for this session, in MB (default 256)")
      ->check(CLI::Range(1, 4096));
  c->add_flag("--no-rundown", o.no_rundown, "Do not ask for the method and module rundown at the end");
  c->add_flag("--no-stacks", o.no_stacks, "Do not collect a stack with each event");
  c->add_flag("--show-child-io", o.show_child_io, "Let the traced child (-- COMMAND) print to this terminal");
  tools::add_print_options(*c, o.print);
  c->add_option("command", o.command, "-- COMMAND ARGS...: start this program and trace it from its first instruction");
  c->footer("Decoding options (--format, --filter, --stats...) print live to stdout; with -o as well, the file is written\n"
            "too. Ctrl-C or --duration stops the session with StopTracing; the rundown is read and the file stays valid.\n"
            "Exit status: 0 the session ended cleanly; 1 it could not start or its stream broke; 2 bad usage.");
  app.footer("Exit status 2 on bad usage.");
  try {
    app.parse(argc, argv);
    if (c->parsed()) {
      tools::check_print_options(*c, o.print);
      if (o.pid && !o.command.empty()) throw CLI::ValidationError("-p", "give -p PID or -- COMMAND, not both");
      for (const char* opt : {"--format", "--stats", "--report", "--filter", "--id", "--keywords", "--level", "--from", "--to", "--limit"})
        o.decode_asked |= c->count(opt) > 0;
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ps")) return tools::ps();
  return tools::collect(o);
}

}  // namespace

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-trace", run, argc, argv); }
