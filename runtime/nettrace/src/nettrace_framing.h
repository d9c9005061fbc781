// Internal: the framing of a nettrace stream - its header, the trace
// description that opens it, and the sequence of blocks after it:
// FastSerialization objects (NetPerf format 3, nettrace formats 4 and 5) or
// block headers (format 6). A NetPerf stream (.NET Core 2.1/2.2) is told by
// its content: "!FastSerialization.1" at offset 4 with no "Nettrace" magic
// before it; its objects are the Trace object and EventBlocks.
// What is inside an event, metadata, stack or other block is for the block
// parsers (nettrace_blocks.h); ordering events is for the sorter.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "clretw/nettrace.h"
#include "nettrace_format.h"

namespace clretw::nettrace::detail {

// Byte source: a file read sequentially, memory, or a stream.
class Input {
 public:
  Input() = default;
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input();
  // The file at `path`, or Errc::cannot_open with the reason (clretw/file.h).
  Status open_file(const std::string& path);
  void open_memory(Bytes data);
  void open_stream(ByteStream& stream) { stream_ = &stream; }
  // What a stream reported when it failed (empty when it did not).
  const std::string& stream_error() const noexcept { return stream_error_; }
  // Reads exactly n bytes; false (with what could be read consumed) at the end.
  bool read(void* dst, std::size_t n);
  // Reads n bytes into buf (resized); returns a view of them. Memory input: no copy.
  bool read_block(std::vector<std::uint8_t>& buf, std::size_t n, Bytes& out);
  std::uint64_t pos() const noexcept { return pos_; }
  std::uint64_t size() const noexcept { return size_; }

 private:
  std::FILE* file_ = nullptr;
  ByteStream* stream_ = nullptr;
  std::string stream_error_;
  Bytes memory_;
  std::uint64_t pos_ = 0, size_ = 0;
};

const char* kind_name(BlockKind k) noexcept;

// One block of the stream.
struct Block {
  BlockKind kind = BlockKind::EndOfStream;
  Bytes bytes;               // its content
  std::uint64_t offset = 0;  // file offset of bytes[0]
  std::uint64_t number = 0;  // 1-based, in file order

  // Damage at bytes[pos], named by block kind, number and offset.
  Error damage(std::size_t pos, const std::string& what) const;
};

class Framing {
 public:
  explicit Framing(std::uint32_t max_block_size) : max_block_size_(max_block_size) {}
  Input& input() noexcept { return in_; }
  const Input& input() const noexcept { return in_; }
  bool fast_serialization() const noexcept { return fast_serialization_; }

  // Reads the stream header and the trace description (the Trace object of
  // formats 3 to 5, the trace block of format 6) into `info`.
  Status open(TraceInfo& info);
  // Loads the next block; false at the end of the stream.
  Result<bool> next(Block& block);

 private:
  Status open_v6(TraceInfo& info);
  Status open_netperf(TraceInfo& info);
  Status read_trace_object(TraceInfo& info);
  // false: not a well-formed type header (the caller says what it expected).
  Result<bool> read_type(std::string& name, std::uint32_t& version);
  Result<bool> next_object(Block& block);
  Result<bool> next_v6_block(Block& block);
  Status load(Block& block, std::uint32_t size, std::string_view type, std::uint64_t at);

  Input in_;
  std::uint32_t max_block_size_;
  bool fast_serialization_ = true;
  bool netperf_ = false;                            // format 3: no magic, BeginObject tags, EventBlocks only
  std::uint8_t object_tag_ = kBeginPrivateObject;  // the tag that opens an object and its type
  std::uint64_t block_number_ = 0;
  std::vector<std::uint8_t> buffer_;  // the current block, when reading a file
};

}  // namespace clretw::nettrace::detail
