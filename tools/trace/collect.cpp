#include "trace/collect.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "clretw/diagnostics.h"
#include "clretw/events.h"
#include "clretw/open.h"
#include "clretw/print.h"

namespace clretw::tools {

namespace {

namespace diag = clretw::diagnostics;
using Millis = std::chrono::milliseconds;

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

}  // namespace

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
  std::optional<diag::Launched> child;
  std::optional<diag::Client> client;
  if (!o.command.empty()) {
    auto started = diag::Launched::launch(o.command, o.show_child_io);
    if (!started) return std::cerr << "clretw-trace: " << started.error().message() << "\n", 2;
    child.emplace(std::move(*started));
    auto accepted = child->connect(std::chrono::seconds(30));
    if (!accepted) return std::cerr << "clretw-trace: " << accepted.error().message() << "\n", 1;
    client.emplace(std::move(accepted->second));
    o.pid = static_cast<std::uint32_t>(accepted->first.pid);
  } else {
    if (o.pid == 0) return std::cerr << "clretw-trace: collect needs -p PID or -- COMMAND\n", 2;
    auto c = diag::Client::for_pid(o.pid);
    if (!c) return std::cerr << "clretw-trace: " << c.error().message() << "\n", 1;
    client.emplace(std::move(*c));
  }
  auto session = client->start_session(so);
  if (!session) return std::cerr << "clretw-trace: " << session.error().message() << "\n", 1;  // (a child is killed)
  if (child) {  // the session is on: let the child's runtime start
    if (Status resumed = child->resume(std::chrono::seconds(30)); !resumed)
      return std::cerr << "clretw-trace: resuming the runtime: " << resumed.error().message() << "\n", 1;
  }
  const bool terminal = o.print.print.progress && ::isatty(2);
  if (terminal)
    std::fprintf(stderr, "clretw-trace: session %llu with pid %u (CollectTracing%u)%s\n",
                 static_cast<unsigned long long>((*session)->id()), o.pid, (*session)->command(),
                 duration ? "" : "; Ctrl-C stops it");

  // Stop on --duration or Ctrl-C, from a thread of its own: the reader keeps draining the stream
  // (the rundown comes after StopTracing) until the runtime ends it.
  ::signal(SIGINT, on_interrupt);
  ::signal(SIGTERM, on_interrupt);
  diag::SessionStopper stopper(**session, duration, &g_interrupted);
  diag::TeeStream tee(**session, file);
  int status = 0;
  nettrace::ReaderOptions reader_options;
  if (o.print.print.report) {  // reports follow each process in time order, from the runtime's events
    reader_options.sorted = true;
    reader_options.keep = &RuntimeModel::wants;
  }
  auto reader = nettrace::Reader::open_stream(tee, reader_options);
  if (!reader) {
    std::cerr << "clretw-trace: the session's stream: " << reader.error().message() << "\n";
    status = 1;
  } else {  // without printing, read through all the same: progress shows, and damage is reported
    PrintOptions& p = o.print.print;
    p.live = true;
    p.quiet = !print;
    p.tool = "clretw-trace";
    NettraceSource source(**reader);
    EventPrinter printer(p, {&clretw::catalog()});
    status = printer.print(source, "pid " + std::to_string(o.pid));
    status = std::max(status, printer.finish());
  }
  const std::string stop_error = stopper.finish();
  if (file) std::fclose(file), file = nullptr;
  if (!stop_error.empty()) std::cerr << "clretw-trace: StopTracing: " << stop_error << "\n";
  if (!o.output.empty() && terminal)
    std::fprintf(stderr, "clretw-trace: %llu bytes written to %s\n", static_cast<unsigned long long>((*session)->bytes_read()),
                 o.output.c_str());
  if (child) child->wait(g_interrupted);
  return status;
}

}  // namespace clretw::tools
