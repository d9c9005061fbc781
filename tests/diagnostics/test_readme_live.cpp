// docs/LIBRARY.md's live-session example, compiled and run against a fake runtime that serves a
// session's stream of GCStart events and ends it when StopTracing comes. tests/docs/test_doc_examples.cpp
// checks that the block between the markers is, byte for byte, a ```cpp block of docs/LIBRARY.md.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "../../runtime/diagnostics/src/ipc.h"
#include "clretw/events.h"

// --- docs/LIBRARY.md example begins --------------------------------------------------
#include <clretw/diagnostics.h>  // Client, Session, SessionOptions
#include <clretw/dispatch.h>     // Dispatcher
#include <clretw/events.h>       // the built-in decoders
#include <clretw/nettrace.h>     // nettrace::Reader
#include <thread>

namespace rt = clretw::dotnet_runtime;
namespace diag = clretw::diagnostics;

// Prints the GCs of a running process as they happen, for `duration`.
int watch_gcs(diag::Client& client, std::chrono::milliseconds duration, std::string& out) {
  diag::SessionOptions options;
  options.providers = {{"Microsoft-Windows-DotNETRuntime", /*GC keyword*/ 0x1, /*informational*/ 4, {}}};
  auto session = client.start_session(options);
  if (!session) return std::fprintf(stderr, "%s\n", session.error().message().c_str()), 1;
  // StopTracing from another thread; the runtime then sends the rundown and ends the stream.
  std::thread stopper([&] {
    std::this_thread::sleep_for(duration);
    (void)(*session)->stop();
  });
  clretw::Dispatcher dispatch({&clretw::catalog()});
  dispatch.on<rt::GCStart>([&](const rt::GCStartView& gc, const clretw::EventRecord&) {
    out += "GC #" + std::to_string(gc.Count()) + " " + std::string(rt::to_string(gc.Reason())) + "\n";
  });
  int status = 0;
  auto reader = clretw::nettrace::Reader::open_stream(**session);
  for (status = reader ? 0 : 1; reader;) {
    auto next = (*reader)->next();  // blocks until the runtime sends the next block
    if (!next) {
      std::fprintf(stderr, "%s\n", next.error().message().c_str());
      status = 1;
      break;
    }
    if (!*next) break;  // the stream's end
    dispatch.dispatch(**next);
  }
  stopper.join();
  return status;
}
// In a program: auto client = diag::Client::for_pid(pid); watch_gcs(*client, std::chrono::seconds(5), text);
// --- docs/LIBRARY.md example ends ----------------------------------------------------

namespace {

namespace ipc = clretw::diagnostics::detail;

int listen_on(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 2) != 0) return -1;
  return fd;
}

bool read_message(int fd, std::vector<std::uint8_t>& m) {
  m.assign(20, 0);
  for (std::size_t got = 0; got < m.size();) {
    const ssize_t n = ::recv(fd, m.data() + got, m.size() - got, 0);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
    if (got == 20) m.resize(m[14] | (m[15] << 8));
  }
  return true;
}

void send_bytes(int fd, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  for (std::size_t done = 0; done < n;) {
    const ssize_t k = ::send(fd, b + done, n - done, MSG_NOSIGNAL);
    if (k <= 0) return;
    done += static_cast<std::size_t>(k);
  }
}

}  // namespace

TEST_CASE("docs/LIBRARY.md: watch_gcs prints the GCs of a live process") {
  // Three GCs, written as the runtime writes them.
  std::ostringstream trace;
  clretw::nettrace::WriterOptions wo;
  clretw::nettrace::Writer w(trace, wo);
  clretw::nettrace::Metadata gc_start;
  gc_start.provider_name = "Microsoft-Windows-DotNETRuntime";
  gc_start.event_id = 1;
  gc_start.version = 2;
  const std::uint32_t id = w.define(gc_start);
  std::vector<std::vector<std::uint8_t>> payloads;
  for (std::uint32_t i = 1; i <= 3; ++i) {
    rt::payload::GCStart_V2 p;
    p.Count = i;
    p.Reason = i == 2 ? rt::GCReasonMap::Induced : rt::GCReasonMap::AllocSmall;
    payloads.push_back(*p.encode(8));
    clretw::nettrace::EventSpec e;
    e.metadata_id = id;
    e.thread_id = e.capture_thread_id = 1;
    e.timestamp = 100 + i;
    e.payload = payloads.back();
    w.event(e);
  }
  w.finish();
  const std::string bytes = trace.str();

  const std::string path = (std::filesystem::temp_directory_path() / ("clretw-readme-" + std::to_string(::getpid()))).string();
  const int server = listen_on(path);
  REQUIRE(server >= 0);
  std::thread runtime([&] {
    const int session = ::accept(server, nullptr, nullptr);
    std::vector<std::uint8_t> m;
    if (!read_message(session, m)) return;
    ipc::PayloadWriter id_payload;
    id_payload.u64(1);
    const auto ok = *ipc::message(0xFF, 0x00, id_payload.bytes());
    send_bytes(session, ok.data(), ok.size());
    send_bytes(session, bytes.data(), bytes.size() - 1);  // all but the end-of-stream tag...
    const int stop = ::accept(server, nullptr, nullptr);  // ...until StopTracing comes
    if (read_message(stop, m)) send_bytes(stop, ok.data(), ok.size());
    ::close(stop);
    send_bytes(session, bytes.data() + bytes.size() - 1, 1);
    ::close(session);
  });
  diag::Client client(path);
  std::string out;
  CHECK(watch_gcs(client, std::chrono::milliseconds(100), out) == 0);
  CHECK(out == "GC #1 AllocSmall\nGC #2 Induced\nGC #3 AllocSmall\n");
  runtime.join();
  ::close(server);
  ::unlink(path.c_str());
}
