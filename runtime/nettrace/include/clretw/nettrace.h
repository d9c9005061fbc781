// clretw/nettrace.h - EventPipe .nettrace files: a streaming reader and a writer.
//
// Reader: FastSerialization files (Trace object version 4, V5 metadata tags),
// the V6 block format, and the NetPerf files of .NET Core 2.1 and 2.2 (format
// 3: FastSerialization with no "Nettrace" magic, told apart by content; the
// NetPerf versions 1 and 2 of .NET Core 2.0 are refused). It reads block by
// block (memory bounded by the largest block, not the file), hands out each
// event as an EventRecord whose payload points into the block buffer (no
// copy, no allocation per event), resolves stacks, counts events lost by
// sequence-number gaps (NetPerf has no sequence numbers) and, on request,
// delivers events in global timestamp order (NetPerf: within each event
// block). A damaged file yields every complete event before the damage, then
// an error naming the byte offset and the block.
//
// Writer: produces NetPerf V3, V4 (FastSerialization, no tags), V5 (with
// opcode/V2Params tags) or V6 files with compressed or uncompressed headers,
// for tests and samples.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/decode.h"
#include "clretw/guid.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/self_describing.h"
#include "clretw/view.h"

namespace clretw::nettrace {

// EventPipe field types (System.TypeCode values, plus the V5/V6 additions).
enum class TypeCode : std::uint8_t {
  Object = 1, Boolean32 = 3, Char16 = 4, SByte = 5, Byte = 6, Int16 = 7, UInt16 = 8, Int32 = 9, UInt32 = 10,
  Int64 = 11, UInt64 = 12, Single = 13, Double = 14, Decimal = 15, DateTime = 16, Guid = 17, String = 18,
  Array = 19, VarInt = 20, VarUInt = 21, FixedLengthArray = 22, Char8 = 23, RelLoc = 24, DataLoc = 25, Boolean8 = 26,
};

// A field of a self-describing event, as its metadata declares it.
struct MetaField {
  std::string name;
  TypeCode type = TypeCode::Int32;
  std::vector<MetaField> element;  // Array/FixedLengthArray/RelLoc/DataLoc: exactly one (the element type)
  std::vector<MetaField> members;  // Object
  std::uint16_t fixed_count = 0;   // FixedLengthArray
};

// One metadata record: what an event's metadata id stands for. Records point
// to it as their SelfDescription.
struct Metadata final : SelfDescription {
  std::uint32_t id = 0;
  std::string provider_name;
  Guid provider_guid;  // the CLR providers' GUIDs, else the EventSource GUID derived from the name
  std::uint32_t event_id = 0;
  std::string event_name;
  std::uint64_t keywords = 0;
  std::uint8_t version = 0;
  std::uint8_t level = 0;
  std::uint8_t opcode = 0;
  bool has_opcode = false;
  std::vector<MetaField> fields;   // empty for CLR runtime events: their layout comes from the manifest
  bool describes_fields = false;   // the metadata carried a field list (possibly empty)
  unsigned format = 5;             // the file format version it came from (DateTime differs)

  std::string_view name() const noexcept override { return event_name; }
  void append_display_name(std::string& out) const override;
  bool has_fields() const noexcept override { return !fields.empty(); }
  Result<std::uint32_t> visit(Bytes payload, FieldVisitor& visitor) const override;
  Result<std::uint32_t> check(Bytes payload) const override;
};

// Walks a self-describing payload (bounds-checked) and reports its fields
// to a FieldVisitor, as the dynamic decoder does for manifest events.
Result<std::uint32_t> visit_self_describing(const Metadata& m, Bytes payload, FieldVisitor& visitor);

// The GUID a provider name stands for in EventPipe traces.
Guid provider_guid_for(std::string_view provider_name);

// The metadata EventPipe keeps for one event of `provider_name` (its event id, name, keywords,
// version, level, fields and tags: what a V4/V5 metadata record holds after its metadata id and
// provider name, and what a profiler's ICorProfilerCallback10::EventPipeEventDelivered receives),
// into `m`. An empty blob leaves all but the provider's name and GUID unknown. On failure the
// error says what is wrong and at which byte of the blob.
Status parse_event_metadata(Bytes blob, std::string_view provider_name, Metadata& m);

struct TraceInfo {
  unsigned format = 0;          // 3 (NetPerf), 4, 5 or 6
  SystemTime sync_time_utc{};
  std::int64_t sync_timestamp = 0;  // QPC ticks at SyncTimeUTC
  std::int64_t frequency = 1;       // ticks per second
  std::uint32_t pointer_size = 8;
  std::uint32_t process_id = 0;
  std::uint32_t processors = 0;
  std::uint32_t sampling_rate = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // V6 key/value pairs

  // Milliseconds since the sync time, as TraceEvent computes them. The difference is
  // taken modulo 2^64, so timestamps of a damaged trace give a wrong time, never overflow.
  double milliseconds(std::int64_t timestamp) const noexcept {
    const auto ticks = static_cast<std::int64_t>(static_cast<std::uint64_t>(timestamp) - static_cast<std::uint64_t>(sync_timestamp));
    return static_cast<double>(ticks) * 1000.0 / static_cast<double>(frequency);
  }
};

struct Stats {
  std::uint64_t events = 0;          // event records delivered
  std::uint64_t metadata = 0;        // metadata records read
  std::uint64_t event_blocks = 0, metadata_blocks = 0, stack_blocks = 0, sequence_points = 0, other_blocks = 0;
  std::uint64_t stacks = 0;          // stacks defined (NetPerf: events carrying a stack)
  std::uint64_t lost_events = 0;     // sequence-number gaps, per capture thread and at sequence points
                                     // (NetPerf has no sequence numbers: always 0 there)
  std::uint64_t unknown_metadata = 0;  // events naming a metadata id never defined
  std::uint64_t passed_over = 0;       // of `events`, those ReaderOptions::keep did not keep
};

struct ReaderOptions {
  // Deliver events in timestamp order, buffering them between sequence points. NetPerf files have
  // none (nor sorted flags): there the events of each event block are ordered, not across blocks.
  bool sorted = false;
  std::uint32_t max_block_size = 64u << 20;  // larger blocks are treated as damage
  // Deliver only the events this returns true for (null: every event); the others are passed
  // over as they are read, before sorting (Stats::passed_over counts them). A reader that needs a
  // few kinds of events in time order (clretw::RuntimeModel) then sorts only those.
  bool (*keep)(const EventRecord&) = nullptr;
};

// Bytes of a trace read in order, without seeking: a live session's socket, a pipe.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Reads up to n bytes (n > 0) into dst, blocking until at least one arrives; 0 at the end of
  // the stream; an Error when the source fails.
  virtual Result<std::size_t> read_some(void* dst, std::size_t n) = 0;
};

class Reader {
 public:
  // A file that cannot be opened (missing, not readable, a directory) is Errc::cannot_open, its
  // detail the reason (clretw/file.h).
  static Result<std::unique_ptr<Reader>> open_file(const std::string& path, ReaderOptions options = {});
  // Reads as the bytes come: a block's events are delivered as soon as the block has arrived, and
  // nothing is read ahead of it. `stream` must outlive the reader. If the stream ends before the
  // end-of-stream tag, next() says where, and what the stream reported.
  static Result<std::unique_ptr<Reader>> open_stream(ByteStream& stream, ReaderOptions options = {});
  // `data` must outlive the reader.
  static Result<std::unique_ptr<Reader>> open_memory(Bytes data, ReaderOptions options = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const TraceInfo& info() const noexcept;
  // The next event; nullptr at the end of the trace. The record and what it
  // points to stay valid until the next call. After an error (damage,
  // truncation) the reader delivers nothing more.
  Result<const EventRecord*> next();
  // The metadata of a record this reader delivered (null for records of other sources).
  static const Metadata* metadata(const EventRecord& record) noexcept {
    return dynamic_cast<const Metadata*>(record.self_description);
  }
  const Stats& stats() const noexcept;
  std::uint64_t position() const noexcept;   // bytes consumed so far
  std::uint64_t size() const noexcept;       // total bytes (0 when unknown)

  struct Impl;

 private:
  explicit Reader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Writer

struct WriterOptions {
  unsigned format = 5;        // 3 (NetPerf), 4, 5 or 6
  bool compressed = true;     // header compression in event blocks (not in NetPerf)
  std::uint32_t pointer_size = 8;
  std::uint32_t process_id = 4242;
  std::int64_t sync_timestamp = 1'000'000;
  std::int64_t frequency = 10'000'000;
  SystemTime sync_time_utc{2024, 5, 3, 17, 12, 30, 0, 0};
  std::uint32_t block_bytes = 64 * 1024;  // an event block is flushed when it reaches this size
};

// An event to write. NetPerf keeps only the metadata id, a 32-bit thread id, the
// timestamp, the stack, the activity ids and the payload.
struct EventSpec {
  std::uint32_t metadata_id = 0;
  std::uint64_t thread_id = 1;
  std::uint64_t capture_thread_id = 1;
  std::uint32_t processor = 0;
  std::int64_t timestamp = 0;
  std::uint32_t stack_id = 0;    // 0: no stack
  std::uint32_t skip_sequence = 0;  // pretend this many events of the capture thread were lost before this one
  bool sorted = false;
  Guid activity_id;
  Guid related_activity_id;
  Bytes payload;
};

class Writer {
 public:
  Writer(std::ostream& out, WriterOptions options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Defines a metadata record; returns its id (1, 2, ...). For V5+ an opcode
  // is written as a tag; self-describing fields as V1 fields, or as V2Params
  // when any field is an array (V5), or as V6 field descriptions. NetPerf:
  // an event of metadata id 0 in the current event block.
  std::uint32_t define(const Metadata& m);
  // Defines a stack; returns its id. NetPerf writes it inline in each event that names it.
  std::uint32_t stack(const std::vector<std::uint64_t>& ips);
  void event(const EventSpec& e);
  // Ends the current blocks and writes a sequence point with every capture
  // thread's last sequence number. NetPerf: only ends the current event block.
  void sequence_point(std::int64_t timestamp);
  // Flushes everything and ends the stream. Called by the destructor too.
  void finish();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace clretw::nettrace
