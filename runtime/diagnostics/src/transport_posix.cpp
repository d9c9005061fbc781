// The POSIX transport: Unix domain sockets, poll() for time-outs.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "transport.h"

namespace clretw::diagnostics {

namespace {

Error failed(const std::string& what) {
  return Error{Errc::connection_failed, 0, {}, what + ": " + std::strerror(errno)};
}

// Waits until fd is ready for `events`; false on time-out.
Result<bool> wait(int fd, short events, std::optional<Millis> timeout) {
  pollfd p{fd, events, 0};
  const int ms = timeout ? static_cast<int>(timeout->count()) : -1;
  for (;;) {
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return failed("poll");
  }
}

// A socket's address. A path longer than sun_path allows is reached, on Linux, through its folder:
// the folder is opened and the socket named as /proc/self/fd/N/NAME, which the kernel resolves
// like the path itself (no chdir, so other threads are not disturbed). Elsewhere, or when the
// name alone is too long, the path is refused with the reason.
class SocketAddress {
 public:
  SocketAddress() = default;
  SocketAddress(const SocketAddress&) = delete;
  SocketAddress& operator=(const SocketAddress&) = delete;
  ~SocketAddress() {
    if (dir_ >= 0) ::close(dir_);
  }

  // `what` names the path in the refusal: "the socket path", "the port's path".
  Status set(const std::string& path, const char* what) {
    addr_.sun_family = AF_UNIX;
    if (path.size() < sizeof addr_.sun_path) return copy(path);
#if defined(__linux__)
    const std::size_t slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    dir_ = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir_ >= 0) {
      const std::string via = "/proc/self/fd/" + std::to_string(dir_) + "/" + path.substr(slash + 1);
      if (via.size() < sizeof addr_.sun_path) return copy(via);
    }
#endif
    return Error{Errc::connection_failed, 0, {},
                 std::string(what) + " is " + std::to_string(path.size()) + " bytes, longer than a Unix socket address allows (" +
                     std::to_string(sizeof addr_.sun_path - 1) + "): " + path};
  }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&addr_); }
  socklen_t size() const { return sizeof addr_; }

 private:
  Status copy(const std::string& p) {
    std::memcpy(addr_.sun_path, p.c_str(), p.size() + 1);
    return {};
  }
  sockaddr_un addr_{};
  int dir_ = -1;
};

}  // namespace

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<Connection>> Connection::connect(const std::string& path, Millis timeout) {
  SocketAddress addr;
  if (Status s = addr.set(path, "the socket path"); !s) return std::move(s).error();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("socket");
  auto c = std::make_unique<Connection>(fd);
  // A Unix socket connects at once or fails at once (ECONNREFUSED when nobody listens, ENOENT
  // when the process has gone); EAGAIN means a full backlog: retry until the time-out.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (::connect(fd, addr.get(), addr.size()) == 0) return c;
    if (errno == EINTR) continue;
    if (errno == EAGAIN && std::chrono::steady_clock::now() < deadline) {
      ::usleep(10'000);
      continue;
    }
    const int e = errno;
    std::string why = "cannot connect to " + path;
    if (e == ECONNREFUSED) why += ": nobody listens there (has the process exited?)";
    else if (e == ENOENT) why += ": no such socket (has the process exited?)";
    else why += std::string(": ") + std::strerror(e);
    return Error{Errc::connection_failed, 0, {}, why};
  }
}

Status Connection::write_all(Bytes bytes, Millis timeout) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto ready = wait(fd_, POLLOUT, timeout);
    if (!ready) return std::move(ready).error();
    if (!*ready) return Error{Errc::timed_out, 0, {}, "the runtime took no request bytes for " + std::to_string(timeout.count()) + " ms"};
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return failed("sending the request");
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<std::size_t> Connection::read_some(void* dst, std::size_t n, std::optional<Millis> timeout) {
  for (;;) {
    auto ready = wait(fd_, POLLIN, timeout);
    if (!ready) return std::move(ready).error();
    if (!*ready) return Error{Errc::timed_out, 0, {}, "the runtime sent nothing for " + std::to_string(timeout->count()) + " ms"};
    const ssize_t got = ::recv(fd_, dst, n, 0);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR || errno == EAGAIN) continue;
    if (errno == ECONNRESET) return Error{Errc::connection_failed, 0, {}, "the runtime closed the connection (reset)"};
    return failed("reading");
  }
}

bool process_alive(std::uint32_t pid) {
  return pid != 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// ---- the reverse port ------------------------------------------------------------------------

ReversePort::~ReversePort() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}
ReversePort::ReversePort(ReversePort&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
ReversePort& ReversePort::operator=(ReversePort&& o) noexcept {
  if (this != &o) {
    this->~ReversePort();
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

Result<ReversePort> ReversePort::listen(const std::string& path) {
  SocketAddress addr;
  if (Status s = addr.set(path, "the port's path"); !s) return std::move(s).error();
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return Error{Errc::connection_failed, 0, {}, path + " exists and is not a socket"};
    ::unlink(path.c_str());  // a stale port of an earlier run
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("socket");
  if (::bind(fd, addr.get(), addr.size()) != 0 || ::listen(fd, 8) != 0) {
    Error e = failed("listening on " + path);
    ::close(fd);
    return e;
  }
  return ReversePort(fd, path);
}

Result<std::pair<ReversePort::Advertised, Client>> ReversePort::accept(std::chrono::milliseconds timeout) {
  auto ready = wait(fd_, POLLIN, timeout);
  if (!ready) return std::move(ready).error();
  if (!*ready)
    return Error{Errc::timed_out, 0, {}, "no runtime connected to " + path_ + " within " + std::to_string(timeout.count()) + " ms"};
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return failed("accepting on " + path_);
  auto c = std::make_unique<Connection>(fd);
  std::uint8_t ad[detail::kAdvertiseSize];
  if (Status s = c->read_exact(ad, sizeof ad, timeout, "the runtime's advertisement"); !s) return std::move(s).error();
  auto parsed = detail::parse_advertisement(Bytes(ad, sizeof ad));
  if (!parsed) return std::move(parsed).error();
  // Later commands (StopTracing) go to the process's own socket, where it listens too.
  auto endpoint = find_process(static_cast<std::uint32_t>(parsed->pid));
  Client client(endpoint ? endpoint->address : std::string(), std::chrono::seconds(5));
  client.pending_ = std::move(c);
  return std::make_pair(Advertised{parsed->runtime_cookie, parsed->pid}, std::move(client));
}

}  // namespace clretw::diagnostics
