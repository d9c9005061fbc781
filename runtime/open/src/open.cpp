// The front door: format detection and the nettrace adapter.
#include "clretw/open.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "clretw/file.h"

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

namespace clretw {

const char* trace_format_name(TraceFormat f) noexcept {
  switch (f) {
    case TraceFormat::nettrace: return "nettrace";
    case TraceFormat::netperf: return "netperf";
    case TraceFormat::etl: return "etl";
    case TraceFormat::unknown: break;
  }
  return "unknown";
}

TraceFormat detect_format(Bytes b) noexcept {
  if (b.size() >= 8 && std::memcmp(b.data(), "Nettrace", 8) == 0) return TraceFormat::nettrace;
  if (b.size() >= 24 && load_le<std::uint32_t>(b.data()) == 20 && std::memcmp(b.data() + 4, "!FastSerialization.1", 20) == 0)
    return TraceFormat::netperf;
  // ETL: a buffer header, then the logfile header event: a SYSTEM32/64 header of kernel group 0, opcode 0.
  if (b.size() >= 80 && load_le<std::uint32_t>(b.data()) >= 80 && (b[74] == 0x01 || b[74] == 0x02) && b[75] == 0xC0 &&
      load_le<std::uint16_t>(b.data() + 78) == 0)
    return TraceFormat::etl;
  return TraceFormat::unknown;
}

namespace {

// A pipe, a FIFO or standard input, read once in order: the bytes open_trace() looked at to
// tell the format come first, then the rest of the file.
class FileStream final : public nettrace::ByteStream {
 public:
  FileStream(std::FILE* file, bool owned, const std::uint8_t* head, std::size_t n)
      : file_(file), owned_(owned), head_(head, head + n) {}
  ~FileStream() override {
    if (owned_) std::fclose(file_);
  }
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;

  Result<std::size_t> read_some(void* dst, std::size_t n) override {
    if (at_ < head_.size()) {
      const std::size_t k = std::min(n, head_.size() - at_);
      std::memcpy(dst, head_.data() + at_, k);
      at_ += k;
      return k;
    }
    errno = 0;
    const std::size_t got = std::fread(dst, 1, n, file_);
    if (got == 0 && std::ferror(file_))
      return Error{Errc::io_error, head_.size() + read_, {}, std::string("the read failed: ") + (errno ? std::strerror(errno) : "the system gave no reason")};
    read_ += got;
    return got;
  }

 private:
  std::FILE* file_;
  bool owned_;
  std::vector<std::uint8_t> head_;
  std::size_t at_ = 0;
  std::uint64_t read_ = 0;  // bytes read from the file after head_
};

}  // namespace

bool seekable_path(const std::string& path) {
  std::error_code ec;
  return path != "-" && std::filesystem::is_regular_file(path, ec);
}

Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path, OpenOptions options) {
  const bool std_in = path == "-";
#if defined(_WIN32)
  if (std_in) _setmode(_fileno(stdin), _O_BINARY);  // no newline translation of a binary trace
#endif
  std::FILE* f = stdin;
  if (!std_in) {
    auto opened = open_for_reading(path);
    if (!opened) return std::move(opened).error();
    f = *opened;
  }
  std::uint8_t head[80] = {};
  errno = 0;
  std::size_t got = std::fread(head, 1, sizeof head, f);
  const int read_errno = got == 0 && std::ferror(f) ? errno : 0;
  // A regular file is opened again by its reader; anything else can be read only once, from here.
  const bool seekable = seekable_path(path);
  if (seekable) std::fclose(f);
  const auto close_unread = [&] {
    if (!seekable && !std_in) std::fclose(f);
  };
  nettrace::ReaderOptions ro;
  ro.sorted = options.sorted;
  ro.keep = options.keep;
  switch (detect_format(Bytes(head, got))) {
    case TraceFormat::nettrace:
    case TraceFormat::netperf: {
      if (!seekable) {
        auto stream = std::make_unique<FileStream>(f, !std_in, head, got);
        auto r = nettrace::Reader::open_stream(*stream, ro);
        if (!r) return std::move(r).error();
        return std::unique_ptr<TraceSource>(new NettraceSource(std::move(stream), std::move(*r)));
      }
      auto r = nettrace::Reader::open_file(path, ro);
      if (!r) return std::move(r).error();
      return std::unique_ptr<TraceSource>(new NettraceSource(std::move(*r)));
    }
    case TraceFormat::etl: {
      if (!seekable) {
        close_unread();
        return cannot_open("an ETL file is read from a file on disk, not from a pipe or standard input (save it to a file first)");
      }
      etl::ReaderOptions eo;
      eo.manifest_loader = options.manifest_loader;
      auto r = etl::Reader::open_file(path, eo);
      if (!r) return std::move(r).error();
      return std::unique_ptr<TraceSource>(std::move(*r));
    }
    case TraceFormat::unknown: break;
  }
  close_unread();
  if (got == 0) {  // nothing to tell a format by
    if (read_errno) return cannot_open(std::strerror(read_errno));
    if (seekable) return cannot_open("the file is empty (0 bytes)");
    if (std_in) return cannot_open("standard input ended before its first byte");
    std::error_code ec;
    if (std::filesystem::is_fifo(path, ec))
      return cannot_open("the pipe was closed before its first byte (did the command that writes to it fail?)");
    return cannot_open("it ended before its first byte");
  }
  return Error{Errc::bad_format, 0, {},
               "not a trace clretw reads: no nettrace, NetPerf or ETL header in its first " + std::to_string(got) + " bytes"};
}

std::string NettraceSource::summary() const {
  const nettrace::TraceInfo& i = reader_->info();
  return std::string(i.format == 3 ? "netperf" : "nettrace") + " format " + std::to_string(i.format) + ", pointer size " +
         std::to_string(i.pointer_size) + ", pid " + std::to_string(i.process_id);
}

SourceCounts NettraceSource::counts() const {
  const nettrace::Stats& s = reader_->stats();
  SourceCounts c;
  c.events = s.events;
  c.lost_events = s.lost_events;
  c.sequence_points = s.sequence_points;
  return c;
}

}  // namespace clretw
