// Internal: one connection to a runtime's diagnostic server (a Unix domain socket; on Windows a
// named pipe), with time-outs on every wait that may have one.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "clretw/bytes.h"
#include "clretw/diagnostics.h"
#include "clretw/result.h"
#include "ipc.h"

namespace clretw::diagnostics {

using Millis = std::chrono::milliseconds;

class Connection {
 public:
#if defined(_WIN32)
  explicit Connection(void* pipe) : pipe_(pipe) {}  // a HANDLE, opened for overlapped I/O
#else
  explicit Connection(int fd) : fd_(fd) {}
#endif
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects to a socket path. A path longer than sockaddr_un's sun_path is reached through its folder on Linux
  // (/proc/self/fd/N/NAME) and refused clearly elsewhere; ReversePort::listen does the same.
  static Result<std::unique_ptr<Connection>> connect(const std::string& path, Millis timeout);

  Status write_all(Bytes bytes, Millis timeout);
  // Up to n bytes; 0 when the peer closed. No time-out when `timeout` is empty.
  Result<std::size_t> read_some(void* dst, std::size_t n, std::optional<Millis> timeout);
  // Exactly n bytes; `what` names them in the error when the peer closes or is silent first.
  Status read_exact(void* dst, std::size_t n, Millis timeout, const char* what);

  // Sends one request and reads its answer (header and payload).
  Result<detail::Answer> transact(std::uint8_t command_set, std::uint8_t command_id, Bytes payload, Millis timeout,
                                  std::string_view command);

 private:
#if defined(_WIN32)
  void* pipe_ = nullptr;
#else
  int fd_ = -1;
#endif
};

// Whether a process runs (transport_*.cpp).
bool process_alive(std::uint32_t pid);

}  // namespace clretw::diagnostics
