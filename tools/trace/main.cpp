// clretw-trace: live EventPipe sessions with running .NET processes, in the manner of dotnet-trace.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clretw/describe.h"
#include "clretw/diagnostics.h"
#include "clretw/events.h"
#include "clretw/nettrace.h"
#include "clretw/open.h"
#include "common/event_printer.h"
#include "common/guarded_main.h"

namespace {

using namespace clretw;
namespace diag = clretw::diagnostics;
using Millis = std::chrono::milliseconds;

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

// "5s", "500ms", "2m", "1h", a bare number of seconds, or dotnet-trace's dd:hh:mm:ss.
std::optional<Millis> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text.find(':') != std::string::npos) {
    std::vector<long long> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t colon = std::min(text.find(':', start), text.size());
      const std::string piece = text.substr(start, colon - start);
      if (piece.empty() || piece.find_first_not_of("0123456789") != std::string::npos || piece.size() > 6) return std::nullopt;
      parts.push_back(std::stoll(piece));
      start = colon + 1;
    }
    if (parts.size() != 4) return std::nullopt;
    return Millis((((parts[0] * 24 + parts[1]) * 60 + parts[2]) * 60 + parts[3]) * 1000);
  }
  std::size_t digits = text.find_first_not_of("0123456789.");
  if (digits == 0) return std::nullopt;
  const std::string number = text.substr(0, digits), unit = digits == std::string::npos ? "s" : text.substr(digits);
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size()) return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
  const double scale = unit == "ms" ? 1 : unit == "s" ? 1e3 : unit == "m" ? 6e4 : unit == "h" ? 3.6e6 : -1;
  if (scale < 0 || value * scale > 1e12) return std::nullopt;
  return Millis(static_cast<long long>(value * scale));
}

// The session's bytes, copied to a file as they are read (-o with live decoding).
class TeeStream final : public nettrace::ByteStream {
 public:
  TeeStream(nettrace::ByteStream& in, std::FILE* out) : in_(in), out_(out) {}
  Result<std::size_t> read_some(void* dst, std::size_t n) override {
    auto got = in_.read_some(dst, n);
    if (got && *got && out_ && std::fwrite(dst, 1, *got, out_) != *got) return Error{Errc::io_error, 0, {}, "writing the trace file"};
    return got;
  }

 private:
  nettrace::ByteStream& in_;
  std::FILE* out_;
};

int ps() {
  const auto endpoints = diag::list_processes();
  std::printf("%8s  %-24s %-16s %s\n", "PID", "NAME", "RUNTIME", "COMMAND LINE");
  for (const diag::Endpoint& e : endpoints) {
    diag::Client client(e.address, std::chrono::seconds(2));
    auto info = client.process_info();
    if (!info) {
      std::printf("%8u  %-24s %-16s (%s)\n", e.pid, "?", "?", info.error().message().c_str());
      continue;
    }
    std::string name = info->entrypoint_assembly;
    if (name.empty()) {
      const std::string first = info->command_line.substr(0, info->command_line.find(' '));
      name = std::filesystem::path(first).filename().string();
    }
    std::printf("%8u  %-24s %-16s %s\n", e.pid, name.c_str(), info->clr_version.empty() ? "?" : info->clr_version.c_str(),
                info->command_line.c_str());
  }
  return 0;
}

struct CollectOptions {
  std::uint32_t pid = 0;
  std::string providers, profile, duration, output;
  std::uint32_t buffer_mb = 256;
  bool no_rundown = false, no_stacks = false, show_child_io = false;
  std::vector<std::string> command;
  tools::PrintOptions print;
  bool decode_asked = false;  // a decoding option was given
};

// A child started suspended on a reverse diagnostic port (-- COMMAND ARGS).
struct Child {
  pid_t pid = -1;
  int wait() const {
    int status = 0;
    if (pid > 0 && ::waitpid(pid, &status, 0) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return -1;
  }
};

Result<Child> spawn(const std::vector<std::string>& command, const std::string& port, bool show_io) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string env = port + ",suspend,connect";
  const pid_t pid = ::fork();
  if (pid < 0) return Error{Errc::io_error, 0, {}, std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    ::setenv("DOTNET_DiagnosticPorts", env.c_str(), 1);
    if (!show_io) {
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
    }
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "clretw-trace: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  return Child{pid};
}

int collect(CollectOptions& o) {
  // What to collect: a profile, then --providers over it (a provider named again replaces the profile's).
  diag::SessionOptions so;
  const std::string profile = o.profile.empty() && o.providers.empty() ? "cpu-sampling" : o.profile;
  if (!profile.empty()) {
    auto p = diag::profile(profile);
    if (!p) return std::cerr << "clretw-trace: --profile: " << p.error().detail << "\n", 2;
    so = std::move(*p);
  }
  so.buffer_mb = o.buffer_mb;
  so.stackwalk = !o.no_stacks;
  so.rundown = so.rundown && !o.no_rundown;
  if (!o.providers.empty()) {
    auto p = diag::parse_providers(o.providers);
    if (!p) return std::cerr << "clretw-trace: --providers: " << p.error().detail << "\n", 2;
    for (diag::Provider& q : *p) {
      std::erase_if(so.providers, [&](const diag::Provider& x) { return x.name == q.name; });
      so.providers.push_back(std::move(q));
    }
  }
  if (so.providers.empty()) return std::cerr << "clretw-trace: no providers: give --providers with --profile none\n", 2;
  std::optional<Millis> duration;
  if (!o.duration.empty() && !(duration = parse_duration(o.duration)))
    return std::cerr << "clretw-trace: --duration: '" << o.duration << "' is not a duration (5s, 500ms, 2m, 00:00:01:30)\n", 2;
  // Events are decoded to stdout without -o, or when a decoding option asks for them.
  const bool print = o.output.empty() || o.decode_asked;

  // The output file first: nothing is started that could not be written.
  std::FILE* file = nullptr;
  if (!o.output.empty() && !(file = std::fopen(o.output.c_str(), "wb")))
    return std::cerr << "clretw-trace: --output: cannot write " << o.output << ": " << std::strerror(errno) << "\n", 2;
  struct Closer {
    std::FILE*& f;
    ~Closer() {
      if (f) std::fclose(f);
    }
  } closer{file};
  std::optional<diag::ReversePort> port;
  Child child;
  std::optional<diag::Client> client;
  if (!o.command.empty()) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("clretw-trace-" + std::to_string(::getpid()) + "-port.sock")).string();
    auto listening = diag::ReversePort::listen(path);
    if (!listening) return std::cerr << "clretw-trace: " << listening.error().message() << "\n", 2;
    port.emplace(std::move(*listening));
    auto started = spawn(o.command, path, o.show_child_io);
    if (!started) return std::cerr << "clretw-trace: " << started.error().message() << "\n", 2;
    child = *started;
    auto accepted = port->accept(std::chrono::seconds(30));
    if (!accepted) {
      ::kill(child.pid, SIGKILL);
      child.wait();
      return std::cerr << "clretw-trace: " << accepted.error().message() << "\n", 1;
    }
    client.emplace(std::move(accepted->second));
    o.pid = static_cast<std::uint32_t>(accepted->first.pid);
  } else {
    if (o.pid == 0) return std::cerr << "clretw-trace: collect needs -p PID or -- COMMAND\n", 2;
    auto c = diag::Client::for_pid(o.pid);
    if (!c) return std::cerr << "clretw-trace: " << c.error().message() << "\n", 1;
    client.emplace(std::move(*c));
  }
  auto session = client->start_session(so);
  if (!session) {
    if (child.pid > 0) ::kill(child.pid, SIGKILL), child.wait();
    return std::cerr << "clretw-trace: " << session.error().message() << "\n", 1;
  }
  if (port) {  // the session is on: let the child's runtime start
    auto next = port->accept(std::chrono::seconds(30));
    Status resumed = next ? next->second.resume_runtime() : Status(std::move(next).error());
    if (!resumed) {
      ::kill(child.pid, SIGKILL);
      child.wait();
      return std::cerr << "clretw-trace: resuming the runtime: " << resumed.error().message() << "\n", 1;
    }
  }
  if (!o.print.no_progress && ::isatty(2))
    std::fprintf(stderr, "clretw-trace: session %llu with pid %u (CollectTracing%u)%s\n",
                 static_cast<unsigned long long>((*session)->id()), o.pid, (*session)->command(),
                 duration ? "" : "; Ctrl-C stops it");

  // Stop on --duration or Ctrl-C, from a thread of its own: the reader keeps draining the stream
  // (the rundown comes after StopTracing) until the runtime ends it.
  ::signal(SIGINT, on_interrupt);
  ::signal(SIGTERM, on_interrupt);
  std::atomic<bool> done{false};
  std::string stop_error;
  std::thread stopper([&] {
    const auto start = std::chrono::steady_clock::now();
    while (!done && !g_interrupted && !(duration && std::chrono::steady_clock::now() - start >= *duration))
      std::this_thread::sleep_for(Millis(20));
    if (done) return;
    if (Status s = (*session)->stop(); !s) stop_error = s.error().message();
  });

  TeeStream tee(**session, file);
  int status = 0;
  auto reader = nettrace::Reader::open_stream(tee);
  if (!reader) {
    std::cerr << "clretw-trace: the session's stream: " << reader.error().message() << "\n";
    status = 1;
  } else {  // without printing, read through all the same: progress shows, and damage is reported
    o.print.live = true;
    o.print.quiet = !print;
    NettraceSource source(**reader);
    status = tools::print_events(source, "pid " + std::to_string(o.pid), o.print, {&clretw::catalog()}, true, "clretw-trace");
  }
  done = true;
  stopper.join();
  if (file) std::fclose(file), file = nullptr;
  if (!stop_error.empty()) std::cerr << "clretw-trace: StopTracing: " << stop_error << "\n";
  if (!o.output.empty() && (!o.print.no_progress && ::isatty(2)))
    std::fprintf(stderr, "clretw-trace: %llu bytes written to %s\n", static_cast<unsigned long long>((*session)->bytes_read()),
                 o.output.c_str());
  if (child.pid > 0) {
    if (g_interrupted) ::kill(child.pid, SIGINT);
    child.wait();
  }
  return status;
}

int run(int argc, char** argv) {
  CLI::App app{
      "clretw-trace: live EventPipe sessions with running .NET processes, in the manner of dotnet-trace.\n"
      "Talks the runtime's diagnostics IPC protocol itself: no .NET needed on this side."};
  app.require_subcommand(1);
  app.add_subcommand("ps", "List the .NET processes that can be traced: pid, name, runtime version, command line");
  CollectOptions o;
  auto* c = app.add_subcommand("collect", "Trace a process to a .nettrace file, or decode its events live to stdout");
  c->add_option("-p,--process-id", o.pid, "The process to trace")->check(CLI::PositiveNumber);
  c->add_option("--providers", o.providers,
                "Providers, as dotnet-trace takes them: Name[:Keywords[:Level[:Key=Value;...]]], comma separated");
  std::string profiles;
  for (std::string_view p : diag::profile_names()) profiles += (profiles.empty() ? "" : ", ") + std::string(p);
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
      for (const char* opt : {"--format", "--stats", "--filter", "--id", "--keywords", "--level", "--from", "--to", "--limit"})
        o.decode_asked |= c->count(opt) > 0;
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ps")) return ps();
  return collect(o);
}

}  // namespace

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-trace", run, argc, argv); }
