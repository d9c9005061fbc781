// The Windows transport: the runtime's named pipe \\.\pipe\dotnet-diagnostic-{pid}, overlapped I/O
// for time-outs. Compile-checked with mingw-w64 in CI (.ci/run); not run there (no Windows).
#include <windows.h>

#include <string>

#include "transport.h"

namespace clretw::diagnostics {

namespace {

Error failed(const std::string& what) {
  return Error{Errc::connection_failed, 0, {}, what + ": Windows error " + std::to_string(::GetLastError())};
}

// Runs an overlapped ReadFile or WriteFile and waits for it; false on time-out (the I/O is cancelled).
Result<bool> overlapped(HANDLE pipe, bool write, void* buffer, DWORD n, std::optional<Millis> timeout, DWORD& done) {
  OVERLAPPED o{};
  o.hEvent = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (!o.hEvent) return failed("CreateEvent");
  const BOOL started = write ? ::WriteFile(pipe, buffer, n, nullptr, &o) : ::ReadFile(pipe, buffer, n, nullptr, &o);
  if (!started && ::GetLastError() != ERROR_IO_PENDING) {
    const DWORD e = ::GetLastError();
    ::CloseHandle(o.hEvent);
    if (e == ERROR_BROKEN_PIPE || e == ERROR_PIPE_NOT_CONNECTED) return done = 0, true;  // the peer closed
    ::SetLastError(e);
    return failed(write ? "WriteFile" : "ReadFile");
  }
  const DWORD waited = ::WaitForSingleObject(o.hEvent, timeout ? static_cast<DWORD>(timeout->count()) : INFINITE);
  if (waited == WAIT_TIMEOUT) {
    ::CancelIoEx(pipe, &o);
    ::GetOverlappedResult(pipe, &o, &done, TRUE);
    ::CloseHandle(o.hEvent);
    return false;
  }
  const BOOL ok = ::GetOverlappedResult(pipe, &o, &done, FALSE);
  const DWORD e = ::GetLastError();
  ::CloseHandle(o.hEvent);
  if (!ok) {
    if (e == ERROR_BROKEN_PIPE || e == ERROR_PIPE_NOT_CONNECTED) return done = 0, true;
    ::SetLastError(e);
    return failed(write ? "WriteFile" : "ReadFile");
  }
  return true;
}

}  // namespace

Connection::~Connection() {
  if (pipe_) ::CloseHandle(static_cast<HANDLE>(pipe_));
}

Result<std::unique_ptr<Connection>> Connection::connect(const std::string& path, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    HANDLE h = ::CreateFileA(path.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, FILE_FLAG_OVERLAPPED, nullptr);
    if (h != INVALID_HANDLE_VALUE) return std::make_unique<Connection>(static_cast<void*>(h));
    const DWORD e = ::GetLastError();
    const auto left = std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    if (e == ERROR_PIPE_BUSY && left.count() > 0 && ::WaitNamedPipeA(path.c_str(), static_cast<DWORD>(left.count()))) continue;
    if (e == ERROR_FILE_NOT_FOUND)
      return Error{Errc::connection_failed, 0, {}, "cannot connect to " + path + ": no such pipe (has the process exited?)"};
    ::SetLastError(e);
    return failed("cannot connect to " + path);
  }
}

Status Connection::write_all(Bytes bytes, Millis timeout) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    DWORD n = 0;
    auto ok = overlapped(static_cast<HANDLE>(pipe_), true, const_cast<std::uint8_t*>(bytes.data() + done),
                         static_cast<DWORD>(bytes.size() - done), timeout, n);
    if (!ok) return std::move(ok).error();
    if (!*ok) return Error{Errc::timed_out, 0, {}, "the runtime took no request bytes for " + std::to_string(timeout.count()) + " ms"};
    if (n == 0) return Error{Errc::connection_failed, 0, {}, "the runtime closed the pipe"};
    done += n;
  }
  return {};
}

Result<std::size_t> Connection::read_some(void* dst, std::size_t n, std::optional<Millis> timeout) {
  DWORD got = 0;
  auto ok = overlapped(static_cast<HANDLE>(pipe_), false, dst, static_cast<DWORD>(n), timeout, got);
  if (!ok) return std::move(ok).error();
  if (!*ok) return Error{Errc::timed_out, 0, {}, "the runtime sent nothing for " + std::to_string(timeout->count()) + " ms"};
  return static_cast<std::size_t>(got);
}

bool process_alive(std::uint32_t pid) {
  HANDLE h = ::OpenProcess(SYNCHRONIZE, FALSE, pid);
  if (!h) return ::GetLastError() == ERROR_ACCESS_DENIED;
  const bool running = ::WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  ::CloseHandle(h);
  return running;
}

std::vector<Endpoint> list_processes() {
  std::vector<Endpoint> out;
  WIN32_FIND_DATAA f;
  HANDLE h = ::FindFirstFileA("\\\\.\\pipe\\*", &f);
  if (h == INVALID_HANDLE_VALUE) return out;
  const std::string prefix = "dotnet-diagnostic-";
  do {
    const std::string name = f.cFileName;
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const auto pid = static_cast<std::uint32_t>(std::stoul(digits));
    if (process_alive(pid)) out.push_back({pid, "\\\\.\\pipe\\" + name});
  } while (::FindNextFileA(h, &f));
  ::FindClose(h);
  return out;
}

// ---- the reverse port: a pipe server the runtime connects to ------------------------------------

ReversePort::~ReversePort() = default;
ReversePort::ReversePort(ReversePort&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
ReversePort& ReversePort::operator=(ReversePort&& o) noexcept {
  fd_ = o.fd_;
  path_ = std::move(o.path_);
  o.fd_ = -1;
  return *this;
}

Result<ReversePort> ReversePort::listen(const std::string& path) {
  if (path.rfind("\\\\.\\pipe\\", 0) != 0)
    return Error{Errc::connection_failed, 0, {}, "a reverse port on Windows is a pipe name \\\\.\\pipe\\..., not " + path};
  return ReversePort(-1, path);  // each accept() creates the pipe instance the runtime connects to
}

Result<std::pair<ReversePort::Advertised, Client>> ReversePort::accept(std::chrono::milliseconds timeout) {
  HANDLE pipe = ::CreateNamedPipeA(path_.c_str(), PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED,
                                   PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, PIPE_UNLIMITED_INSTANCES, 65536, 65536, 0,
                                   nullptr);
  if (pipe == INVALID_HANDLE_VALUE) return failed("creating the pipe " + path_);
  auto c = std::make_unique<Connection>(static_cast<void*>(pipe));
  OVERLAPPED o{};
  o.hEvent = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (!::ConnectNamedPipe(pipe, &o)) {
    const DWORD e = ::GetLastError();
    if (e == ERROR_IO_PENDING) {
      if (::WaitForSingleObject(o.hEvent, static_cast<DWORD>(timeout.count())) == WAIT_TIMEOUT) {
        ::CancelIoEx(pipe, &o);
        ::CloseHandle(o.hEvent);
        return Error{Errc::timed_out, 0, {}, "no runtime connected to " + path_ + " within " + std::to_string(timeout.count()) + " ms"};
      }
    } else if (e != ERROR_PIPE_CONNECTED) {
      ::CloseHandle(o.hEvent);
      return failed("waiting on " + path_);
    }
  }
  ::CloseHandle(o.hEvent);
  std::uint8_t ad[detail::kAdvertiseSize];
  if (Status s = c->read_exact(ad, sizeof ad, timeout, "the runtime's advertisement"); !s) return std::move(s).error();
  auto parsed = detail::parse_advertisement(Bytes(ad, sizeof ad));
  if (!parsed) return std::move(parsed).error();
  Client client("\\\\.\\pipe\\dotnet-diagnostic-" + std::to_string(parsed->pid), std::chrono::seconds(5));
  client.pending_ = std::move(c);
  return std::make_pair(Advertised{parsed->runtime_cookie, parsed->pid}, std::move(client));
}

}  // namespace clretw::diagnostics
