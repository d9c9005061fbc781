// Launched (a child traced from its start), SessionStopper and TeeStream: clretw-trace collect's
// mechanics.
#include <cerrno>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "clretw/diagnostics.h"

#if !defined(_WIN32)
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace clretw::diagnostics {

Launched::Launched(Launched&& other) noexcept
    : port_(std::move(other.port_)), pid_(std::exchange(other.pid_, -1)), exit_status_(other.exit_status_),
      name_(std::move(other.name_)) {}
Launched& Launched::operator=(Launched&& other) noexcept {
  if (this != &other) {
    kill();
    port_ = std::move(other.port_);
    pid_ = std::exchange(other.pid_, -1);
    exit_status_ = other.exit_status_;
    name_ = std::move(other.name_);
  }
  return *this;
}
Launched::~Launched() { kill(); }

Status Launched::resume(std::chrono::milliseconds timeout) {
  auto next = port_->accept(timeout);
  Status resumed = next ? next->second.resume_runtime() : Status(std::move(next).error());
  if (!resumed) kill();
  return resumed;
}

#if defined(_WIN32)

Result<Launched> Launched::launch(const std::vector<std::string>&, bool) {
  return Error{Errc::io_error, 0, {}, "starting a program to trace is not implemented on Windows: trace it by its pid"};
}
Result<std::pair<ReversePort::Advertised, Client>> Launched::connect(std::chrono::milliseconds) {
  return Error{Errc::io_error, 0, {}, "starting a program to trace is not implemented on Windows"};
}
int Launched::wait(bool) { return -1; }
bool Launched::running() { return false; }
void Launched::kill() noexcept { pid_ = -1; }

#else

Result<Launched> Launched::launch(const std::vector<std::string>& command, bool show_io) {
  if (command.empty()) return Error{Errc::io_error, 0, {}, "no command to start"};
  static std::atomic<unsigned> launches{0};
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("clretw-trace-" + std::to_string(::getpid()) + "-" + std::to_string(launches++) + "-port.sock"))
                               .string();
  auto port = ReversePort::listen(path);
  if (!port) return std::move(port).error();
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string env = path + ",suspend,connect";
  // exec's failure comes back through a pipe that closes on a successful exec: the caller learns
  // at once, with the OS's reason, that the program could not be started.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return Error{Errc::io_error, 0, {}, std::string("pipe: ") + std::strerror(errno)};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]), ::close(report[1]);
    return Error{Errc::io_error, 0, {}, std::string("fork: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    ::close(report[0]);
    ::setenv("DOTNET_DiagnosticPorts", env.c_str(), 1);
    if (!show_io) {
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
      // A process group of its own: Ctrl-C at the terminal reaches the tracer alone, which stops the
      // session (the runtime still writes its rundown) and then interrupts the program (wait(true)).
      // Shown, the program keeps the terminal's group, to read it and take its Ctrl-C.
      ::setpgid(0, 0);
    }
    ::execvp(argv[0], argv.data());
    const int e = errno;
    [[maybe_unused]] const auto n = ::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(report[1]);
  int e = 0;
  ssize_t got;
  while ((got = ::read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  Launched child(std::move(*port), pid);
  if (got == static_cast<ssize_t>(sizeof e)) {
    child.wait();
    return Error{Errc::io_error, 0, {}, "cannot run '" + command[0] + "': " + std::strerror(e)};
  }
  child.name_ = command[0];
  return child;
}

Result<std::pair<ReversePort::Advertised, Client>> Launched::connect(std::chrono::milliseconds timeout) {
  // Waits in short steps, so that a program that ends before its runtime connects (not a .NET
  // program, or one that fails at once) is reported when it ends, not after the whole time-out.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto accepted = port_->accept(std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(100)));
    if (accepted || accepted.error().code != Errc::timed_out) {
      if (!accepted) kill();
      return accepted;
    }
    int status = 0;
    if (::waitpid(static_cast<pid_t>(pid_), &status, WNOHANG) == static_cast<pid_t>(pid_)) {
      pid_ = -1;
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return Error{Errc::connection_failed, 0, {},
                   "'" + name_ + "' ended (" +
                       (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                          : "signal " + std::to_string(WTERMSIG(status))) +
                       ") before its runtime connected: is it a .NET program (.NET 5 or later)?"};
    }
    if (left.count() <= 0) {
      kill();
      return Error{Errc::timed_out, 0, {},
                   "'" + name_ + "' is running, but no .NET runtime connected within " + std::to_string(timeout.count() / 1000) +
                       " s: is it a .NET program (.NET 5 or later), or does it start one?"};
    }
  }
}

int Launched::wait(bool interrupt) {
  if (pid_ <= 0) return exit_status_;
  const auto pid = static_cast<pid_t>(pid_);
  pid_ = -1;
  int status = 0;
  if (interrupt) {
    // SIGINT, and SIGKILL after a grace period: a runtime suspended at startup does not end on SIGINT.
    ::kill(pid, SIGINT);
    for (int waited = 0; ::waitpid(pid, &status, WNOHANG) == 0; waited += 20) {
      if (waited >= 10000) ::kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } else if (::waitpid(pid, &status, 0) != pid) {
    return -1;
  }
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_status_;
}

bool Launched::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(static_cast<pid_t>(pid_), &status, WNOHANG) != static_cast<pid_t>(pid_)) return true;
  pid_ = -1;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return false;
}

void Launched::kill() noexcept {
  if (pid_ <= 0) return;
  ::kill(static_cast<pid_t>(pid_), SIGKILL);
  wait();
}

#endif

SessionStopper::SessionStopper(Session& session, std::optional<std::chrono::milliseconds> duration,
                               const std::atomic<bool>* interrupted, const std::atomic<bool>* abandon) {
  thread_ = std::thread([this, &session, duration, interrupted, abandon] {
    const auto start = std::chrono::steady_clock::now();
    while (!done_ && !(interrupted && *interrupted) && !(duration && std::chrono::steady_clock::now() - start >= *duration))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (done_) return;
    stopped_ = true;
    if (Status s = session.stop(); !s) error_ = s.error().message();
    while (!done_ && abandon && !*abandon) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!done_) session.abandon();
  });
}

SessionStopper::~SessionStopper() { finish(); }

std::string SessionStopper::finish() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
  return error_;
}

Result<std::size_t> TeeStream::read_some(void* dst, std::size_t n) {
  auto got = in_.read_some(dst, n);
  if (got && *got && out_ && std::fwrite(dst, 1, *got, out_) != *got) return Error{Errc::io_error, 0, {}, "writing the trace file"};
  return got;
}

}  // namespace clretw::diagnostics
