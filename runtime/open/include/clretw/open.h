// clretw/open.h - one front door: open a trace file as the source its content says it is.
//
// .nettrace (EventPipe, formats 4-6), .netperf (.NET Core 2.1/2.2, NetPerf format 3) and .etl
// (Windows event trace logs, on any OS) are told apart by their first bytes, not by their
// names, and read through the same TraceSource interface.
#pragma once

#include <memory>
#include <string>

#include "clretw/bytes.h"
#include "clretw/etl.h"
#include "clretw/nettrace.h"
#include "clretw/result.h"
#include "clretw/source.h"

namespace clretw {

enum class TraceFormat { nettrace, netperf, etl, unknown };
const char* trace_format_name(TraceFormat f) noexcept;

// What the first bytes of a file say it is (32 bytes are enough; fewer give `unknown`,
// except for a file too short to be anything).
TraceFormat detect_format(Bytes first_bytes) noexcept;

struct OpenOptions {
  bool sorted = false;  // nettrace: timestamp order between sequence points; ETL is always merged by time
  // nettrace: deliver only the events this keeps (nettrace::ReaderOptions::keep); null: all.
  bool (*keep)(const EventRecord&) = nullptr;
  // Loads the manifests a trace carries (ETL: EventSource manifests, events 0xFFFE) as they
  // complete; see TraceSource::carried_manifests(). Must outlive the source. Null: they are
  // listed as needing a loader (the generator's: clretw::gen::CarriedManifestLoader).
  const ManifestLoader* manifest_loader = nullptr;
};

// Opens `path` as a nettrace, NetPerf or ETL source. "-" is standard input. A path that is not
// a regular file (a pipe, a FIFO, /dev/fd/N from a shell's <(...)) and standard input are read
// once, in order, as a stream; ETL needs a regular file. A path that gives no bytes to read (missing,
// not readable, a directory, an empty file, a pipe closed before its first byte, ETL on a pipe) is
// Errc::cannot_open, its detail the reason; content that is no trace is Errc::bad_format.
Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path, OpenOptions options = {});
// True when open_trace() can open `path` again and read the same bytes: a regular file.
bool seekable_path(const std::string& path);

// A nettrace reader (a file, memory or a live session) as a TraceSource.
class NettraceSource final : public TraceSource {
 public:
  explicit NettraceSource(std::unique_ptr<nettrace::Reader> owned) : owned_(std::move(owned)), reader_(owned_.get()) {}
  explicit NettraceSource(nettrace::Reader& borrowed) : reader_(&borrowed) {}  // must outlive this
  // A reader of `stream`, which this source keeps (it outlives the reader).
  NettraceSource(std::unique_ptr<nettrace::ByteStream> stream, std::unique_ptr<nettrace::Reader> owned)
      : stream_(std::move(stream)), owned_(std::move(owned)), reader_(owned_.get()) {}
  nettrace::Reader& reader() noexcept { return *reader_; }

  Result<const EventRecord*> next() override { return reader_->next(); }
  double milliseconds(std::int64_t timestamp) const noexcept override { return reader_->info().milliseconds(timestamp); }
  std::uint64_t position() const noexcept override { return reader_->position(); }
  std::uint64_t size() const noexcept override { return reader_->size(); }
  std::string summary() const override;
  SourceCounts counts() const override;

 private:
  std::unique_ptr<nettrace::ByteStream> stream_;  // declared first: destroyed after the reader
  std::unique_ptr<nettrace::Reader> owned_;
  nettrace::Reader* reader_;
};

}  // namespace clretw
