// Files that give nothing to read: every reader that opens a path (clretw/file.h's open_for_reading:
// open_trace(), nettrace::Reader::open_file(), etl::Reader::open_file()) says why, as
// Errc::cannot_open, with no byte offset: a missing file, a directory, a file without read
// permission, an empty file, a FIFO whose writer closes it before its first byte (and one that
// writes a whole trace, which reads).
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "clretw/etl.h"
#include "clretw/file.h"
#include "clretw/nettrace.h"
#include "clretw/open.h"
#include "metadata.h"

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#endif

using namespace clretw;

namespace {

// A private folder for the files of one test case, removed with what it holds.
struct PrivateDir {
  PrivateDir() {
    std::string t = (std::filesystem::temp_directory_path() / "clretw-open-XXXXXX").string();
#if defined(_WIN32)
    path = t.substr(0, t.size() - 6) + std::to_string(std::rand());
    std::filesystem::create_directory(path);
#else
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
#endif
  }
  ~PrivateDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  std::string operator/(const std::string& name) const { return (std::filesystem::path(path) / name).string(); }
  std::string path;
};

// A small valid nettrace: three GC/Start events.
std::string small_trace() {
  std::ostringstream out;
  nettrace::Writer w(out, {});
  const std::uint32_t gc = w.define(test::clr_gc_start());
  const std::uint8_t payload[16] = {};
  for (int i = 0; i < 3; ++i) {
    nettrace::EventSpec e;
    e.metadata_id = gc;
    e.thread_id = e.capture_thread_id = 7;
    e.timestamp = 1000 + i;
    e.payload = Bytes(payload, sizeof payload);
    w.event(e);
  }
  w.finish();
  return out.str();
}

// `e` is Errc::cannot_open for `reason`, and its message names no offset.
void check_cannot_open(const Error& e, const std::string& reason) {
  CHECK(e.code == Errc::cannot_open);
  CHECK(e.detail == reason);
  CHECK(e.message() == "cannot open: " + reason);
}

}  // namespace

TEST_CASE("a missing file, a directory: the system's reason or 'is a directory', from every reader, no offset") {
  PrivateDir dir;
  const std::string missing = dir / "nosuch.nettrace";
  const std::string no_such = std::strerror(ENOENT);
  const std::string is_dir = "is a directory; name a file in it";

  auto f = open_for_reading(missing);
  REQUIRE_FALSE(f);
  check_cannot_open(f.error(), no_such);
  auto d = open_for_reading(dir.path);
  REQUIRE_FALSE(d);
  check_cannot_open(d.error(), is_dir);

  auto nm = nettrace::Reader::open_file(missing);
  REQUIRE_FALSE(nm);
  check_cannot_open(nm.error(), no_such);
  auto nd = nettrace::Reader::open_file(dir.path);
  REQUIRE_FALSE(nd);
  check_cannot_open(nd.error(), is_dir);

  auto em = etl::Reader::open_file(missing);
  REQUIRE_FALSE(em);
  check_cannot_open(em.error(), no_such);
  auto ed = etl::Reader::open_file(dir.path);
  REQUIRE_FALSE(ed);
  check_cannot_open(ed.error(), is_dir);

  auto om = open_trace(missing);
  REQUIRE_FALSE(om);
  check_cannot_open(om.error(), no_such);
  auto od = open_trace(dir.path);
  REQUIRE_FALSE(od);
  check_cannot_open(od.error(), is_dir);

  // An empty file: nothing to tell a format by. A file of another content is bad_format at its first byte.
  std::ofstream(dir / "empty.nettrace").flush();
  auto oe = open_trace(dir / "empty.nettrace");
  REQUIRE_FALSE(oe);
  check_cannot_open(oe.error(), "the file is empty (0 bytes)");
  std::ofstream(dir / "notes.txt") << "hello";
  auto on = open_trace(dir / "notes.txt");
  REQUIRE_FALSE(on);
  CHECK(on.error().code == Errc::bad_format);
  CHECK(on.error().message() == "malformed data at offset 0: not a trace clretw reads: no nettrace, NetPerf or ETL header in its first 5 bytes");
}

#if !defined(_WIN32)
TEST_CASE("a file without read permission: the system's reason") {
  PrivateDir dir;
  const std::string secret = dir / "secret.nettrace";
  std::ofstream(secret, std::ios::binary) << small_trace();
  REQUIRE(::chmod(secret.c_str(), 0) == 0);
  // Root reads it all the same (CAP_DAC_OVERRIDE): tests/tools/dump_cli.sh checks the message with
  // those capabilities dropped.
  const int fd = ::open(secret.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::close(fd);
    MESSAGE("skipped: this process reads files without read permission (root); dump_cli covers it");
    return;
  }
  const std::string denied = std::strerror(EACCES);
  auto o = open_trace(secret);
  REQUIRE_FALSE(o);
  check_cannot_open(o.error(), denied);
  auto n = nettrace::Reader::open_file(secret);
  REQUIRE_FALSE(n);
  check_cannot_open(n.error(), denied);
  auto e = etl::Reader::open_file(secret);
  REQUIRE_FALSE(e);
  check_cannot_open(e.error(), denied);
}

TEST_CASE("a FIFO: a writer that closes it before its first byte is named; one that writes a trace reads") {
  std::signal(SIGPIPE, SIG_IGN);  // a writer whose reader went away fails its write, and says so, rather than die
  PrivateDir dir;
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  {
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the reader
      if (fd >= 0) ::close(fd);
    });
    auto o = open_trace(fifo);
    writer.join();
    REQUIRE_FALSE(o);
    check_cannot_open(o.error(), "the pipe was closed before its first byte (did the command that writes to it fail?)");
  }
  {
    const std::string bytes = small_trace();
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY);
      if (fd < 0) return;
      std::size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::close(fd);
    });
    auto o = open_trace(fifo);
    int events = 0;
    bool whole = false;
    while (o) {
      auto r = (*o)->next();
      if (!r) break;
      if (!*r) {
        whole = true;
        break;
      }
      ++events;
    }
    writer.join();
    REQUIRE(o);
    CHECK(whole);
    CHECK(events == 3);
  }
}
#endif
