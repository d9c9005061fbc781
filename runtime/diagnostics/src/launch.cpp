// Launched (a child traced from its start), SessionStopper and TeeStream: clretw-trace collect's
// mechanics.
#include <cerrno>
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

Launched::Launched(Launched&& other) noexcept : port_(std::move(other.port_)), pid_(std::exchange(other.pid_, -1)) {}
Launched& Launched::operator=(Launched&& other) noexcept {
  if (this != &other) {
    kill();
    port_ = std::move(other.port_);
    pid_ = std::exchange(other.pid_, -1);
  }
  return *this;
}
Launched::~Launched() { kill(); }

Result<std::pair<ReversePort::Advertised, Client>> Launched::connect(std::chrono::milliseconds timeout) {
  auto accepted = port_->accept(timeout);
  if (!accepted) kill();
  return accepted;
}

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
int Launched::wait(bool) { return -1; }
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
  return Launched(std::move(*port), pid);
}

int Launched::wait(bool interrupt) {
  if (pid_ <= 0) return -1;
  const auto pid = static_cast<pid_t>(pid_);
  pid_ = -1;
  if (interrupt) ::kill(pid, SIGINT);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void Launched::kill() noexcept {
  if (pid_ <= 0) return;
  ::kill(static_cast<pid_t>(pid_), SIGKILL);
  wait();
}

#endif

SessionStopper::SessionStopper(Session& session, std::optional<std::chrono::milliseconds> duration,
                               const std::atomic<bool>* interrupted) {
  thread_ = std::thread([this, &session, duration, interrupted] {
    const auto start = std::chrono::steady_clock::now();
    while (!done_ && !(interrupted && *interrupted) && !(duration && std::chrono::steady_clock::now() - start >= *duration))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (done_) return;
    if (Status s = session.stop(); !s) error_ = s.error().message();
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
