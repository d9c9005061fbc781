// clretw/diagnostics.h - live sessions: the .NET diagnostics IPC protocol.
//
//   auto client = clretw::diagnostics::Client::for_pid(pid);          // the process's socket
//   auto info = client->process_info();                               // command line, runtime version
//   clretw::diagnostics::SessionOptions o;
//   o.providers = *clretw::diagnostics::parse_providers("Microsoft-Windows-DotNETRuntime:0x1:4");
//   auto session = client->start_session(o);                          // CollectTracing2..5
//   auto reader = clretw::nettrace::Reader::open_stream(**session);   // events as they come
//   ... (*reader)->next() ...; from another thread: (*session)->stop();
//
// Standard library plus POSIX sockets (Unix domain sockets). Every message is bounds-checked;
// every wait has a time-out except reading the event stream, which ends when the runtime
// closes it (after StopTracing, or when the process exits).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "clretw/guid.h"
#include "clretw/nettrace.h"
#include "clretw/result.h"
#include "clretw/schema.h"

namespace clretw::diagnostics {

// A process's diagnostic endpoint: dotnet-diagnostic-{pid}-{key}-socket.
struct Endpoint {
  std::uint32_t pid = 0;
  std::string address;  // the socket's path
};

// Every .NET process whose diagnostic socket this user can see, by pid: in $TMPDIR (or /tmp)
// and in each process's own TMPDIR (from /proc/{pid}/environ). Where a pid has several
// sockets, the newest. Sockets of processes that have exited are left out.
std::vector<Endpoint> list_processes();
// The endpoint of one process; an error naming the directories searched when there is none.
Result<Endpoint> find_process(std::uint32_t pid);

struct ProcessInfo {
  std::uint64_t pid = 0;
  Guid runtime_cookie;
  std::string command_line, os, arch;
  std::string entrypoint_assembly, clr_version;  // ProcessInfo2 and later
  std::string runtime_identifier;                // ProcessInfo3
  unsigned command = 0;                          // 3, 2 or 1: the ProcessInfo that answered
};

struct Provider {
  std::string name;
  std::uint64_t keywords = ~0ull;
  std::uint32_t level = 4;
  std::string arguments;  // "Key=Value;Key=Value" (EventSource filter arguments)
  friend bool operator==(const Provider&, const Provider&) = default;
};

// dotnet-trace's syntax: "Name[:Keywords[:Level[:Key=Value;...]]]", comma separated. Keywords are
// a hex mask (0x optional), empty or * for all, or, beyond dotnet-trace, keyword names joined by
// '+' or '|' ("GC+Exception", "GCKeyword|JitKeyword"), looked up case-insensitively in the first
// of `catalogs` that defines the provider (with or without the "Keyword" suffix). Levels are 0-5
// (higher numbers mean verbose, as dotnet-trace reads them) or a name (logalways, critical ...
// verbose); the default is informational (4), as dotnet-trace's.
Result<std::vector<Provider>> parse_providers(std::string_view spec, const std::vector<const Catalog*>& catalogs = {});

// How the runtime buffers a session's events when the reader falls behind.
enum class BufferingMode : std::uint8_t {
  drop,   // the circular buffer drops events (lossy; every runtime)
  block   // the runtime's threads wait for the reader (lossless; CollectTracing6, .NET 11 and later)
};
// When a runtime refuses a custom rundown keyword mask (runtimes before .NET 9): fail, retry with
// the standard rundown, or retry with none.
enum class RundownFallback : std::uint8_t { fail, standard, none };

struct SessionOptions {
  std::vector<Provider> providers;
  std::uint32_t buffer_mb = 256;
  bool rundown = true;                             // method and module rundown when the session stops
  std::optional<std::uint64_t> rundown_keywords;   // a rundown keyword mask (runtimes of .NET 9 and later)
  RundownFallback rundown_fallback = RundownFallback::fail;
  bool stackwalk = true;                           // a stack with each event
  BufferingMode buffering = BufferingMode::drop;
};

// dotnet-trace 10's profiles, as `dotnet-trace list-profiles` lists them: dotnet-common,
// dotnet-sampled-thread-time, gc-verbose, gc-collect, database (for collect), cpu-sampling and
// thread-time (for dotnet-trace's collect-linux: kernel events through perf, which clretw-trace
// does not collect).
struct ProfileInfo {
  std::string_view name{};
  std::string_view description{};
  std::vector<Provider> providers{};
  std::uint64_t rundown_keywords = 0;  // a narrower rundown than the standard one (gc-collect: GC only); 0: standard
  RundownFallback fallback = RundownFallback::fail;  // when the runtime refuses that mask
  std::string_view verb{};             // the one command it is for ("collect", "collect-linux"); empty: any
};
const std::vector<ProfileInfo>& profiles();
// One profile by name (case-insensitive), or an error naming the profiles.
Result<SessionOptions> profile(std::string_view name);
// The profile names, for --help.
std::vector<std::string_view> profile_names();

// What a session of dotnet-trace's options asks for: --profile (comma-separated), --providers,
// --clrevents/--clreventlevel and --rundown, combined as dotnet-trace 10 combines them, except
// that several profiles naming one provider are a union (their keywords or'ed, the most verbose
// level), where dotnet-trace keeps the first profile's.
struct SessionRequest {
  std::string profiles;                  // "gc-verbose,database"; empty with nothing else: dotnet-common + dotnet-sampled-thread-time
  std::string providers;                 // parse_providers(); a provider named here replaces a profile's
  std::string clrevents, clreventlevel;  // "gc+jit", "5": Microsoft-Windows-DotNETRuntime, unless named already
  std::optional<bool> rundown;           // --rundown true|false; unset: as the profiles say
  std::uint32_t buffer_mb = 256;
  BufferingMode buffering = BufferingMode::drop;
  std::string_view verb = "collect";     // profiles for another command are refused
};
enum EnabledBy : unsigned { by_providers = 1, by_clrevents = 2, by_profile = 4 };
struct SessionPlan {
  SessionOptions options;
  std::vector<unsigned> enabled_by;   // per options.providers: EnabledBy bits
  std::vector<std::string> notes;     // what the user should know: defaults taken, options ignored, unknown providers
};
// `catalogs` resolve keyword names and tell known providers from unknown ones (a provider no
// catalog and no well-known EventSource name is noted, with the nearest known names).
Result<SessionPlan> plan_session(const SessionRequest& request, const std::vector<const Catalog*>& catalogs = {});
// dotnet-trace's table of a plan: "Provider Name  Keywords  Level  Enabled By", one line per provider.
std::string provider_table(const SessionPlan& plan);
// dotnet-trace's --clrevents names (gc, gchandle, loader, jit, exception ...): the runtime
// provider's keywords without their "Keyword" suffix, and dotnet-trace's aliases.
std::optional<std::uint64_t> clr_keyword(std::string_view name, const std::vector<const Catalog*>& catalogs = {});
// Known provider names (of `catalogs` and well-known EventSources) nearest to `name`, best first.
std::vector<std::string> nearest_providers(std::string_view name, const std::vector<const Catalog*>& catalogs, std::size_t n = 3);

// The lowest CollectTracing command (2..5, as the command id's suffix) that can express `o`.
unsigned collect_command_for(const SessionOptions& o) noexcept;

// The text of a diagnostics HRESULT.
std::string hresult_message(std::uint32_t hresult);

class Connection;

// A live EventPipe session: its nettrace stream, read as a ByteStream.
class Session final : public nettrace::ByteStream {
 public:
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::uint64_t id() const noexcept { return id_; }
  unsigned command() const noexcept { return command_; }  // the CollectTracing that started it (2..5)
  std::uint64_t bytes_read() const noexcept { return bytes_; }

  Result<std::size_t> read_some(void* dst, std::size_t n) override;
  // Sends StopTracing on a new connection (the runtime ignores it on the streaming one). The
  // runtime then writes the rundown and ends the stream: keep reading to the end. Safe to call
  // from another thread while one reads; a second call does nothing.
  Status stop();
  // Ends the reading (read_some() fails within 200 ms) without waiting for the runtime to end the
  // stream: for a runtime that cannot (one suspended at startup, never resumed). From any thread.
  void abandon() noexcept { abandoned_ = true; }

 private:
  friend class Client;
  Session(std::unique_ptr<Connection> stream, std::string address, std::uint64_t id, unsigned command,
          std::chrono::milliseconds timeout);
  std::unique_ptr<Connection> stream_;
  std::string address_;
  std::uint64_t id_ = 0;
  unsigned command_ = 0;
  std::chrono::milliseconds timeout_;
  std::uint64_t bytes_ = 0;
  bool stopped_ = false;
  std::atomic<bool> abandoned_{false};
};

class Client {
 public:
  explicit Client(std::string address, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  static Result<Client> for_pid(std::uint32_t pid, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  const std::string& address() const noexcept { return address_; }

  // ProcessInfo3, else 2, else 1 (older runtimes answer "unknown command").
  Result<ProcessInfo> process_info();
  // Lets a runtime started with DOTNET_DiagnosticPorts=...,suspend go on.
  Status resume_runtime();
  // CollectTracing as collect_command_for() chooses it, falling back to lower ones (where they can
  // still express the request) when the runtime does not know the command.
  Result<std::unique_ptr<Session>> start_session(const SessionOptions& options);

 private:
  friend class ReversePort;
  std::string address_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Connection> pending_;  // a connection the runtime opened (reverse port), used once
};

// A reverse diagnostic port: start a child with DOTNET_DiagnosticPorts=<path>,suspend,connect; it
// connects here and advertises itself; start a session on that connection, then resume it.
class ReversePort {
 public:
  ~ReversePort();
  ReversePort(ReversePort&&) noexcept;
  ReversePort& operator=(ReversePort&&) noexcept;
  static Result<ReversePort> listen(const std::string& path);
  const std::string& path() const noexcept { return path_; }

  struct Advertised {
    Guid runtime_cookie;
    std::uint64_t pid = 0;
  };
  // Waits for the runtime's next connection and its ADVR_V1 advertisement; the returned client
  // sends its first command on that connection. (Each command takes a connection of its own.)
  Result<std::pair<Advertised, Client>> accept(std::chrono::milliseconds timeout);

 private:
  ReversePort(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// --- clretw-trace's mechanics, for any tracer -------------------------------------

// A program started to be traced from its first instruction: its runtime connects to a reverse
// diagnostic port (DOTNET_DiagnosticPorts=PORT,suspend,connect) and waits there until a session is
// on and resume() lets it go:
//   auto child = Launched::launch({"dotnet", "app.dll"}, false);
//   auto first = child->connect(std::chrono::seconds(30));     // (advertised pid, client)
//   auto session = first->second.start_session(options);
//   child->resume(std::chrono::seconds(30));
//   ... read the session ...; child->wait();
// POSIX (fork and exec); on Windows launch() returns an error.
class Launched {
 public:
  // Listens on a port in the temporary directory and starts `command` (its first word looked up
  // on PATH) with the port in its environment; the child's standard streams go to /dev/null, and
  // it gets a process group of its own (the terminal's Ctrl-C does not reach it), unless `show_io`.
  // A program that cannot be started is an error at once, with the OS's reason.
  static Result<Launched> launch(const std::vector<std::string>& command, bool show_io);
  ~Launched();  // a child not waited for is killed
  Launched(Launched&&) noexcept;
  Launched& operator=(Launched&&) noexcept;

  // The runtime's first connection: the process it advertises and a client whose first command
  // (start_session) goes on that connection. A child that ends first is an error when it ends
  // (wait() then gives its status); on a time-out the child is killed.
  Result<std::pair<ReversePort::Advertised, Client>> connect(std::chrono::milliseconds timeout);
  // Once the session is on: the runtime's next connection, and ResumeRuntime on it. On failure
  // the child is killed.
  Status resume(std::chrono::milliseconds timeout);
  // Waits for the child to end, sending it SIGINT first when `interrupt` (and SIGKILL when it has
  // not ended 10 s later): its exit status, 128 +
  // the signal that ended it (also when it ended already and was waited for), or -1.
  int wait(bool interrupt = false);
  void kill() noexcept;  // SIGKILL, and waits
  // Whether the child still runs (one that has ended is waited for: wait() gives its status).
  bool running();
  long pid() const noexcept { return pid_; }

 private:
  Launched(ReversePort port, long pid) : port_(std::move(port)), pid_(pid) {}
  std::optional<ReversePort> port_;
  long pid_ = -1;
  int exit_status_ = -1;  // once waited for
  std::string name_;      // the program, for messages
};

// Stops a session (StopTracing) from a thread of its own after `duration`, or once `*interrupted`
// is set (a signal handler's flag), whichever comes first; the reader goes on draining the stream
// (the rundown comes after StopTracing) until the runtime ends it. Once `*abandon` is set too (a
// second Ctrl-C), the session is abandoned (Session::abandon()).
class SessionStopper {
 public:
  SessionStopper(Session& session, std::optional<std::chrono::milliseconds> duration, const std::atomic<bool>* interrupted,
                 const std::atomic<bool>* abandon = nullptr);
  ~SessionStopper();
  SessionStopper(const SessionStopper&) = delete;
  SessionStopper& operator=(const SessionStopper&) = delete;
  // Ends the thread (the session is not stopped when it has not been yet: it ended by itself):
  // StopTracing's error, or "" when it did not fail.
  std::string finish();
  // Whether it stopped the session (the duration passed, or the flag was set), as opposed to the
  // runtime ending it.
  bool stopped() const noexcept { return stopped_; }

 private:
  std::atomic<bool> done_{false}, stopped_{false};
  std::string error_;
  std::thread thread_;
};

// A stream's bytes, also written to `out` as they are read (a live session decoded and saved at
// once); `out` null: passed through only. A failed write is an io_error.
class TeeStream final : public nettrace::ByteStream {
 public:
  TeeStream(nettrace::ByteStream& in, std::FILE* out) : in_(in), out_(out) {}
  Result<std::size_t> read_some(void* dst, std::size_t n) override;

 private:
  nettrace::ByteStream& in_;
  std::FILE* out_;
};

}  // namespace clretw::diagnostics
