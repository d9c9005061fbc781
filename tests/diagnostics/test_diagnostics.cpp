// The diagnostics IPC client against a fake server: faults a real runtime does not produce on
// demand (wrong magic, short sizes, error answers, silence, streams cut mid-block), the message
// encodings, provider specifications, and the nettrace reader fed as the bytes come.
// tests/dotnet/live_check.sh runs the same client against real .NET processes.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clretw/diagnostics.h"
#include "clretw/catalog.h"
#include "clretw/nettrace.h"
#include "../../runtime/diagnostics/src/ipc.h"
#include "metadata.h"

using namespace clretw;
namespace ipc = clretw::diagnostics::detail;
using namespace clretw::diagnostics;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A Unix socket server in a thread: each accepted connection is handed to `serve`.
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int fd, int index)> serve, int connections = 1) {
    path_ = (fs::temp_directory_path() / ("clretw-fake-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))).string();
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof a.sun_path - 1);
    ::unlink(path_.c_str());
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    thread_ = std::thread([this, serve, connections] {
      for (int i = 0; i < connections; ++i) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        serve(c, i);
        ::close(c);
      }
    });
  }
  ~FakeServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  static inline std::atomic<int> counter_{0};
  std::string path_;
  int fd_ = -1;
  std::thread thread_;
};

std::vector<std::uint8_t> read_request(int fd) {
  std::vector<std::uint8_t> h(20);
  std::size_t got = 0;
  while (got < 20) {
    const ssize_t n = ::recv(fd, h.data() + got, 20 - got, 0);
    if (n <= 0) return {};
    got += static_cast<std::size_t>(n);
  }
  const std::size_t size = h[14] | (h[15] << 8);
  h.resize(size);
  while (got < size) {
    const ssize_t n = ::recv(fd, h.data() + got, size - got, 0);
    if (n <= 0) return {};
    got += static_cast<std::size_t>(n);
  }
  return h;
}

void send_all(int fd, const std::vector<std::uint8_t>& b) {
  std::size_t done = 0;
  while (done < b.size()) {
    const ssize_t n = ::send(fd, b.data() + done, b.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::vector<std::uint8_t> answer(std::uint8_t set, std::uint8_t id, const std::vector<std::uint8_t>& payload) {
  return *ipc::message(set, id, payload);
}
std::vector<std::uint8_t> ok(const std::vector<std::uint8_t>& payload) { return answer(0xFF, 0x00, payload); }
std::vector<std::uint8_t> error_answer(std::uint32_t hr) {
  ipc::PayloadWriter w;
  w.u32(hr);
  return answer(0xFF, 0xFF, w.bytes());
}

std::vector<std::uint8_t> process_info3_payload() {
  ipc::PayloadWriter w;
  w.u32(1);
  w.u64(4242);
  for (int i = 0; i < 16; ++i) w.u8(static_cast<std::uint8_t>(i));
  for (const char* s : {"/usr/bin/dotnet app.dll --x", "Linux", "x64", "app", "10.0.0", "linux-x64"}) w.string(s);
  return w.bytes();
}

// A small trace with `events` events, written by clretw's nettrace writer.
std::string written_trace(int events) {
  std::ostringstream out;
  nettrace::WriterOptions o;
  o.format = 5;
  o.block_bytes = 256;
  nettrace::Writer w(out, o);
  const nettrace::Metadata m = clretw::test::event_source_event(
      "Contoso-Live", 1, "Tick", {nettrace::MetaField{"N", nettrace::TypeCode::Int32, {}, {}, 0}});
  const std::uint32_t id = w.define(m);
  for (int i = 0; i < events; ++i) {
    nettrace::EventSpec e;
    e.metadata_id = id;
    e.thread_id = e.capture_thread_id = 7;
    e.timestamp = 1000 + i;
    std::vector<std::uint8_t> p(4);
    std::memcpy(p.data(), &i, 4);
    e.payload = p;
    w.event(e);
  }
  w.finish();
  return out.str();
}

SessionOptions one_provider() {
  SessionOptions o;
  o.providers = {{"Contoso-Live", 0x1, 4, {}}};
  return o;
}

}  // namespace

TEST_CASE("ProcessInfo3 is asked first, and parsed field by field") {
  std::vector<std::uint8_t> request;
  FakeServer server([&](int fd, int) {
    request = read_request(fd);
    send_all(fd, ok(process_info3_payload()));
  });
  Client c(server.path(), 2s);
  auto info = c.process_info();
  REQUIRE_MESSAGE(info, info.error().message());
  CHECK(request.size() == 20);
  CHECK(request[16] == 0x04);
  CHECK(request[17] == 0x08);
  CHECK(info->command == 3);
  CHECK(info->pid == 4242);
  CHECK(info->command_line == "/usr/bin/dotnet app.dll --x");
  CHECK(info->os == "Linux");
  CHECK(info->arch == "x64");
  CHECK(info->entrypoint_assembly == "app");
  CHECK(info->clr_version == "10.0.0");
  CHECK(info->runtime_identifier == "linux-x64");
}

TEST_CASE("an older runtime: ProcessInfo3 and 2 answered 'unknown command', ProcessInfo 1 used") {
  std::vector<int> commands;
  FakeServer server(
      [&](int fd, int i) {
        const auto r = read_request(fd);
        commands.push_back(r.size() >= 18 ? r[17] : -1);
        if (i < 2) return send_all(fd, error_answer(0x80131385));
        ipc::PayloadWriter w;
        w.u64(77);
        for (int k = 0; k < 16; ++k) w.u8(0);
        for (const char* s : {"app", "Linux", "x64"}) w.string(s);
        send_all(fd, ok(w.bytes()));
      },
      3);
  Client c(server.path(), 2s);
  auto info = c.process_info();
  REQUIRE_MESSAGE(info, info.error().message());
  CHECK(commands == std::vector<int>{0x08, 0x04, 0x00});
  CHECK(info->command == 1);
  CHECK(info->pid == 77);
  CHECK(info->clr_version.empty());
}

TEST_CASE("bad answers: wrong magic, a size shorter than the header, truncation, errors, silence") {
  struct Case {
    const char* name;
    std::function<void(int)> reply;
    Errc code;
    const char* says;
  };
  const Case cases[] = {
      {"wrong magic", [](int fd) { send_all(fd, std::vector<std::uint8_t>(20, 'x')); }, Errc::protocol_error, "magic"},
      {"size 12",
       [](int fd) {
         auto m = ok({});
         m[14] = 12;
         send_all(fd, m);
       },
       Errc::protocol_error, "shorter than its 20-byte header"},
      {"header cut at 10 bytes",
       [](int fd) {
         auto m = ok({});
         m.resize(10);
         send_all(fd, m);
       },
       Errc::connection_failed, "after 10 of the 20 bytes"},
      {"payload cut",
       [](int fd) {
         auto m = ok(process_info3_payload());
         m.resize(m.size() - 5);
         send_all(fd, m);
       },
       Errc::connection_failed, "payload"},
      {"error HRESULT", [](int fd) { send_all(fd, error_answer(0x80131515)); }, Errc::command_failed, "DS_IPC_E_NOTSUPPORTED"},
      {"error without HRESULT", [](int fd) { send_all(fd, answer(0xFF, 0xFF, {1})); }, Errc::protocol_error, "without its HRESULT"},
      {"neither OK nor error", [](int fd) { send_all(fd, answer(0x02, 0x01, {})); }, Errc::protocol_error, "neither OK"},
      {"string without NUL",
       [](int fd) {
         auto p = process_info3_payload();
         p[p.size() - 1] = 'x';  // the runtime identifier's terminator
         send_all(fd, ok(p));
       },
       Errc::protocol_error, "does not end in a NUL"},
      {"string past the payload",
       [](int fd) {
         ipc::PayloadWriter w;
         w.u32(1), w.u64(1);
         for (int k = 0; k < 16; ++k) w.u8(0);
         w.u32(1000);  // the command line claims 1000 characters
         send_all(fd, ok(w.bytes()));
       },
       Errc::protocol_error, "runs past the payload"},
      {"silence", [](int) { std::this_thread::sleep_for(600ms); }, Errc::timed_out, "sent nothing for 300 ms"},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    FakeServer server([&](int fd, int) {
      read_request(fd);
      k.reply(fd);
    });
    Client c(server.path(), 300ms);
    const auto start = std::chrono::steady_clock::now();
    auto info = c.process_info();
    REQUIRE_FALSE(info);
    CHECK(info.error().code == k.code);
    CHECK_MESSAGE(info.error().message().find(k.says) != std::string::npos, info.error().message());
    CHECK(std::chrono::steady_clock::now() - start < 2s);  // no hang
  }
}

TEST_CASE("a socket nobody listens on (the process has exited) and a path too long for a socket address") {
  const std::string stale = (fs::temp_directory_path() / "clretw-stale-socket").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, stale.c_str(), sizeof a.sun_path - 1);
  ::unlink(stale.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  ::close(fd);  // bound, never listening: what a crashed process leaves behind
  auto info = Client(stale, 300ms).process_info();
  REQUIRE_FALSE(info);
  CHECK(info.error().code == Errc::connection_failed);
  CHECK(info.error().message().find("nobody listens there") != std::string::npos);
  ::unlink(stale.c_str());

  auto gone = Client("/nonexistent/dotnet-diagnostic-1-1-socket", 300ms).process_info();
  REQUIRE_FALSE(gone);
  CHECK(gone.error().message().find("no such socket") != std::string::npos);

  auto longer = Client("/tmp/" + std::string(200, 'a'), 300ms).process_info();
  REQUIRE_FALSE(longer);
  CHECK(longer.error().message().find("longer than a Unix socket address allows") != std::string::npos);

  auto none = find_process(0x7FFFFFF0);
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("no such process") != std::string::npos);
}

#if defined(__linux__)
// A private folder under the temporary directory, removed with everything in it.
struct TempFolder {
  std::string path;
  TempFolder() {
    std::string t = (fs::temp_directory_path() / "clretw-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST_CASE("a socket path longer than a Unix socket address allows is reached through its folder (Linux)") {
  TempFolder tmp;
  const std::string folder = tmp.path + "/" + std::string(120, 'd') + " \xc3\xbc";  // a space and a non-ASCII letter too
  REQUIRE(fs::create_directory(folder));

  // Listening: the port is made at the long path itself, and a runtime that reaches it connects.
  const std::string port_path = folder + "/port.sock";
  REQUIRE(port_path.size() > sizeof(sockaddr_un::sun_path));
  auto port = ReversePort::listen(port_path);
  REQUIRE_MESSAGE(port, port.error().message());
  CHECK(fs::is_socket(port_path));
  const std::string short_link = tmp.path + "/p";  // the runtime's way in: a short name for the same socket
  fs::create_symlink(port_path, short_link);
  std::thread runtime([&] {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, short_link.c_str(), sizeof a.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return (void)::close(fd);
    std::vector<std::uint8_t> ad(34, 0);
    std::memcpy(ad.data(), "ADVR_V1", 8);
    ad[24] = 0x39, ad[25] = 0x30;  // pid 12345
    send_all(fd, ad);
    ::close(fd);
  });
  auto accepted = port->accept(2s);
  runtime.join();
  REQUIRE_MESSAGE(accepted, accepted.error().message());
  CHECK(accepted->first.pid == 12345);

  // Connecting: a long path to a runtime's socket (here a link to the fake runtime's).
  FakeServer server([&](int fd, int) {
    read_request(fd);
    send_all(fd, ok(process_info3_payload()));
  });
  const std::string long_socket = folder + "/dotnet-diagnostic-4242-1-socket";
  fs::create_symlink(server.path(), long_socket);
  auto info = Client(long_socket, 2s).process_info();
  REQUIRE_MESSAGE(info, info.error().message());
  CHECK(info->pid == 4242);

  // A name that is too long by itself still cannot be reached, and says so.
  const std::string long_name = tmp.path + "/" + std::string(110, 'n');
  auto refused = Client(long_name, 300ms).process_info();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message() == "diagnostics connection failed: the socket path is " + std::to_string(long_name.size()) +
                                         " bytes, longer than a Unix socket address allows (107): " + long_name);
  auto refused_port = ReversePort::listen(long_name);
  REQUIRE_FALSE(refused_port);
  CHECK(refused_port.error().message() == "diagnostics connection failed: the port's path is " +
                                              std::to_string(long_name.size()) +
                                              " bytes, longer than a Unix socket address allows (107): " + long_name);
}
#endif

TEST_CASE("CollectTracing: the lowest command that says what is asked, its bytes, and falling back") {
  SessionOptions o = one_provider();
  CHECK(collect_command_for(o) == 2);
  o.stackwalk = false;
  CHECK(collect_command_for(o) == 3);
  o.rundown_keywords = 0x1;
  CHECK(collect_command_for(o) == 4);

  // CollectTracing2: buffer, format 1, rundown, providers (keywords, level, name, arguments).
  SessionOptions p;
  p.buffer_mb = 64;
  p.providers = {{"Ab", 0x10, 5, "K=V"}};
  const auto bytes = ipc::collect_payload(2, p);
  const std::vector<std::uint8_t> expected = {64, 0, 0, 0, 1, 0, 0, 0, 1,  1, 0, 0, 0,  0x10, 0, 0, 0, 0, 0, 0, 0,
                                              5,  0, 0, 0, 3, 0, 0, 0, 'A', 0, 'b', 0, 0, 0, 4, 0, 0, 0, 'K', 0,
                                              '=', 0, 'V', 0, 0, 0};
  CHECK(bytes == expected);
  // CollectTracing6: a session type (0, streaming) first, an empty event filter per provider and
  // the buffering mode last.
  p.buffering = BufferingMode::block;
  CHECK(collect_command_for(p) == 6);
  const auto six = ipc::collect_payload(6, p);
  REQUIRE(six.size() == expected.size() + 21);
  CHECK(std::vector<std::uint8_t>(six.begin(), six.begin() + 8) == std::vector<std::uint8_t>{0, 0, 0, 0, 64, 0, 0, 0});
  CHECK(std::vector<std::uint8_t>(six.end() - 4, six.end()) == std::vector<std::uint8_t>{1, 0, 0, 0});

  // A runtime before .NET 9 answers CollectTracing4 "unknown command": the default rundown mask is
  // what CollectTracing3's rundown flag means, so the client falls back.
  std::vector<int> commands;
  FakeServer server(
      [&](int fd, int i) {
        const auto r = read_request(fd);
        commands.push_back(r[17]);
        if (i == 0) return send_all(fd, error_answer(0x80131385));
        ipc::PayloadWriter w;
        w.u64(99);
        send_all(fd, ok(w.bytes()));
      },
      2);
  SessionOptions q = one_provider();
  q.stackwalk = false;
  q.rundown_keywords = 0x80020139;
  Client c(server.path(), 1s);
  auto s = c.start_session(q);
  REQUIRE_MESSAGE(s, s.error().message());
  CHECK(commands == std::vector<int>{0x05, 0x04});
  CHECK((*s)->id() == 99);
  CHECK((*s)->command() == 3);

  // A mask CollectTracing3 cannot say is refused with the reason.
  FakeServer old([&](int fd, int) {
    read_request(fd);
    send_all(fd, error_answer(0x80131385));
  });
  q.rundown_keywords = 0x8;
  auto refused = Client(old.path(), 1s).start_session(q);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find(".NET 9") != std::string::npos);

  // gc-collect's narrow rundown: on such a runtime, as dotnet-trace does, without the rundown.
  std::vector<std::vector<std::uint8_t>> requests;
  FakeServer older(
      [&](int fd, int i) {
        requests.push_back(read_request(fd));
        if (i == 0) return send_all(fd, error_answer(0x80131385));
        ipc::PayloadWriter w;
        w.u64(7);
        send_all(fd, ok(w.bytes()));
      },
      2);
  q.stackwalk = true;
  q.rundown_keywords = 0x1;
  q.rundown_fallback = RundownFallback::none;
  auto without = Client(older.path(), 1s).start_session(q);
  REQUIRE_MESSAGE(without, without.error().message());
  CHECK((*without)->command() == 2);
  REQUIRE(requests.size() == 2);
  CHECK(requests[1][17] == 0x03);   // CollectTracing2
  CHECK(requests[1][20 + 8] == 0);  // its rundown flag, after the buffer size and the format
}

TEST_CASE("a live session's events are delivered as their blocks arrive, and a cut stream says where") {
  const std::string trace = written_trace(400);
  // The first part: up to the end of the first event block.
  std::size_t first = trace.find("EventBlock");
  REQUIRE(first != std::string::npos);
  first = trace.find("EventBlock", first + 1);  // the second event block begins after the first ended
  REQUIRE(first != std::string::npos);
  first -= 15;  // the next object's begin tags, version, minimum version and name length

  std::mutex m;
  std::condition_variable cv;
  bool first_seen = false;
  FakeServer server([&](int fd, int) {
    read_request(fd);
    ipc::PayloadWriter w;
    w.u64(5);
    send_all(fd, ok(w.bytes()));
    send_all(fd, std::vector<std::uint8_t>(trace.begin(), trace.begin() + static_cast<std::ptrdiff_t>(first)));
    // The rest only once the client has delivered events of the first block: it reads nothing ahead.
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, 5s, [&] { return first_seen; })) return;
    send_all(fd, std::vector<std::uint8_t>(trace.begin() + static_cast<std::ptrdiff_t>(first), trace.end() - 30));
    // ...and the stream is cut 30 bytes before its end (the process died).
  });
  Client c(server.path(), 2s);
  auto s = c.start_session(one_provider());
  REQUIRE_MESSAGE(s, s.error().message());
  auto reader = nettrace::Reader::open_stream(**s);
  REQUIRE_MESSAGE(reader, reader.error().message());
  int events = 0;
  Error error;
  for (;;) {
    auto next = (*reader)->next();
    if (!next) {
      error = next.error();
      break;
    }
    if (!*next) break;
    if (++events == 1) {
      std::lock_guard lock(m);
      first_seen = true;
      cv.notify_all();
    }
  }
  CHECK(first_seen);
  CHECK(events > 1);
  CHECK(events < 400);
  CHECK(error.code == Errc::truncated);
  CHECK_MESSAGE(error.message().find("byte") != std::string::npos, error.message());
}

TEST_CASE("StopTracing goes on a new connection with the session id") {
  std::vector<std::uint8_t> stop;
  FakeServer server(
      [&](int fd, int i) {
        const auto r = read_request(fd);
        ipc::PayloadWriter w;
        w.u64(31);
        if (i == 1) stop = r;
        send_all(fd, ok(w.bytes()));
      },
      2);
  auto s = Client(server.path(), 1s).start_session(one_provider());
  REQUIRE(s);
  REQUIRE((*s)->stop());
  REQUIRE(stop.size() == 28);
  CHECK(stop[16] == 0x02);
  CHECK(stop[17] == 0x01);
  CHECK(stop[20] == 31);
  CHECK((*s)->stop());  // a second stop does nothing
}

TEST_CASE("a reverse port: the advertisement is checked, and the connection carries the first command") {
  const std::string path = (fs::temp_directory_path() / ("clretw-port-" + std::to_string(::getpid()))).string();
  auto port = ReversePort::listen(path);
  REQUIRE_MESSAGE(port, port.error().message());
  std::thread runtime([&] {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    std::vector<std::uint8_t> ad(34, 0);
    std::memcpy(ad.data(), "ADVR_V1", 8);
    ad[24] = 0x39, ad[25] = 0x30;  // pid 12345
    send_all(fd, ad);
    read_request(fd);
    send_all(fd, ok({}));  // ResumeRuntime's OK
    ::close(fd);
    // A second connection with a wrong advertisement.
    const int bad = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(bad, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    send_all(bad, std::vector<std::uint8_t>(34, 'z'));
    ::close(bad);
  });
  auto accepted = port->accept(2s);
  REQUIRE_MESSAGE(accepted, accepted.error().message());
  CHECK(accepted->first.pid == 12345);
  CHECK(accepted->second.resume_runtime());
  auto bad = port->accept(2s);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("ADVR_V1") != std::string::npos);
  auto silent = port->accept(200ms);
  REQUIRE_FALSE(silent);
  CHECK(silent.error().code == Errc::timed_out);
  runtime.join();
}

TEST_CASE("provider specifications in dotnet-trace's syntax, and the profiles") {
  auto p = parse_providers("Microsoft-Windows-DotNETRuntime:0x8003:5,Clretw-Workload::Verbose,My-Source:ff:4:A=1;B=x:y");
  REQUIRE_MESSAGE(p, p.error().message());
  REQUIRE(p->size() == 3);
  CHECK((*p)[0] == Provider{"Microsoft-Windows-DotNETRuntime", 0x8003, 5, ""});
  CHECK((*p)[1] == Provider{"Clretw-Workload", ~0ull, 5, ""});
  CHECK((*p)[2] == Provider{"My-Source", 0xff, 4, "A=1;B=x:y"});
  // A name alone: every keyword, dotnet-trace's default level (informational).
  auto only_name = parse_providers("Microsoft-DotNETCore-SampleProfiler");
  REQUIRE(only_name);
  CHECK((*only_name)[0] == Provider{"Microsoft-DotNETCore-SampleProfiler", ~0ull, 4, ""});
  // A level above 5 is verbose, as dotnet-trace reads it.
  CHECK((*parse_providers("A:0x1:9"))[0].level == 5);
  for (const char* bad : {"", ":0x1:4", "A:0xZZ:4", "A:0x1:loud", "A:0x1:-1"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_providers(bad));
  }
  auto gc = profile("gc-verbose");
  REQUIRE(gc);
  CHECK(gc->providers == std::vector<Provider>{{"Microsoft-Windows-DotNETRuntime", 0x8003, 5, ""}});
  CHECK(gc->rundown);
  CHECK_FALSE(gc->rundown_keywords);
  auto collect = profile("gc-collect");
  REQUIRE(collect);
  CHECK(collect->providers.size() == 2);
  // dotnet-trace's low-overhead profile asks for the GC rundown only, and none where that cannot be had.
  CHECK(collect->rundown_keywords == std::optional<std::uint64_t>(0x1));
  CHECK(collect->rundown_fallback == RundownFallback::none);
  auto unknown = profile("fast");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("gc-collect") != std::string::npos);
  // Every profile dotnet-trace 10 lists.
  for (const char* name : {"dotnet-common", "dotnet-sampled-thread-time", "gc-verbose", "gc-collect", "database", "cpu-sampling",
                           "thread-time"}) {
    CAPTURE(name);
    CHECK(std::any_of(profiles().begin(), profiles().end(), [&](const ProfileInfo& i) { return i.name == name; }));
  }
}

TEST_CASE("keyword names: --clrevents as dotnet-trace names them, and in --providers") {
  const std::vector<const Catalog*> catalogs{&clretw::catalog()};
  // dotnet-trace 10's --clrevents table (its names and masks).
  const std::pair<const char*, std::uint64_t> table[] = {
      {"gc", 0x1}, {"gchandle", 0x2}, {"fusion", 0x4}, {"assemblyloader", 0x4}, {"loader", 0x8}, {"jit", 0x10},
      {"ngen", 0x20}, {"startenumeration", 0x40}, {"endenumeration", 0x80}, {"security", 0x400},
      {"appdomainresourcemanagement", 0x800}, {"jittracing", 0x1000}, {"interop", 0x2000}, {"contention", 0x4000},
      {"exception", 0x8000}, {"threading", 0x10000}, {"jittedmethodiltonativemap", 0x20000},
      {"overrideandsuppressngenevents", 0x40000}, {"type", 0x80000}, {"gcheapdump", 0x100000},
      {"gcsampledobjectallocationhigh", 0x200000}, {"gcheapsurvivalandmovement", 0x400000}, {"gcheapcollect", 0x800000},
      {"managedheadcollect", 0x800000}, {"gcheapandtypenames", 0x1000000}, {"gcsampledobjectallocationlow", 0x2000000},
      {"perftrack", 0x20000000}, {"stack", 0x40000000}, {"threadtransfer", 0x80000000}, {"debugger", 0x100000000},
      {"monitoring", 0x200000000}, {"codesymbols", 0x400000000}, {"eventsource", 0x800000000},
      {"compilation", 0x1000000000}, {"compilationdiagnostic", 0x2000000000}, {"methoddiagnostic", 0x4000000000},
      {"typediagnostic", 0x8000000000}, {"jitinstrumentationdata", 0x10000000000}, {"profiler", 0x20000000000},
      {"waithandle", 0x40000000000}, {"allocationsampling", 0x80000000000}};
  for (const auto& entry : table) {
    CAPTURE(entry.first);
    CHECK(clr_keyword(entry.first, catalogs) == std::optional<std::uint64_t>(entry.second));
  }
  CHECK_FALSE(clr_keyword("gcc", catalogs));
  auto named = parse_providers("Microsoft-Windows-DotNETRuntime:GC+Exception:5,Microsoft-Windows-DotNETRuntime:jitkeyword|loader", catalogs);
  REQUIRE_MESSAGE(named, named.error().message());
  CHECK((*named)[0].keywords == 0x8001);
  CHECK((*named)[1].keywords == 0x18);
  auto wrong = parse_providers("Microsoft-Windows-DotNETRuntime:GC+Garbage", catalogs);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().detail.find("'Garbage' is not a keyword of Microsoft-Windows-DotNETRuntime") != std::string::npos);
  CHECK(wrong.error().detail.find("GCKeyword") != std::string::npos);  // the keywords it has
  auto unknown_provider = parse_providers("My-Source:Fast", catalogs);
  REQUIRE_FALSE(unknown_provider);
  CHECK(unknown_provider.error().detail.find("give a hex mask") != std::string::npos);
}

namespace {
SessionRequest request(std::string profiles, std::string providers = {}, std::string clrevents = {}, std::string level = {},
                       std::optional<bool> rundown = {}) {
  SessionRequest r;
  r.profiles = std::move(profiles);
  r.providers = std::move(providers);
  r.clrevents = std::move(clrevents);
  r.clreventlevel = std::move(level);
  r.rundown = rundown;
  return r;
}
}  // namespace

TEST_CASE("a session planned from dotnet-trace's options: profiles, providers, --clrevents, --rundown") {
  const std::vector<const Catalog*> catalogs{&clretw::catalog()};
  auto plan = [&](const SessionRequest& r) {
    auto p = plan_session(r, catalogs);
    REQUIRE_MESSAGE(p, p.error().message());
    return *p;
  };
  // Nothing asked: dotnet-trace 10's default, said.
  SessionPlan d = plan(request(""));
  REQUIRE(d.options.providers.size() == 2);
  CHECK(d.options.providers[0] == Provider{"Microsoft-Windows-DotNETRuntime", 0x100003801D, 4, ""});
  CHECK(d.options.providers[1] == Provider{"Microsoft-DotNETCore-SampleProfiler", 0xF00000000000, 4, ""});
  CHECK(d.enabled_by == std::vector<unsigned>{by_profile, by_profile});
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].find("dotnet-common and dotnet-sampled-thread-time") != std::string::npos);
  CHECK(d.options.rundown);
  CHECK_FALSE(d.options.rundown_keywords);
  // Profiles naming one provider: a union.
  SessionPlan u = plan(request("dotnet-common, GC-Verbose"));
  REQUIRE(u.options.providers.size() == 1);
  CHECK(u.options.providers[0] == Provider{"Microsoft-Windows-DotNETRuntime", 0x100003801F, 5, ""});
  CHECK(u.notes.empty());
  // --providers decide for the providers they name; --clrevents is then ignored, and said.
  SessionPlan q = plan(request("dotnet-common,database", "Microsoft-Windows-DotNETRuntime:0x1:5", "jit"));
  REQUIRE(q.options.providers.size() == 3);
  CHECK(q.options.providers[0] == Provider{"Microsoft-Windows-DotNETRuntime", 0x1, 5, ""});
  CHECK(q.enabled_by[0] == by_providers);
  CHECK(q.options.providers[2].name == "Microsoft-Diagnostics-DiagnosticSource");
  CHECK(q.options.providers[2].arguments.starts_with("FilterAndPayloadSpecs=\"SqlClientDiagnosticListener/"));
  REQUIRE(q.notes.size() == 1);
  CHECK(q.notes[0].find("--clrevents is ignored") != std::string::npos);
  // --clrevents alone, with its level.
  SessionPlan c = plan(request("", "", "gc+exception", "verbose"));
  REQUIRE(c.options.providers.size() == 1);
  CHECK(c.options.providers[0] == Provider{"Microsoft-Windows-DotNETRuntime", 0x8001, 5, ""});
  CHECK(c.enabled_by[0] == by_clrevents);
  // gc-collect's narrow rundown; --rundown true widens it, false drops it.
  SessionPlan g = plan(request("gc-collect"));
  CHECK(g.options.rundown_keywords == std::optional<std::uint64_t>(0x1));
  CHECK(g.options.rundown_fallback == RundownFallback::none);
  SessionPlan mixed = plan(request("gc-collect,dotnet-sampled-thread-time"));  // the samples need the standard rundown
  CHECK(mixed.options.rundown);
  CHECK_FALSE(mixed.options.rundown_keywords);
  SessionPlan gt = plan(request("gc-collect", "", "", "", true));
  CHECK(gt.options.rundown);
  CHECK_FALSE(gt.options.rundown_keywords);
  SessionPlan gf = plan(request("gc-collect", "", "", "", false));
  CHECK_FALSE(gf.options.rundown);
  CHECK(collect_command_for(gf.options) == 2);
  // A misspelled provider is enabled as given, with the names it is nearest to.
  SessionPlan m = plan(request("", "Microsoft-Windows-DotNETRuntme:0x1:4"));
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].find("did you mean Microsoft-Windows-DotNETRuntime") != std::string::npos);
  SessionPlan own = plan(request("", "Clretw-Workload"));
  REQUIRE(own.notes.size() == 1);
  CHECK(own.notes[0].find("application's own") != std::string::npos);
  CHECK(plan(request("", "System.Runtime:0:5")).notes.empty());  // a well-known EventSource
  // Refused: a profile for collect-linux, an unknown one, an unknown CLR keyword, two filters of one provider.
  const SessionRequest refused[] = {request("cpu-sampling"), request("dotnet-common,fast"), request("", "", "gc+gcc"),
                                    request("", "A:1:4:K=1,A:2:4:K=2")};
  for (const SessionRequest& bad : refused) {
    CAPTURE(bad.profiles);
    CHECK_FALSE(plan_session(bad, catalogs));
  }
  CHECK(plan_session(request("cpu-sampling"), catalogs).error().detail.find("collect-linux") != std::string::npos);
  // The table dotnet-trace prints.
  const std::string table = provider_table(q);
  CHECK(table.find("Provider Name                           Keywords            Level               Enabled By\n") == 0);
  CHECK(table.find("Microsoft-Windows-DotNETRuntime         0x0000000000000001  Verbose(5)          --providers\n") !=
        std::string::npos);
  CHECK(table.find("System.Threading.Tasks.TplEventSource   0x0000000000000080  Informational(4)    --profile\n") !=
        std::string::npos);
}

TEST_CASE("a program that cannot be started, or ends before its runtime connects, is reported at once") {
  const auto start = std::chrono::steady_clock::now();
  auto missing = Launched::launch({"clretw-no-such-program"}, false);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().detail == "cannot run 'clretw-no-such-program': No such file or directory");
  auto quick = Launched::launch({"sh", "-c", "exit 7"}, false);
  REQUIRE(quick);
  auto never = quick->connect(30s);
  REQUIRE_FALSE(never);
  CHECK(never.error().detail.find("'sh' ended (exit code 7) before its runtime connected") != std::string::npos);
  CHECK(quick->wait() == 7);
  CHECK(std::chrono::steady_clock::now() - start < 10s);  // not the 30 s time-out (a bound for a loaded machine, not a timing)
}
