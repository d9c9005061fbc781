#include "trace/collect.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "clretw/diagnostics.h"
#include "clretw/catalog.h"
#include "clretw/format.h"
#include "clretw/open.h"
#include "clretw/print.h"
#include "clretw/select.h"
#include "clretw/text.h"

#if !defined(_WIN32)
#include <poll.h>
#include <termios.h>
#endif

namespace clretw::tools {

namespace {

namespace diag = clretw::diagnostics;
namespace fs = std::filesystem;
using Millis = std::chrono::milliseconds;

// Set by Ctrl-C (SIGINT, SIGTERM), Enter at the terminal and the stopping event: the session is stopped.
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_stop{false};
std::atomic<bool> g_abandon{false};  // a second Ctrl-C: stop waiting for the runtime to end the stream
// The first Ctrl-C, or Enter, stops the session (the runtime still sends the rundown); the next
// Ctrl-C abandons it. Lock-free atomics only: called from the signal handler.
void request_stop() noexcept {
  if (g_interrupted.exchange(true)) g_abandon = true;
  g_stop = true;
}
extern "C" void on_interrupt(int) { request_stop(); }

#if defined(_WIN32)
// clretw-trace is POSIX only (docs/tools/clretw-trace.md); there, Enter would not be watched.
bool in_foreground(int) { return false; }
class EnterWatch {
 public:
  void finish() {}
};
#else
// Whether this process's group is the foreground one of the terminal `fd`: the one Ctrl-C and
// typed lines reach. A background job that read the terminal would be stopped (SIGTTIN).
bool in_foreground(int fd) { return ::isatty(fd) && ::tcgetpgrp(fd) == ::getpgrp(); }

// Enter at the terminal on standard input stops the session as the first Ctrl-C does, as in
// dotnet-trace. The terminal stays in its line mode: a line typed there (Enter alone, or text and
// Enter) is read and stops the session. Standard input is polled in steps of 100 ms, so finish()
// never waits on it, and read only while this process is in the terminal's foreground. What was
// typed before the watch began is discarded (Enter pressed while waiting for a runtime to connect
// does not stop the session the moment it starts). The watch ends at the first stop, whatever
// made it, and when the terminal goes away.
class EnterWatch {
 public:
  EnterWatch() {
    ::tcflush(0, TCIFLUSH);
    thread_ = std::thread([this] { run(); });
  }
  ~EnterWatch() { finish(); }
  EnterWatch(const EnterWatch&) = delete;
  EnterWatch& operator=(const EnterWatch&) = delete;
  void finish() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    const auto pause = [] { std::this_thread::sleep_for(Millis(100)); };
    while (!done_ && !g_stop) {
      pollfd in{0, POLLIN, 0};
      const int ready = ::poll(&in, 1, 100);
      if (ready < 0 && errno != EINTR) return;
      if (ready <= 0) continue;
      if (in.revents & (POLLERR | POLLHUP | POLLNVAL)) return;  // the terminal is gone
      if (!in_foreground(0)) {  // a background job: the line is the shell's
        pause();
        continue;
      }
      char line[256];
      const ssize_t got = ::read(0, line, sizeof line);
      if (got < 0 && errno != EINTR && errno != EAGAIN) return;
      if (got == 0) pause();  // Ctrl-D: not Enter
      if (got > 0 && std::string_view(line, static_cast<std::size_t>(got)).find_first_of("\r\n") != std::string_view::npos) {
        if (!g_stop) request_stop();
        return;
      }
    }
  }

  std::atomic<bool> done_{false};
  std::thread thread_;
};
#endif

std::string lower(std::string_view s) { return ascii_lower(s); }

void warn(const std::string& what) { std::cerr << "clretw-trace: " << what << "\n"; }

// The program's name as a user knows it: the entry assembly of `dotnet app.dll`, else the executable.
std::string program_name(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  const std::string exe = fs::path(argv[0]).filename().string();
  if ((exe == "dotnet" || exe == "dotnet.exe") && argv.size() > 1 && fs::path(argv[1]).extension() == ".dll")
    return fs::path(argv[1]).stem().string();
  return exe;
}

// A running process's command line (Linux: /proc), as words.
std::vector<std::string> process_argv(std::uint32_t pid) {
  std::vector<std::string> out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string word;
  while (std::getline(in, word, '\0')) out.push_back(word);
  return out;
}

std::string app_name_of(std::uint32_t pid) {
  std::string name = program_name(process_argv(pid));
  if (name.empty()) {  // no /proc: the runtime says
    if (auto client = diag::Client::for_pid(pid))
      if (auto info = client->process_info(); info && !info->entrypoint_assembly.empty()) name = info->entrypoint_assembly;
  }
  return name.empty() ? "Process" + std::to_string(pid) : name;
}

// dotnet-trace's default output: <app>_<yyyyMMdd>_<HHmmss>.nettrace, in local time.
std::string default_output(const std::string& app) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &local);
  return app + "_" + stamp + ".nettrace";
}

// The output file: checked before anything starts (so nothing starts that could not be written),
// truncated only once a session is on (an existing file survives a session that never started),
// and a file created here is removed again unless a session wrote to it.
class OutputFile {
 public:
  ~OutputFile() { discard(); }
  // Whether `path` can be written, without changing what it holds.
  Status check(const std::string& path) {
    std::error_code ec;
    const bool existed = fs::exists(path, ec);
    std::FILE* f = std::fopen(path.c_str(), "ab");
    if (!f) return Error{Errc::io_error, 0, {}, "cannot write " + path + ": " + std::strerror(errno)};
    struct stat st {};
    regular_ = ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode);  // /dev/null is written, never removed
    std::fclose(f);
    path_ = path;
    created_ = !existed;
    return {};
  }
  // The session is on: the file from its first byte.
  Status start() {
    if (!(file_ = std::fopen(path_.c_str(), "wb")))
      return Error{Errc::io_error, 0, {}, "cannot write " + path_ + ": " + std::strerror(errno)};
    started_ = true;
    return {};
  }
  std::FILE* get() const noexcept { return file_; }
  bool regular() const noexcept { return regular_; }
  bool close() {
    const bool ok = !file_ || std::fclose(file_) == 0;
    file_ = nullptr;
    return ok;
  }
  // Removes the file when this run created it and no session wrote to it, or when `even_started`.
  void discard(bool even_started = false) {
    close();
    if (regular_ && (created_ || started_) && (!started_ || even_started) && !path_.empty()) std::remove(path_.c_str());
    path_.clear();
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool regular_ = false, created_ = false, started_ = false;
};

// The event that stops the session (--stopping-event-*): a provider (exactly, case-insensitively),
// then an event name, then payload fields with these values. Watches the records as the printer
// reads them and stops the session at the first that matches.
class StoppingWatch final : public TraceSource {
 public:
  StoppingWatch(TraceSource& in, const CollectOptions& o, std::vector<std::pair<std::string, std::string>> payload)
      : in_(in), provider_(lower(o.stop_provider)), event_(o.stop_event), any_event_(o.stop_event.empty()), payload_(std::move(payload)),
        describer_({&clretw::catalog()}) {}
  Result<const EventRecord*> next() override {
    auto r = in_.next();
    if (r && *r && !fired_ && matches(**r)) {
      fired_ = true;
      std::cerr << "clretw-trace: the stopping event " << shown_ << " came: stopping the session\n";
      g_stop = true;
    }
    return r;
  }
  double milliseconds(std::int64_t t) const noexcept override { return in_.milliseconds(t); }
  std::uint64_t position() const noexcept override { return in_.position(); }
  std::uint64_t size() const noexcept override { return in_.size(); }
  std::string summary() const override { return in_.summary(); }
  SourceCounts counts() const override { return in_.counts(); }

 private:
  // Each top-level field as text (a value map's name, as TraceEvent shows it: Reason=Induced) and,
  // for integers, also as a number (Reason=1).
  struct Fields final : FieldVisitor {
    std::vector<std::pair<std::string, std::string>> values;
    int depth = 0;
    void scalar(const Scalar& v) override {
      if (depth) return;
      std::string text;
      format_value(v, text, Format::text);
      if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
      values.emplace_back(std::string(v.field->name), std::move(text));
      if (is_integer(v.type()))
        values.emplace_back(std::string(v.field->name),
                            is_signed(v.type()) ? std::to_string(v.as_int()) : std::to_string(v.as_uint()));
    }
    void begin_array(const FieldDesc&, std::uint64_t) override { ++depth; }
    void end_array(const FieldDesc&) override { --depth; }
  };
  static bool same_value(const std::string& a, const std::string& b) {
    if (a == b) return true;
    auto number = [](std::string_view t) -> std::optional<std::uint64_t> {
      int base = 10;
      if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2), base = 16;
      std::uint64_t v = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
      if (t.empty() || ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
      return v;
    };
    const auto x = number(a), y = number(b);
    return x && y && *x == *y;
  }
  bool matches(const EventRecord& r) {
    // The provider name first: cheap, and most events fail it.
    std::string_view provider = r.provider_name;
    if (provider.empty()) {
      if (const ProviderDesc* p = clretw::catalog().provider(r.provider_guid)) provider = p->name;
    }
    if (!equal_nocase(provider, provider_)) return false;  // per event: no allocation
    if (any_event_) return shown_ = std::string(provider), true;
    Fields fields;
    describer_.describe(r, described_, payload_.empty() ? nullptr : &fields);
    const std::string& name = described_.name;
    // The name as events print (Task/Opcode, e.g. GC/Start, as TraceEvent names it too) or the
    // symbol, read as clretw-dump --filter reads names.
    if (!event_.names_event(provider, name, described_.symbol)) return false;
    for (const auto& wanted : payload_) {
      const std::string &field = wanted.first, &value = wanted.second;
      const auto it = std::find_if(fields.values.begin(), fields.values.end(), [&](const auto& f) { return f.first == field; });
      const bool equal = std::any_of(fields.values.begin(), fields.values.end(),
                                     [&](const auto& f) { return f.first == field && same_value(f.second, value); });
      if (it == fields.values.end()) {
        if (!warned_) {
          std::string known;
          for (const auto& f : fields.values)
            if (known.find(f.first) == std::string::npos) known += (known.empty() ? "" : ", ") + f.first;
          warn("warning: the stopping event " + name + " has no field '" + field + "' (its fields: " + known +
               "): it cannot stop the session");
          warned_ = true;
        }
        return false;
      }
      if (!equal) return false;
    }
    shown_ = std::string(provider) + "/" + name;
    return true;
  }

  TraceSource& in_;
  std::string provider_;
  EventPattern event_;
  bool any_event_;
  std::vector<std::pair<std::string, std::string>> payload_;
  EventDescriber describer_;
  Described described_;
  std::string shown_;
  bool fired_ = false, warned_ = false;
};

// The process a name (-n) means: its entry assembly, its executable or its program name.
Result<std::uint32_t> find_by_name(const std::string& name) {
  std::vector<std::uint32_t> hits;
  const std::string want = lower(name);
  for (const diag::Endpoint& e : diag::list_processes()) {
    std::vector<std::string> names;
    const auto argv = process_argv(e.pid);
    names.push_back(program_name(argv));
    if (!argv.empty()) names.push_back(fs::path(argv[0]).filename().string());
    std::ifstream comm("/proc/" + std::to_string(e.pid) + "/comm");
    std::string c;
    if (std::getline(comm, c)) names.push_back(c);
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return !n.empty() && lower(n) == want; }))
      hits.push_back(e.pid);
  }
  if (hits.size() == 1) return hits[0];
  if (hits.empty())
    return Error{Errc::connection_failed, 0, {}, "no .NET process named '" + name + "' (clretw-trace ps lists them)"};
  std::string pids;
  for (std::uint32_t p : hits) pids += (pids.empty() ? "" : ", ") + std::to_string(p);
  return Error{Errc::connection_failed, 0, {}, std::to_string(hits.size()) + " .NET processes are named '" + name + "' (pids " + pids +
                                                   "): choose one with -p"};
}

// A converted trace's name, as dotnet-trace makes it: the extension replaced.
std::string converted_name(const std::string& path, const std::string& format) {
  return fs::path(path).replace_extension(format == "speedscope" ? ".speedscope.json" : ".chromium.json").string();
}

// Reads a trace file into `out` as one of the profile formats (print's --format speedscope|chromium, --top).
int write_profile(const std::string& input, PrintOptions p, std::ostream& out) {
  p.progress = true;
  p.tool = "clretw-trace";
  EventPrinter printer(p, {&clretw::catalog()}, out, std::cerr);
  return printer.print_file(input);
}

}  // namespace

std::optional<bool> parse_bool(const std::string& text) {
  const std::string t = lower(text);
  if (t.empty() || t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  return std::nullopt;
}

Result<Millis> parse_duration(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Error{Errc::bad_format, 0, {}, "'" + text + "' " + why + " (5s, 500ms, 2m, 1h, or dd:hh:mm:ss as dotnet-trace: 00:00:00:05)"};
  };
  if (text.empty()) return bad("is empty");
  if (text.find(':') != std::string::npos) {
    // dd:hh:mm:ss or hh:mm:ss, seconds possibly with a fraction.
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t colon = std::min(text.find(':', start), text.size());
      parts.push_back(text.substr(start, colon - start));
      start = colon + 1;
    }
    if (parts.size() != 3 && parts.size() != 4) return bad("is not dd:hh:mm:ss or hh:mm:ss");
    double total = 0;
    const double scale4[] = {86400, 3600, 60, 1}, *scale = scale4 + (4 - parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string& piece = parts[i];
      const bool last = i + 1 == parts.size();
      if (piece.empty() || piece.size() > 9 || piece.find_first_not_of(last ? "0123456789." : "0123456789") != std::string::npos)
        return bad("is not dd:hh:mm:ss or hh:mm:ss");
      total += std::stod(piece) * scale[i];
    }
    return Millis(static_cast<long long>(total * 1000 + 0.5));
  }
  const std::size_t digits = text.find_first_not_of("0123456789.");
  if (digits == 0) return bad("is not a duration");
  if (digits == std::string::npos)
    return bad("has no unit: write " + text + "s for seconds (dotnet-trace would read a bare " + text + " as " + text + " days)");
  const std::string number = text.substr(0, digits), unit = text.substr(digits);
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size()) return bad("is not a duration");
  } catch (...) {
    return bad("is not a duration");
  }
  const double scale = unit == "ms" ? 1 : unit == "s" ? 1e3 : unit == "m" ? 6e4 : unit == "h" ? 3.6e6 : -1;
  if (scale < 0) return bad("has an unknown unit '" + unit + "'");
  if (value * scale > 1e12) return bad("is too long");
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
      name = fs::path(first).filename().string();
    }
    std::printf("%8u  %-24s %-16s %s\n", e.pid, name.c_str(), info->clr_version.empty() ? "?" : info->clr_version.c_str(),
                info->command_line.c_str());
  }
  return 0;
}

int list_profiles() {
  std::printf("clretw-trace profiles (dotnet-trace 10's):\n");
  for (const diag::ProfileInfo& p : diag::profiles()) {
    std::string name(p.name);
    if (!p.verb.empty()) name += " (" + std::string(p.verb) + ")";
    std::string description(p.description);
    for (std::size_t at = 0; (at = description.find('\n', at)) != std::string::npos; at += 42) description.replace(at, 1, "\n" + std::string(41, ' '));
    std::printf("  %-37s- %s\n", name.c_str(), description.c_str());
    if (p.verb == "collect-linux") {
      std::printf("  %-37s  (not collected by clretw-trace: kernel events through perf_events)\n", "");
      continue;
    }
    std::string providers;
    for (const diag::Provider& q : p.providers) {
      char head[160];
      std::snprintf(head, sizeof head, "%s:0x%llX:%u", q.name.c_str(), static_cast<unsigned long long>(q.keywords), q.level);
      providers += (providers.empty() ? "" : ",") + std::string(head) + (q.arguments.empty() ? "" : ":FilterAndPayloadSpecs=...");
    }
    std::printf("  %-37s  --providers \"%s\"%s\n", "", providers.c_str(), p.rundown_keywords ? " (rundown: GC only)" : "");
  }
  return 0;
}

int collect(CollectOptions& o) {
  // What to collect, as dotnet-trace 10 would, with its notes (defaults, unknown providers) first.
  diag::SessionRequest request;
  request.profiles = o.profile;
  request.providers = o.providers;
  request.clrevents = o.clrevents;
  request.clreventlevel = o.clreventlevel;
  request.buffer_mb = o.buffer_mb;
  if (o.rundown != "unset") request.rundown = parse_bool(o.rundown);
  const std::string mode = lower(o.buffering_mode);
  request.buffering = mode == "block" || mode == "1" ? diag::BufferingMode::block : diag::BufferingMode::drop;
  auto plan = diag::plan_session(request, {&clretw::catalog()});
  if (!plan) return warn(plan.error().detail), 2;
  plan->options.stackwalk = !o.no_stacks;
  Millis duration{0};
  if (!o.duration.empty()) {
    auto d = parse_duration(o.duration);
    if (!d) return warn("--duration: " + d.error().detail), 2;
    duration = *d;
  }
  std::vector<std::pair<std::string, std::string>> payload_filter;
  if (!o.stop_payload.empty()) {
    std::size_t start = 0;
    while (start <= o.stop_payload.size()) {
      const std::size_t comma = std::min(o.stop_payload.find(',', start), o.stop_payload.size());
      const std::string pair = o.stop_payload.substr(start, comma - start);
      start = comma + 1;
      const std::size_t colon = pair.find(':');
      if (colon == std::string::npos || colon == 0 || pair.find(':', colon + 1) != std::string::npos)
        return warn("--stopping-event-payload-filter: '" + pair + "' is not field_name:value (pairs separated by commas)"), 2;
      payload_filter.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
    }
  }
  const bool resume = parse_bool(o.resume_runtime).value_or(true);
  for (const std::string& note : plan->notes) warn(note.starts_with("no catalog") || note.find("ignored") != std::string::npos ? "warning: " + note : note);

  // The target, and the name of the output before anything is started.
  std::string dport_path = o.dport;
  bool dport_connect = false;
  if (const std::size_t comma = dport_path.find(','); comma != std::string::npos) {
    const std::string mode_word = lower(dport_path.substr(comma + 1));
    if (mode_word != "connect" && mode_word != "listen")
      return warn("--dport: '" + o.dport + "' is PATH, PATH,listen or PATH,connect"), 2;
    dport_connect = mode_word == "connect";
    dport_path.resize(comma);
  }
  if (!o.name.empty()) {
    auto pid = find_by_name(o.name);
    if (!pid) return warn(pid.error().detail), 1;
    o.pid = *pid;
  }
  std::string app = !o.command.empty() ? program_name(o.command)
                    : o.pid          ? app_name_of(o.pid)
                                     : fs::path(dport_path).filename().string();
  const std::string output = o.output.empty() ? default_output(app) : o.output;
  OutputFile file;
  if (Status s = file.check(output); !s) return warn("--output: " + s.error().detail), 2;

  std::optional<diag::Launched> child;
  std::optional<diag::ReversePort> port;
  std::optional<diag::Client> client;
  ::signal(SIGINT, on_interrupt);
  ::signal(SIGTERM, on_interrupt);
  if (!o.command.empty()) {
    auto started = diag::Launched::launch(o.command, o.show_child_io);
    if (!started) return warn(started.error().detail), 1;
    child.emplace(std::move(*started));
    auto accepted = child->connect(std::chrono::seconds(30));
    if (!accepted) return warn(accepted.error().detail), 1;
    client.emplace(std::move(accepted->second));
    o.pid = static_cast<std::uint32_t>(accepted->first.pid);
  } else if (!dport_path.empty() && dport_connect) {
    client.emplace(dport_path);  // a runtime listening at that path (DOTNET_DiagnosticPorts=PATH,listen)
  } else if (!dport_path.empty()) {
    auto listening = diag::ReversePort::listen(dport_path);
    if (!listening) return warn("--dport: " + listening.error().message()), 1;
    port.emplace(std::move(*listening));
    std::cerr << "clretw-trace: waiting for a runtime to connect to " << dport_path << " (start it with DOTNET_DiagnosticPorts="
              << dport_path << "); Ctrl-C gives up\n";
    for (;;) {
      auto accepted = port->accept(Millis(200));
      if (accepted) {
        client.emplace(std::move(accepted->second));
        o.pid = static_cast<std::uint32_t>(accepted->first.pid);
        break;
      }
      if (accepted.error().code != Errc::timed_out) return warn("--dport: " + accepted.error().message()), 1;
      if (g_interrupted) return warn("no runtime connected; nothing was traced"), 1;
    }
  } else {
    auto c = diag::Client::for_pid(o.pid);
    if (!c) return warn(c.error().message()), 1;
    client.emplace(std::move(*c));
  }

  std::cerr << "\n" << diag::provider_table(*plan) << "\n";
  auto session = client->start_session(plan->options);
  if (!session) return warn(session.error().message()), 1;  // the file goes; a child is killed
  if (Status s = file.start(); !s) return warn("--output: " + s.error().detail), 1;
  if (resume && child) {  // the session is on: let the child's runtime start
    if (Status resumed = child->resume(std::chrono::seconds(30)); !resumed)
      return warn("resuming the runtime: " + resumed.error().message()), 1;
  } else if (resume && port) {
    auto next = port->accept(std::chrono::seconds(30));
    Status resumed = next ? next->second.resume_runtime() : Status(std::move(next).error());
    if (!resumed) return warn("resuming the runtime: " + resumed.error().message()), 1;
  } else if (resume && dport_connect) {
    // A runtime listening at a port of its own waits to be resumed unless told nosuspend; resuming
    // one that runs already changes nothing.
    if (Status resumed = diag::Client(dport_path).resume_runtime(); !resumed)
      warn("warning: resuming the runtime: " + resumed.error().message());
  }
  std::cerr << "Process        : " << (o.pid ? std::to_string(o.pid) + " (" + app + ")" : app) << "\n"
            << "Output File    : " << fs::absolute(output).string() << "\n";
  if (duration.count()) std::cerr << "Trace Duration : " << o.duration << "\n";
  if (o.verbose)
    std::cerr << "clretw-trace: session " << (*session)->id() << ", started with CollectTracing" << (*session)->command() << "\n";
  // Enter stops the session when standard input is the terminal this process is in the foreground
  // of, unless the program started with --show-child-io reads that terminal (dotnet-trace then
  // leaves the keys to the program too). Otherwise only Ctrl-C (or SIGTERM) does.
  const bool child_reads_terminal = child && o.show_child_io && ::isatty(0);
  const bool enter_stops = in_foreground(0) && !child_reads_terminal;
  if (enter_stops)
    std::cerr << "Press <Enter> or <Ctrl+C> to exit...\n";
  else if (in_foreground(0) || in_foreground(2))
    std::cerr << (child_reads_terminal ? "Ctrl-C stops the session and the program; Enter goes to the program (--show-child-io)"
                                       : "Ctrl-C stops the session")
              << "\n";

  // Stop on --duration, Ctrl-C, Enter or the stopping event, from a thread of its own: the reader
  // keeps draining the stream (the rundown comes after StopTracing) until the runtime ends it.
  diag::SessionStopper stopper(**session, duration.count() ? std::optional<Millis>(duration) : std::nullopt, &g_stop, &g_abandon);
  std::optional<EnterWatch> enter;
  if (enter_stops) enter.emplace();
  if (!resume && (child || port))
    warn("the runtime waits to be resumed (--resume-runtime false): its events come once something resumes it; a second\n"
         "Ctrl-C ends the session without its end");
  diag::TeeStream tee(**session, file.get());
  int status = 0;
  nettrace::ReaderOptions reader_options;
  if (o.print.print.report) {  // reports follow each process in time order, from the runtime's events
    reader_options.sorted = true;
    reader_options.keep = &RuntimeModel::wants;
  }
  std::uint64_t lost = 0;
  auto reader = nettrace::Reader::open_stream(tee, reader_options);
  if (!reader) {
    warn((*session)->bytes_read() ? "the session's stream: " + reader.error().message()
                                   : std::string("the runtime ended the session without sending any of it") +
                                         (resume ? "" : " (it was never resumed: --resume-runtime false)"));
    status = 1;
  } else {  // without printing, read through all the same: stopping events, lost events and damage
    PrintOptions& p = o.print.print;
    p.live = true;
    p.quiet = !o.decode_asked;
    p.tool = "clretw-trace";
    NettraceSource source(**reader);
    std::optional<StoppingWatch> watch;
    if (!o.stop_provider.empty()) watch.emplace(source, o, payload_filter);
    EventPrinter printer(p, {&clretw::catalog()});
    TraceSource& read = watch ? static_cast<TraceSource&>(*watch) : source;
    status = printer.print(read, "pid " + std::to_string(o.pid));
    status = std::max(status, printer.finish());
    // Printing may end before the stream (--limit): the session is stopped then, and the rest of
    // the stream, the rundown with it, still goes to the file.
    if (auto more = read.next(); more && *more) {
      g_stop = true;
      while ((more = read.next()) && *more) {
      }
      if (!more) warn("the session's stream: " + more.error().message()), status = std::max(status, 1);
    }
    lost = source.counts().lost_events;
  }
  if (enter) enter->finish();  // the stream has ended: Enter has nothing more to stop
  const std::string stop_error = stopper.finish();
  bool failed_here = !reader;  // as opposed to a stream cut by the process's end
  if (!file.close()) warn("writing " + output + ": " + std::strerror(errno)), status = std::max(status, 1), failed_here = true;
  if (!stop_error.empty()) warn("StopTracing: " + stop_error);
  if ((*session)->bytes_read() == 0) {
    file.discard(true);  // the runtime ended the session before its first byte: nothing to keep
    std::cerr << "clretw-trace: the runtime sent no trace; " << output << " is not written\n";
  } else {
    std::cerr << "Trace completed: " << (*session)->bytes_read() << " bytes written to " << output << "\n";
  }
  if (lost) {
    warn("warning: the runtime lost " + std::to_string(lost) + " events: its buffer (--buffersize " + std::to_string(o.buffer_mb) +
         " MB) filled faster than they were read; a larger buffer or fewer providers or keywords lose fewer" +
         (request.buffering == diag::BufferingMode::block ? "" : ", and --buffering-mode Block (.NET 11 and later) none"));
    if (request.buffering == diag::BufferingMode::block) status = std::max(status, 1), failed_here = true;  // a lossless session was asked for
  }
  // Conversions dotnet-trace makes beside the trace.
  const std::string format = lower(o.format);
  if ((format == "speedscope" || format == "chromium") && (*session)->bytes_read() && !file.regular()) {
    warn("--format " + o.format + ": " + output + " is not a file to convert; nothing else is written");
  } else if ((format == "speedscope" || format == "chromium") && (*session)->bytes_read()) {
    PrintOptions p;
    p.format = format == "speedscope" ? OutputFormat::speedscope : OutputFormat::chromium;
    const std::string converted = converted_name(output, format);
    std::ofstream out(converted, std::ios::binary);
    std::cerr << "clretw-trace: writing " << converted << "\n";
    if (!out || write_profile(output, p, out) > 1 || !out.flush())
      warn("cannot write " + converted), status = std::max(status, 1), failed_here = true;
  }
  if (child) {
    // A child that ended by itself gives its exit status, unless tracing failed here (the stream
    // of a process that crashed is cut where it died: the file holds everything up to there). One
    // still running when the session was stopped here is interrupted; the status is the session's.
    // A stream that broke while the program still runs is a failure here: the program is stopped.
    if (status != 0 && child->running()) failed_here = true;
    const bool stopped_here = stopper.stopped() || g_stop;
    const int code = child->wait(stopped_here || failed_here);
    if (!stopped_here && !failed_here && code >= 0) {
      if (status != 0) std::cerr << "clretw-trace: the trace ends where the program ended, without the end of its stream\n";
      if (code != 0 && !o.show_child_io)
        std::cerr << "clretw-trace: the program exited with code " << code << " (its output was hidden: --show-child-io shows it)\n";
      else
        std::cerr << "Process exited with code '" << code << "'.\n";
      status = code;
    }
  }
  return status;
}

int convert(const std::string& input, const std::string& format, const std::string& output) {
  const std::string f = lower(format);
  if (f == "nettrace") return std::cerr << "clretw-trace: convert: " << input << " is a nettrace file already\n", 0;
  PrintOptions p;
  p.format = f == "speedscope" ? OutputFormat::speedscope : OutputFormat::chromium;
  const std::string path = output.empty() ? converted_name(input, f) : converted_name(output, f);
  std::ofstream out(path, std::ios::binary);
  if (!out) return std::cerr << "clretw-trace: convert: cannot write " << path << ": " << std::strerror(errno) << "\n", 1;
  const int status = write_profile(input, p, out);
  out.flush();
  if (status > 1) std::remove(path.c_str());  // the input could not be opened: no file
  else std::cerr << "clretw-trace: wrote " << path << "\n";
  return status;
}

int report_top(const std::string& input, std::size_t n, bool inclusive) {
  PrintOptions p;
  p.top = n;
  p.top_inclusive = inclusive;
  return write_profile(input, p, std::cout);
}

}  // namespace clretw::tools
