// clretw/etl.h - Windows event trace log (.etl) files, read on any OS.
//
// An ETL file is a sequence of buffers, each a 72-byte WMI_BUFFER_HEADER followed by events
// (8-byte aligned) up to the buffer's saved offset; the rest is 0xFF filler. Buffers belong to
// processors; within one processor's buffers events are in time order. The reader indexes the
// buffer headers (24 bytes per buffer), then merges the processors' streams by timestamp, holding
// one buffer per processor: memory is bounded by the processor count, not the file.
// Compressed buffers (logfile mode 0x04000000, buffer flag 0x40) are [MS-XCA] plain LZ77.
//
// Every event header kind is parsed: SYSTEM and COMPACT (kernel events, 32/64), PERFINFO (with
// PEBS and PMC counters), EVENT_TRACE_HEADER (classic providers), INSTANCE, and EVENT_HEADER
// (manifest providers, 32/64) with its extended data items (stacks, related activity id,
// TraceLogging schema and provider traits; the rest skipped by size). An event's pointer size comes
// from its header kind, not from the file.
//
// TraceLogging (self-describing) events carry their schema (item 11) and their provider's name
// (item 12): the record then names its provider and event from them and describes its payload
// through EventRecord::self_description, as nettrace's metadata does for EventSource events. A
// schema that does not parse is damage, located like any other.
// Manifest events become EventRecords like nettrace's and go through the same catalogs; so do
// kernel events (see kernel_group_name()); kernel and classic events no catalog describes carry a
// stable name ("Windows Kernel" and "<Group>/<type>", or the class GUID and "Opcode(N)") and their
// payload bytes. The return addresses that end the kernel's StackWalk events (a Stack event, a
// stack key's definition) are the record's stack, not payload (clretw/kernel_stacks.h joins them
// to the events they belong to).
//
// Damage (a header that runs past its buffer, a buffer cut short, bad compressed data) ends the
// trace after every complete event before it, with an error naming the buffer and the byte.
//
// EventSource providers write their manifests into the file (events 0xFFFE, in chunks): the
// reader puts each together and lists it in carried_manifests() when its last chunk has come,
// loaded through ReaderOptions::manifest_loader when one is given (see clretw/carried.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "clretw/bytes.h"
#include "clretw/carried.h"
#include "clretw/guid.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/source.h"

namespace clretw::etl {

// TRACE_LOGFILE_HEADER, the payload of the first event of the first buffer.
struct LogfileInfo {
  std::uint32_t buffer_size = 0;
  std::uint32_t version = 0;
  std::uint32_t provider_version = 0;  // the OS build number
  std::uint32_t processors = 0;
  std::int64_t end_time = 0;           // FILETIME (UTC)
  std::uint32_t timer_resolution = 0;
  std::uint32_t max_file_size = 0;
  std::uint32_t log_file_mode = 0;
  std::uint32_t buffers_written = 0;
  std::uint32_t start_buffers = 0;
  std::uint32_t pointer_size = 0;      // of the machine that wrote the file
  std::uint32_t events_lost = 0;
  std::uint32_t cpu_speed_mhz = 0;
  std::int32_t timezone_bias = 0;      // minutes: UTC = local time + bias
  std::int64_t boot_time = 0;          // FILETIME (UTC)
  std::int64_t perf_freq = 0;          // QPC ticks per second
  std::int64_t start_time = 0;         // FILETIME (UTC)
  std::uint32_t clock_type = 0;        // ReservedFlags: 1 QPC, 2 system time, 3 CPU cycles
  std::uint32_t buffers_lost = 0;
  std::string logger_name;             // UTF-8
  std::string log_file_name;           // UTF-8
  std::int64_t start_timestamp = 0;    // timestamp of the logfile header event: time 0 of the trace
  std::int64_t frequency = 1;          // timestamp ticks per second, from the clock type

  // Milliseconds since the logfile header event, as TraceEvent counts them.
  double milliseconds(std::int64_t timestamp) const noexcept {
    const auto ticks = static_cast<std::int64_t>(static_cast<std::uint64_t>(timestamp) - static_cast<std::uint64_t>(start_timestamp));
    return static_cast<double>(ticks) * 1000.0 / static_cast<double>(frequency);
  }
};

// Header kinds (the byte after the 16-bit size or version of every event header).
enum class HeaderKind : std::uint8_t {
  system32 = 0x01, system64 = 0x02, compact32 = 0x03, compact64 = 0x04,
  full32 = 0x0A, instance32 = 0x0B, perfinfo32 = 0x10, perfinfo64 = 0x11,
  event_header32 = 0x12, event_header64 = 0x13, full64 = 0x14, instance64 = 0x15,
};
const char* header_kind_name(HeaderKind k) noexcept;

struct Stats {
  std::uint64_t buffers = 0;             // buffers in the file
  std::uint64_t compressed_buffers = 0;
  std::uint64_t events = 0;              // event records delivered
  std::uint64_t stacks = 0;              // events delivered with a stack (extended data)
  std::uint64_t extended_items = 0;      // extended data items read
  std::uint64_t by_kind[0x16] = {};      // events per header kind
  // KernelTraceControl-MetaData's EventInfo and EventMapInfo events (a merging tool's TDH descriptions
  // of other providers' events): taken, refused as unreadable, and the events they described.
  std::uint64_t metadata_taken = 0, metadata_refused = 0, metadata_described = 0;
};

struct ReaderOptions {
  bool sorted = true;                      // merge processors by timestamp; false: file order
  std::uint32_t max_buffer_size = 16u << 20;  // larger buffers are treated as damage
  // Loads the EventSource manifests the file carries (events 0xFFFE) as they complete; they are
  // listed by carried_manifests() either way. Must outlive the reader.
  const ManifestLoader* manifest_loader = nullptr;
};

// Kernel events (SYSTEM, COMPACT and PERFINFO headers) come from the kernel logger's provider,
// SystemTraceControlGuid {9e814aad-3204-11d2-9a82-006008a86939}, with id = the hook id
// ((group << 8) | type), task = the group, opcode = the type; manifest/WindowsKernel.man describes
// those a .NET investigation needs. The name of a group (EVENT_TRACE_GROUP_*): "Process",
// "PerfInfo", ...; "Group(N)" for groups this reader does not know.
std::string kernel_group_name(std::uint8_t group);

class Reader final : public TraceSource {
 public:
  // A file that cannot be opened (missing, not readable, a directory) is Errc::cannot_open, its
  // detail the reason (clretw/file.h).
  static Result<std::unique_ptr<Reader>> open_file(const std::string& path, ReaderOptions options = {});
  // `data` must outlive the reader.
  static Result<std::unique_ptr<Reader>> open_memory(Bytes data, ReaderOptions options = {});
  ~Reader() override;
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const LogfileInfo& info() const noexcept;
  const Stats& stats() const noexcept;
  // The header kind of the last record delivered.
  HeaderKind last_kind() const noexcept;

  Result<const EventRecord*> next() override;
  double milliseconds(std::int64_t timestamp) const noexcept override { return info().milliseconds(timestamp); }
  std::uint64_t position() const noexcept override;
  std::uint64_t size() const noexcept override;
  std::string summary() const override;
  SourceCounts counts() const override;

  struct Impl;

 private:
  explicit Reader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace clretw::etl
