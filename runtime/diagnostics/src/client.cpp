// Finding processes, provider specifications, and the commands of the diagnostics protocol.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "transport.h"

namespace clretw::diagnostics {

namespace fs = std::filesystem;

namespace {

#if !defined(_WIN32)

// "dotnet-diagnostic-{pid}-{key}-socket" -> pid
std::optional<std::uint32_t> socket_pid(std::string_view name) {
  constexpr std::string_view prefix = "dotnet-diagnostic-", suffix = "-socket";
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return std::nullopt;
  const std::string_view middle = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  const std::size_t dash = middle.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == middle.size()) return std::nullopt;
  std::uint32_t pid = 0;
  auto [end, ec] = std::from_chars(middle.data(), middle.data() + dash, pid);
  if (ec != std::errc() || end != middle.data() + dash) return std::nullopt;
  for (char c : middle.substr(dash + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return pid;
}

std::string default_tmp() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

// The TMPDIR in a process's environment, where the runtime put its socket.
std::optional<std::string> process_tmpdir(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/environ", std::ios::binary);
  if (!in) return std::nullopt;
  std::string entry;
  while (std::getline(in, entry, '\0'))
    if (entry.rfind("TMPDIR=", 0) == 0 && entry.size() > 7) return entry.substr(7);
  return std::nullopt;
}

std::vector<std::string> search_dirs() {
  std::set<std::string> dirs{default_tmp()};
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    if (auto t = process_tmpdir(name)) dirs.insert(*t);
  }
  return {dirs.begin(), dirs.end()};
}

std::string searched() {
  std::string dirs;
  for (const std::string& d : search_dirs()) dirs += (dirs.empty() ? "" : ", ") + d;
  return dirs;
}
#endif

Error refused(std::string_view command, const detail::Answer& a) { return detail::answer_error(a, command); }

}  // namespace

#if !defined(_WIN32)
std::vector<Endpoint> list_processes() {
  struct Found {
    std::string path;
    fs::file_time_type time;
  };
  std::map<std::uint32_t, Found> newest;
  for (const std::string& dir : search_dirs()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto pid = socket_pid(it->path().filename().string());
      if (!pid || !it->is_socket(ec)) continue;
      const auto t = it->last_write_time(ec);
      auto [slot, fresh] = newest.try_emplace(*pid, Found{it->path().string(), t});
      if (!fresh && t > slot->second.time) slot->second = Found{it->path().string(), t};
    }
  }
  std::vector<Endpoint> out;
  for (const auto& [pid, f] : newest)
    if (process_alive(pid)) out.push_back({pid, f.path});
  return out;
}
#endif

Result<Endpoint> find_process(std::uint32_t pid) {
  for (Endpoint& e : list_processes())
    if (e.pid == pid) return std::move(e);
#if defined(_WIN32)
  const std::string what = "no diagnostic pipe \\\\.\\pipe\\dotnet-diagnostic-" + std::to_string(pid);
#else
  const std::string what = "no diagnostic socket dotnet-diagnostic-" + std::to_string(pid) +
                           "-*-socket of a running process in " + searched();
#endif
  return Error{Errc::connection_failed, 0, {},
               what + (process_alive(pid) ? " (is it a .NET process, with DOTNET_EnableDiagnostics not 0?)" : " (no such process)")};
}

unsigned collect_command_for(const SessionOptions& o) noexcept {
  if (o.buffering == BufferingMode::block) return 6;
  if (o.rundown_keywords) return 4;
  if (!o.stackwalk) return 3;
  return 2;
}

// ---- the client ----------------------------------------------------------------------------

Client::Client(std::string address, std::chrono::milliseconds timeout) : address_(std::move(address)), timeout_(timeout) {}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Result<Client> Client::for_pid(std::uint32_t pid, std::chrono::milliseconds timeout) {
  auto e = find_process(pid);
  if (!e) return std::move(e).error();
  return Client(e->address, timeout);
}

namespace {

// One command on a connection of its own (or the pending one a reverse port accepted).
Result<std::pair<detail::Answer, std::unique_ptr<Connection>>> run_command(const std::string& address,
                                                                          std::unique_ptr<Connection>& pending,
                                                                      std::uint8_t set, std::uint8_t id, Bytes payload,
                                                                      Millis timeout, std::string_view name) {
  std::unique_ptr<Connection> c;
  if (pending) {
    c = std::move(pending);
  } else {
    if (address.empty()) return Error{Errc::connection_failed, 0, {}, std::string(name) + ": no address to connect to"};
    auto made = Connection::connect(address, timeout);
    if (!made) return std::move(made).error();
    c = std::move(*made);
  }
  auto a = c->transact(set, id, payload, timeout, name);
  if (!a) return std::move(a).error();
  return std::make_pair(std::move(*a), std::move(c));
}

}  // namespace

Result<ProcessInfo> Client::process_info() {
  const std::pair<std::uint8_t, unsigned> versions[] = {{detail::kProcessInfo3, 3}, {detail::kProcessInfo2, 2},
                                                        {detail::kProcessInfo, 1}};
  for (const auto& [id, n] : versions) {
    const std::string name = n == 1 ? "ProcessInfo" : "ProcessInfo" + std::to_string(n);
    auto r = run_command(address_, pending_, detail::kSetProcess, id, {}, timeout_, name);
    if (!r) return std::move(r).error();
    const detail::Answer& a = r->first;
    if (a.ok()) return detail::parse_process_info(n, a.payload);
    if (a.error() && a.hresult() == detail::kUnknownCommand && n > 1 && !address_.empty()) continue;
    return refused(name, a);
  }
  return Error{Errc::command_failed, 0, {}, "ProcessInfo: no version of the command was answered"};
}

Status Client::resume_runtime() {
  auto r = run_command(address_, pending_, detail::kSetProcess, detail::kResumeRuntime, {}, timeout_, "ResumeRuntime");
  if (!r) return std::move(r).error();
  if (!r->first.ok()) return refused("ResumeRuntime", r->first);
  return {};
}

Result<std::unique_ptr<Session>> Client::start_session(const SessionOptions& o) {
  if (o.providers.empty()) return Error{Errc::bad_format, 0, {}, "a session needs at least one provider"};
  unsigned n = collect_command_for(o);
  for (;;) {
    const std::vector<std::uint8_t> payload = detail::collect_payload(n, o);
    const std::string name = "CollectTracing" + std::to_string(n);
    auto r = run_command(address_, pending_, detail::kSetEventPipe, static_cast<std::uint8_t>(detail::kCollectTracing + n - 1),
                     payload, timeout_, name);
    if (!r) return std::move(r).error();
    detail::Answer& a = r->first;
    if (a.ok()) {
      auto id = detail::parse_session_id(a.payload);
      if (!id) return std::move(id).error();
      return std::unique_ptr<Session>(new Session(std::move(r->second), address_, *id, n, timeout_));
    }
    // An older runtime: fall back while the lower command can still say what was asked.
    if (a.error() && a.hresult() == detail::kUnknownCommand && !address_.empty()) {
      if (n == 6) {
        Error e = refused(name, a);
        e.detail += " (the Block buffering mode needs .NET 11 or later: leave it out for the lossy circular buffer)";
        return e;
      }
      const bool plain_rundown = !o.rundown_keywords || *o.rundown_keywords == 0 ||
                                 *o.rundown_keywords == detail::kDefaultRundownKeywords;
      if (n == 4 && (plain_rundown || o.rundown_fallback != RundownFallback::fail)) {
        // A narrower rundown is not to be had: the standard one, or none, as the caller chose.
        if (!plain_rundown) {
          SessionOptions fallback = o;
          fallback.rundown_keywords.reset();
          fallback.rundown = o.rundown_fallback == RundownFallback::standard;
          return start_session(fallback);
        }
        n = o.stackwalk ? 2 : 3;
        continue;
      }
      if (n >= 3) {
        Error e = refused(name, a);
        e.detail += n == 4 ? " (a rundown keyword mask needs .NET 9 or later)" : " (turning stacks off needs .NET 5 or later)";
        return e;
      }
    }
    return refused(name, a);
  }
}

// ---- the session ---------------------------------------------------------------------------

Session::Session(std::unique_ptr<Connection> stream, std::string address, std::uint64_t id, unsigned command,
                 std::chrono::milliseconds timeout)
    : stream_(std::move(stream)), address_(std::move(address)), id_(id), command_(command), timeout_(timeout) {}

Session::~Session() = default;

Result<std::size_t> Session::read_some(void* dst, std::size_t n) {
  // In steps, so that abandon() from another thread ends a wait for a runtime that sends nothing.
  for (;;) {
    auto got = stream_->read_some(dst, n, std::chrono::milliseconds(200));
    if (got) {
      bytes_ += *got;
      return got;
    }
    if (got.error().code != Errc::timed_out) return got;
    if (abandoned_)
      return Error{Errc::io_error, bytes_, {}, "the session was abandoned before the runtime ended its stream"};
  }
}

Status Session::stop() {
  if (stopped_) return {};
  stopped_ = true;
  detail::PayloadWriter w;
  w.u64(id_);
  std::unique_ptr<Connection> none;
  auto r = run_command(address_, none, detail::kSetEventPipe, detail::kStopTracing, w.bytes(), timeout_, "StopTracing");
  if (!r) return std::move(r).error();
  if (!r->first.ok()) return refused("StopTracing", r->first);
  return {};
}

}  // namespace clretw::diagnostics
