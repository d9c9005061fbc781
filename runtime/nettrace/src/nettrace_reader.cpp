// The nettrace reader: FastSerialization (V4/V5) and block (V6) formats.
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "clretw/nettrace.h"
#include "nettrace_metadata.h"

namespace clretw::nettrace {

using detail::BlockKind;
using detail::Cursor;

namespace {

// Byte source: a file read sequentially, or memory.
class Input {
 public:
  ~Input() {
    if (file_) std::fclose(file_);
  }
  bool open_file(const std::string& path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) return false;
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
    std::error_code ec;  // the size only drives progress reports: unknown (0) is fine
    const auto size = std::filesystem::file_size(path, ec);
    size_ = ec ? 0 : static_cast<std::uint64_t>(size);
    return true;
  }
  void open_memory(Bytes data) {
    memory_ = data;
    size_ = data.size();
  }
  // Reads exactly n bytes; false (with what could be read consumed) at the end.
  bool read(void* dst, std::size_t n) {
    if (file_) {
      const std::size_t got = std::fread(dst, 1, n, file_);
      pos_ += got;
      return got == n;
    }
    const std::size_t got = std::min<std::size_t>(n, memory_.size() - pos_);
    if (got) std::memcpy(dst, memory_.data() + pos_, got);
    pos_ += got;
    return got == n;
  }
  // Reads n bytes into buf (resized); returns a view of them. Memory input: no copy.
  bool read_block(std::vector<std::uint8_t>& buf, std::size_t n, Bytes& out) {
    if (!file_) {
      if (n > memory_.size() - pos_) {
        pos_ = memory_.size();
        return false;
      }
      out = memory_.subspan(pos_, n);
      pos_ += n;
      return true;
    }
    buf.resize(n);
    if (!read(buf.data(), n)) return false;
    out = Bytes(buf.data(), n);
    return true;
  }
  std::uint64_t pos() const noexcept { return pos_; }
  std::uint64_t size() const noexcept { return size_; }

 private:
  std::FILE* file_ = nullptr;
  Bytes memory_;
  std::uint64_t pos_ = 0, size_ = 0;
};

// The per-block state of compressed event headers.
struct Header {
  std::uint32_t metadata_id = 0;
  std::uint32_t sequence = 0;
  std::uint64_t thread = 0;          // thread id (V4/V5) or thread index (V6)
  std::uint64_t capture_thread = 0;  // likewise
  std::uint32_t processor = 0;
  std::uint32_t stack_id = 0;
  std::uint64_t timestamp = 0;
  Guid activity, related;
  std::uint32_t label_list = 0;  // V6
  bool sorted = false;
  std::uint32_t payload_size = 0;
};

struct ThreadInfo {
  std::uint64_t os_thread_id = 0;
  std::uint64_t process_id = 0;
  bool has_thread_id = false, has_process_id = false;
};

struct LabelList {
  Guid activity, related;
  bool has_opcode = false, has_level = false, has_version = false, has_keywords = false;
  std::uint8_t opcode = 0, level = 0, version = 0;
  std::uint64_t keywords = 0;
};

struct Buffered {
  EventRecord record;
  std::vector<std::uint8_t> payload, stack;
  std::uint64_t order = 0;  // file order, for a stable sort
};

const char* kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Trace: return "Trace";
    case BlockKind::Event: return "EventBlock";
    case BlockKind::Metadata: return "MetadataBlock";
    case BlockKind::SequencePoint: return "SPBlock";
    case BlockKind::Stack: return "StackBlock";
    case BlockKind::Thread: return "ThreadBlock";
    case BlockKind::RemoveThread: return "RemoveThreadBlock";
    case BlockKind::LabelList: return "LabelListBlock";
    case BlockKind::EndOfStream: return "EndOfStream";
  }
  return "block";
}

}  // namespace

struct Reader::Impl {
  Input in;
  ReaderOptions options;
  TraceInfo info;
  Stats stats;
  bool fast_serialization = true;  // V4/V5 (else V6 blocks)

  // Current block.
  std::vector<std::uint8_t> block_buf;
  Bytes block;
  std::size_t block_pos = 0, block_end = 0;
  std::uint64_t block_offset = 0;  // file offset of block[0]
  std::uint64_t block_number = 0;
  BlockKind block_kind = BlockKind::EndOfStream;
  bool compressed = false;
  Header header;

  // Caches.
  std::deque<Metadata> metadata_store;
  std::unordered_map<std::uint32_t, const Metadata*> metadata;
  std::uint32_t last_metadata_id = 0;  // consecutive events mostly share their metadata
  const Metadata* last_metadata = nullptr;
  std::vector<std::uint8_t> stack_bytes;
  std::unordered_map<std::uint32_t, std::pair<std::size_t, std::size_t>> stacks;  // id -> (offset, size)
  std::unordered_map<std::uint64_t, std::uint32_t> last_sequence;                // per capture thread
  std::unordered_map<std::uint64_t, ThreadInfo> threads;                          // V6
  std::unordered_map<std::uint32_t, LabelList> labels;                            // V6

  // Delivery.
  EventRecord record;
  bool ended = false;
  bool failed = false;
  Error error;
  std::vector<Buffered> pending;   // sorted mode: events not yet ordered
  std::vector<Buffered> ready;     // sorted mode: ordered, delivered from ready_pos
  std::size_t ready_pos = 0;
  Buffered current;
  std::uint64_t order = 0;

  // ---- errors ------------------------------------------------------------

  Error damage(Errc code, std::uint64_t offset, std::string detail) {
    Error e{code, offset, {}, std::move(detail)};
    failed = true;
    error = e;
    return e;
  }
  Error block_damage(std::string what) {
    return damage(Errc::bad_format, block_offset + block_pos,
                  std::string(kind_name(block_kind)) + " #" + std::to_string(block_number) + " at byte " +
                      std::to_string(block_offset) + ": " + what);
  }

  // ---- stream structure ----------------------------------------------------

  Error* open(Error& err) {
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "Nettrace", 8) != 0) {
      err = damage(Errc::bad_format, 0, "not a nettrace file (no 'Nettrace' magic)");
      return &err;
    }
    std::uint32_t word = 0;
    if (!in.read(&word, 4)) {
      err = damage(Errc::truncated, in.pos(), "file ends in the stream header");
      return &err;
    }
    word = load_le<std::uint32_t>(reinterpret_cast<const std::uint8_t*>(&word));
    if (word == 0) return open_v6(err);
    // FastSerialization: length-prefixed "!FastSerialization.1".
    fast_serialization = true;
    std::string name(word < 64 ? word : 0, '\0');
    if (word != 20 || !in.read(name.data(), name.size()) || name != "!FastSerialization.1") {
      err = damage(Errc::bad_format, 8, "unknown serialization header after the 'Nettrace' magic");
      return &err;
    }
    // The first object is the Trace object.
    std::string type;
    std::uint32_t version = 0;
    std::uint8_t tag = 0;
    if (!in.read(&tag, 1) || tag != detail::kBeginPrivateObject || !read_type(type, version, err)) {
      if (!failed) err = damage(Errc::bad_format, in.pos(), "the stream does not start with the Trace object");
      return &err;
    }
    if (type != "Trace") {
      err = damage(Errc::bad_format, in.pos(), "the first object is '" + type + "', not 'Trace'");
      return &err;
    }
    if (version < 4 || version > 5) {
      err = damage(Errc::unsupported_version, in.pos(),
                   "Trace object version " + std::to_string(version) + " (supported: 4 and 5, and format 6)");
      return &err;
    }
    info.format = version;
    std::uint8_t t[16 + 8 + 8 + 16];
    if (!in.read(t, sizeof t)) {
      err = damage(Errc::truncated, in.pos(), "file ends in the Trace object");
      return &err;
    }
    info.sync_time_utc = SystemTime::load(t);
    info.sync_timestamp = load_le<std::int64_t>(t + 16);
    info.frequency = load_le<std::int64_t>(t + 24);
    info.pointer_size = load_le<std::uint32_t>(t + 32);
    info.process_id = load_le<std::uint32_t>(t + 36);
    info.processors = load_le<std::uint32_t>(t + 40);
    info.sampling_rate = load_le<std::uint32_t>(t + 44);
    if (!in.read(&tag, 1) || tag != detail::kEndObject) {
      err = damage(Errc::bad_format, in.pos(), "the Trace object does not end where expected");
      return &err;
    }
    return check_info(err);
  }

  Error* check_info(Error& err) {
    if (info.pointer_size != 4 && info.pointer_size != 8) {
      err = damage(Errc::bad_format, in.pos(), "pointer size " + std::to_string(info.pointer_size) + " (must be 4 or 8)");
      return &err;
    }
    if (info.frequency <= 0) {
      err = damage(Errc::bad_format, in.pos(), "timestamp frequency " + std::to_string(info.frequency) + " (must be positive)");
      return &err;
    }
    return nullptr;
  }

  // FastSerialization type header after a BeginPrivateObject tag:
  // BeginPrivateObject, NullReference, int32 version, int32 min reader version, string name, EndObject.
  bool read_type(std::string& name, std::uint32_t& version, Error& err) {
    std::uint8_t h[2 + 12];
    if (!in.read(h, sizeof h) || h[0] != detail::kBeginPrivateObject || h[1] != detail::kNullReference) return false;
    version = load_le<std::uint32_t>(h + 2);
    const std::uint32_t min_reader = load_le<std::uint32_t>(h + 6);
    const std::uint32_t length = load_le<std::uint32_t>(h + 10);
    if (length > 256) return false;
    name.assign(length, '\0');
    std::uint8_t end = 0;
    if (!in.read(name.data(), length) || !in.read(&end, 1) || end != detail::kEndObject) return false;
    if (min_reader > 5 && name == "Trace") {
      err = damage(Errc::unsupported_version, in.pos(),
                   "the trace needs a reader of version " + std::to_string(min_reader) + " (this reader: 5)");
      return false;
    }
    return true;
  }

  Error* open_v6(Error& err) {
    fast_serialization = false;
    std::uint32_t v[2];
    if (!in.read(v, 8)) {
      err = damage(Errc::truncated, in.pos(), "file ends in the stream header");
      return &err;
    }
    const std::uint32_t major = load_le<std::uint32_t>(reinterpret_cast<const std::uint8_t*>(&v[0]));
    if (major != 6) {
      err = damage(Errc::unsupported_version, 12, "nettrace major version " + std::to_string(major) + " (supported: 4, 5, 6)");
      return &err;
    }
    info.format = 6;
    // The first block must be the trace block.
    if (!next_block(err)) {
      if (!failed) err = damage(Errc::truncated, in.pos(), "file ends before the trace block");
      return &err;
    }
    if (block_kind != BlockKind::Trace) {
      err = damage(Errc::bad_format, block_offset, "the first block is not the trace block");
      return &err;
    }
    if (block.size() < 16 + 8 + 8 + 4 + 4) {
      err = block_damage("trace block too short");
      return &err;
    }
    info.sync_time_utc = SystemTime::load(block.data());
    Cursor c(block, 16);
    info.sync_timestamp = c.i64();
    info.frequency = c.i64();
    if (c.ok && info.frequency <= 0) {
      err = block_damage("timestamp frequency " + std::to_string(info.frequency) + " (must be positive)");
      return &err;
    }
    info.pointer_size = c.u32();
    const std::uint32_t count = c.u32();
    for (std::uint32_t i = 0; i < count && c.ok; ++i) {
      std::string key = c.utf8(), value = c.utf8();
      if (key == "ProcessId") info.process_id = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
      if (key == "HardwareThreadCount") info.processors = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
      if (key == "ExpectedCPUSamplingRate") info.sampling_rate = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
      info.properties.emplace_back(std::move(key), std::move(value));
    }
    if (!c.ok) {
      err = block_damage("malformed trace block");
      return &err;
    }
    block_pos = block_end;
    return check_info(err);
  }

  // Reads the next block into `block`; false at the end of the stream or on damage (failed set).
  bool next_block(Error& err) {
    ++block_number;
    return fast_serialization ? next_object(err) : next_v6_block(err);
  }

  bool next_object(Error& err) {
    const std::uint64_t at = in.pos();
    std::uint8_t tag = 0;
    if (!in.read(&tag, 1)) {
      err = damage(Errc::truncated, at, "file ends without the end-of-stream tag (after block #" +
                                            std::to_string(block_number - 1) + ")");
      return false;
    }
    if (tag == detail::kNullReference) return false;  // end of stream
    std::string type;
    std::uint32_t version = 0;
    if (tag != detail::kBeginPrivateObject || !read_type(type, version, err)) {
      if (!failed) err = damage(Errc::bad_format, at, "expected an object at byte " + std::to_string(at));
      return false;
    }
    if (type == "EventBlock") block_kind = BlockKind::Event;
    else if (type == "MetadataBlock") block_kind = BlockKind::Metadata;
    else if (type == "StackBlock") block_kind = BlockKind::Stack;
    else if (type == "SPBlock") block_kind = BlockKind::SequencePoint;
    else {
      err = damage(Errc::bad_format, at, "unknown object type '" + type + "' at byte " + std::to_string(at));
      return false;
    }
    std::uint8_t sz[4];
    if (!in.read(sz, 4)) {
      err = damage(Errc::truncated, in.pos(), type + " #" + std::to_string(block_number) + " at byte " + std::to_string(at) +
                                                  ": file ends in the block size");
      return false;
    }
    const std::uint32_t size = load_le<std::uint32_t>(sz);
    // Zero padding to a 4-byte aligned file offset.
    std::uint8_t pad[4];
    const std::size_t padding = (4 - in.pos() % 4) % 4;
    if (padding && !in.read(pad, padding)) {
      err = damage(Errc::truncated, in.pos(), type + " #" + std::to_string(block_number) + ": file ends in padding");
      return false;
    }
    if (!load_block(size, type, at, err)) return false;
    std::uint8_t end = 0;
    if (!in.read(&end, 1) || end != detail::kEndObject) {
      err = damage(end ? Errc::bad_format : Errc::truncated, in.pos(),
                   type + " #" + std::to_string(block_number) + " at byte " + std::to_string(at) +
                       ": no end-of-object tag after the block");
      return false;
    }
    return true;
  }

  bool next_v6_block(Error& err) {
    const std::uint64_t at = in.pos();
    std::uint8_t h[4];
    if (!in.read(h, 4)) {
      err = damage(Errc::truncated, at, "file ends without an end-of-stream block");
      return false;
    }
    const std::uint32_t word = load_le<std::uint32_t>(h);
    block_kind = static_cast<BlockKind>(word >> 24);
    if (block_kind == BlockKind::EndOfStream) return false;
    return load_block(word & 0xFFFFFF, kind_name(block_kind), at, err);
  }

  bool load_block(std::uint32_t size, const std::string& type, std::uint64_t at, Error& err) {
    if (size > options.max_block_size) {
      err = damage(Errc::bad_format, at, type + " #" + std::to_string(block_number) + " at byte " + std::to_string(at) +
                                             " claims " + std::to_string(size) + " bytes");
      return false;
    }
    block_offset = in.pos();
    if (!in.read_block(block_buf, size, block)) {
      err = damage(Errc::truncated, in.pos(),
                   type + " #" + std::to_string(block_number) + " at byte " + std::to_string(at) + " needs " +
                       std::to_string(size) + " bytes, the file ends after " + std::to_string(in.pos() - block_offset));
      return false;
    }
    block_pos = 0;
    block_end = size;
    return true;
  }

  // ---- blocks ----------------------------------------------------------------

  // Prepares an event or metadata block: its header, and fresh header state.
  bool begin_event_block(Error& err) {
    Cursor c(block);
    if (block_kind == BlockKind::Metadata && !fast_serialization) {  // V6 metadata: uint16 header size, excluding itself
      const std::uint16_t hs = c.u16();
      c.skip(hs);
      if (!c.ok) {
        err = block_damage("header larger than the block");
        return false;
      }
      block_pos = c.pos();
      return true;
    }
    const std::uint16_t header_size = c.u16();
    const std::uint16_t flags = c.u16();
    if (!c.ok || header_size < 20 || header_size > block.size()) {
      err = block_damage("bad block header size " + std::to_string(header_size));
      return false;
    }
    compressed = (flags & 1) != 0;
    block_pos = header_size;
    header = Header{};
    return true;
  }

  // Decodes the next event blob header of the current block into `header`;
  // returns the payload. False on damage.
  bool read_blob(Bytes& payload, Error& err) {
    Cursor c(Bytes(block.data(), block_end), block_pos);
    const bool v6 = !fast_serialization;
    if (compressed) {
      const std::uint8_t flags = c.u8();
      if (flags & detail::kFlagMetadataId) header.metadata_id = c.varuint32();
      if (flags & detail::kFlagCaptureThreadAndSequence) {
        header.sequence += c.varuint32() + 1;
        header.capture_thread = c.varuint64();
        header.processor = c.varuint32();
      } else if (v6 || header.metadata_id != 0) {
        ++header.sequence;
      }
      if (flags & detail::kFlagThreadId) header.thread = c.varuint64();
      if (flags & detail::kFlagStackId) header.stack_id = c.varuint32();
      header.timestamp += c.varuint64();  // deltas wrap modulo 2^64: "negative" deltas are common
      if (v6) {
        if (flags & detail::kFlagActivityId) header.label_list = c.varuint32();
      } else {
        if (flags & detail::kFlagActivityId) header.activity = c.guid();
        if (flags & detail::kFlagRelatedActivityId) header.related = c.guid();
      }
      header.sorted = (flags & detail::kFlagSorted) != 0;
      if (flags & detail::kFlagPayloadSize) header.payload_size = c.varuint32();
      payload = c.bytes(header.payload_size);
      if (!c.ok) {
        err = block_damage("event header or payload runs past the end of the block");
        return false;
      }
      block_pos = c.pos();
      return true;
    }
    // Uncompressed.
    const std::size_t start = c.pos();
    const std::uint32_t size = c.u32();
    const std::uint32_t id = c.u32();
    if (v6) {
      header.sorted = (id & 0x80000000u) != 0;
    } else {
      header.sorted = (id & 0x80000000u) == 0;  // V4/V5: the high bit marks events that are *not* sorted
    }
    header.metadata_id = id & 0x7FFFFFFFu;
    header.sequence = c.u32();
    header.thread = c.u64();
    header.capture_thread = c.u64();
    header.processor = c.u32();
    header.stack_id = c.u32();
    header.timestamp = c.u64();
    if (v6) {
      header.label_list = c.u32();
    } else {
      header.activity = c.guid();
      header.related = c.guid();
    }
    header.payload_size = c.u32();
    payload = c.bytes(header.payload_size);
    if (!c.ok || c.pos() - start > std::size_t{size} + 4) {
      err = block_damage("event header or payload runs past the end of the block");
      return false;
    }
    std::size_t next = start + 4 + size;
    if (!v6) next = (next + 3) & ~std::size_t{3};  // V4/V5: padded to 4 bytes (block starts are aligned)
    block_pos = std::min(next, block_end);
    return true;
  }

  bool read_metadata_v6(Error& err) {
    Cursor c(Bytes(block.data(), block_end), block_pos);
    const std::uint16_t size = c.u16();
    Bytes row = c.bytes(size);
    if (!c.ok) {
      err = block_damage("metadata row runs past the end of the block");
      return false;
    }
    block_pos = c.pos();
    Metadata m;
    m.format = 6;
    if (std::string why = detail::parse_metadata_v6(row, m); !why.empty()) {
      err = block_damage("malformed metadata row: " + why);
      return false;
    }
    add_metadata(std::move(m));
    return true;
  }

  void add_metadata(Metadata m) {
    ++stats.metadata;
    metadata_store.push_back(std::move(m));
    metadata[metadata_store.back().id] = &metadata_store.back();
    last_metadata = nullptr;  // an id may have been redefined
  }

  bool read_stack_block(Error& err) {
    Cursor c(block);
    const std::uint32_t first = c.u32();
    const std::uint32_t count = c.u32();
    if (!c.ok || count > block.size()) {
      err = block_damage("bad stack block header");
      return false;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t size = c.u32();
      Bytes ips = c.bytes(size);
      if (!c.ok) {
        err = block_damage("stack " + std::to_string(first + i) + " runs past the end of the block");
        return false;
      }
      stacks[first + i] = {stack_bytes.size(), ips.size()};
      stack_bytes.insert(stack_bytes.end(), ips.begin(), ips.end());
      ++stats.stacks;
    }
    return true;
  }

  bool read_sequence_point(Error& err) {
    Cursor c(block);
    c.u64();  // timestamp
    std::uint32_t flags = 0;
    if (!fast_serialization) flags = c.u32();
    const std::uint32_t count = c.u32();
    if (!c.ok) {
      err = block_damage("bad sequence point header");
      return false;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t thread = fast_serialization ? c.u64() : c.varuint64();
      const std::uint32_t seq = fast_serialization ? c.u32() : c.varuint32();
      if (!c.ok) {
        err = block_damage("sequence point thread list runs past the end of the block");
        return false;
      }
      auto it = last_sequence.find(thread);
      const std::uint32_t last = it == last_sequence.end() ? 0 : it->second;
      const std::uint32_t gap = seq - last;
      if (gap != 0 && gap < 0x80000000u) {
        stats.lost_events += gap;
        last_sequence[thread] = seq;
      }
    }
    ++stats.sequence_points;
    // A sequence point ends the validity of stack (and V6 label) ids.
    stacks.clear();
    stack_bytes.clear();
    labels.clear();
    if (flags & 1) threads.clear();
    if (flags & 2) {
      metadata.clear();  // the records themselves stay alive for events already handed out
      last_metadata = nullptr;
    }
    return true;
  }

  bool read_thread_block(Error& err) {
    Cursor c(block);
    while (!c.at_end()) {
      const std::uint16_t size = c.u16();
      Cursor row(c.bytes(size));
      if (!c.ok) {
        err = block_damage("thread row runs past the end of the block");
        return false;
      }
      ThreadInfo t;
      const std::uint64_t index = row.varuint64();
      while (!row.at_end() && row.ok) {
        switch (row.u8()) {
          case 1: row.utf8(); break;  // name
          case 2: t.process_id = row.varuint64(), t.has_process_id = true; break;
          case 3: t.os_thread_id = row.varuint64(), t.has_thread_id = true; break;
          case 4: row.utf8(), row.utf8(); break;
          default: row.ok = false;
        }
      }
      if (!row.ok) {
        err = block_damage("malformed thread row");
        return false;
      }
      threads[index] = t;
    }
    return true;
  }

  bool read_remove_thread_block(Error& err) {
    Cursor c(block);
    while (!c.at_end()) {
      const std::uint64_t index = c.varuint64();
      const std::uint32_t seq = c.varuint32();
      if (!c.ok) {
        err = block_damage("malformed remove-thread entry");
        return false;
      }
      auto it = last_sequence.find(index);
      const std::uint32_t last = it == last_sequence.end() ? 0 : it->second;
      const std::uint32_t gap = seq - last;
      if (gap != 0 && gap < 0x80000000u) stats.lost_events += gap;
      last_sequence.erase(index);
      threads.erase(index);
    }
    return true;
  }

  bool read_label_block(Error& err) {
    Cursor c(block);
    std::uint32_t index = c.u32();
    const std::uint32_t count = c.u32();
    for (std::uint32_t i = 0; i < count && c.ok; ++i, ++index) {
      LabelList l;
      for (bool last = false; !last && c.ok;) {
        const std::uint8_t kind = c.u8();
        last = (kind & 0x80) != 0;
        switch (kind & 0x7F) {
          case 1: l.activity = c.guid(); break;
          case 2: l.related = c.guid(); break;
          case 3: c.skip(16); break;
          case 4: c.u64(); break;
          case 5: c.utf8(), c.utf8(); break;
          case 6: c.utf8(), c.varuint64(); break;
          case 7: l.opcode = c.u8(), l.has_opcode = true; break;
          case 8: l.keywords = c.u64(), l.has_keywords = true; break;
          case 9: l.level = c.u8(), l.has_level = true; break;
          case 10: l.version = c.u8(), l.has_version = true; break;
          default: c.ok = false;
        }
      }
      labels[index] = l;
    }
    if (!c.ok) {
      err = block_damage("malformed label list");
      return false;
    }
    return true;
  }

  // ---- events ------------------------------------------------------------------

  void fill_record(Bytes payload) {
    EventRecord& r = record;
    if (!last_metadata || last_metadata_id != header.metadata_id) {
      auto it = metadata.find(header.metadata_id);
      last_metadata = it == metadata.end() ? nullptr : it->second;
      last_metadata_id = header.metadata_id;
    }
    const Metadata* m = last_metadata;
    if (!m) ++stats.unknown_metadata;
    r.self_description = m;
    r.provider_guid = m ? m->provider_guid : Guid{};
    r.provider_name = m ? std::string_view(m->provider_name) : std::string_view();
    r.event_name = m ? std::string_view(m->event_name) : std::string_view();
    r.id = m ? static_cast<std::uint16_t>(m->event_id) : 0;
    r.version = m ? m->version : 0;
    r.level = m ? m->level : 0;
    r.opcode = m ? m->opcode : 0;
    r.keywords = m ? m->keywords : 0;
    r.task = 0;
    r.timestamp = static_cast<std::int64_t>(header.timestamp);
    r.process_id = info.process_id;
    r.thread_id = header.thread;
    r.capture_thread_id = header.capture_thread;
    r.processor = header.processor;
    r.sequence = header.sequence;
    r.pointer_size = static_cast<std::uint8_t>(info.pointer_size);
    r.activity_id = header.activity;
    r.related_activity_id = header.related;
    if (!fast_serialization) {
      if (auto t = threads.find(header.thread); t != threads.end()) {
        if (t->second.has_thread_id) r.thread_id = t->second.os_thread_id;
        if (t->second.has_process_id) r.process_id = static_cast<std::uint32_t>(t->second.process_id);
      }
      if (auto t = threads.find(header.capture_thread); t != threads.end() && t->second.has_thread_id)
        r.capture_thread_id = t->second.os_thread_id;
      r.activity_id = r.related_activity_id = Guid{};
      if (auto l = labels.find(header.label_list); l != labels.end()) {
        r.activity_id = l->second.activity;
        r.related_activity_id = l->second.related;
        if (l->second.has_opcode) r.opcode = l->second.opcode;
        if (l->second.has_level) r.level = l->second.level;
        if (l->second.has_version) r.version = l->second.version;
        if (l->second.has_keywords) r.keywords = l->second.keywords;
      }
    }
    r.payload = payload;
    r.stack = {};
    if (header.stack_id) {
      if (auto s = stacks.find(header.stack_id); s != stacks.end())
        r.stack = Bytes(stack_bytes.data() + s->second.first, s->second.second);
    }
    // Sequence numbers, per capture thread.
    auto [seq, inserted] = last_sequence.try_emplace(header.capture_thread, header.sequence);
    if (!inserted) {
      const std::uint32_t gap = header.sequence - seq->second - 1;
      if (gap != 0 && gap < 0x80000000u && header.sequence != 1) stats.lost_events += gap;
      seq->second = header.sequence;
    } else if (header.sequence > 1 && header.sequence < 0x80000000u) {
      stats.lost_events += header.sequence - 1;  // the thread's first event here is not its first
    }
    ++stats.events;
  }

  // The next event in file order; nullptr at the end.
  Result<const EventRecord*> next_raw() {
    Error err;
    for (;;) {
      if (block_pos < block_end && (block_kind == BlockKind::Event || block_kind == BlockKind::Metadata)) {
        if (block_kind == BlockKind::Metadata && !fast_serialization) {
          if (!read_metadata_v6(err)) return err;
          continue;
        }
        Bytes payload;
        if (!read_blob(payload, err)) return err;
        if (block_kind == BlockKind::Metadata) {
          Metadata m;
          m.format = info.format;
          if (std::string why = detail::parse_metadata_v5(payload, m); !why.empty())
            return block_damage("malformed metadata record: " + why);
          add_metadata(std::move(m));
          continue;
        }
        fill_record(payload);
        return &record;
      }
      if (!next_block(err)) {
        if (failed) return err;
        ended = true;
        return static_cast<const EventRecord*>(nullptr);
      }
      bool ok = true;
      switch (block_kind) {
        case BlockKind::Event:
          ++stats.event_blocks;
          ok = begin_event_block(err);
          break;
        case BlockKind::Metadata:
          ++stats.metadata_blocks;
          ok = begin_event_block(err);
          break;
        case BlockKind::Stack:
          ++stats.stack_blocks;
          ok = read_stack_block(err);
          block_pos = block_end;
          break;
        case BlockKind::SequencePoint:
          ok = read_sequence_point(err);
          block_pos = block_end;
          if (ok && options.sorted) return static_cast<const EventRecord*>(&sequence_marker);
          break;
        case BlockKind::Thread:
          ok = read_thread_block(err);
          block_pos = block_end;
          break;
        case BlockKind::RemoveThread:
          ok = read_remove_thread_block(err);
          block_pos = block_end;
          break;
        case BlockKind::LabelList:
          ok = read_label_block(err);
          block_pos = block_end;
          break;
        default:  // V6 readers skip blocks they do not know
          ++stats.other_blocks;
          block_pos = block_end;
          break;
      }
      if (!ok) return err;
    }
  }

  // Sorted delivery: buffer, and release in timestamp order at sorted events,
  // sequence points and the end.
  EventRecord sequence_marker;  // next_raw() returns its address at sequence points (sorted mode only)

  void buffer_current() {
    Buffered b;
    b.record = record;
    b.payload.assign(record.payload.begin(), record.payload.end());
    b.stack.assign(record.stack.begin(), record.stack.end());
    b.order = order++;
    pending.push_back(std::move(b));
  }
  // Moves buffered events with timestamp <= limit (all when limit is null) to `ready`, in order.
  void release(const std::int64_t* limit) {
    std::vector<Buffered> keep;
    std::vector<Buffered> out;
    for (Buffered& b : pending) (limit && b.record.timestamp > *limit ? keep : out).push_back(std::move(b));
    pending = std::move(keep);
    std::stable_sort(out.begin(), out.end(), [](const Buffered& a, const Buffered& b) {
      return a.record.timestamp != b.record.timestamp ? a.record.timestamp < b.record.timestamp : a.order < b.order;
    });
    ready.erase(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(ready_pos));
    ready_pos = 0;
    for (Buffered& b : out) ready.push_back(std::move(b));
  }

  Result<const EventRecord*> next_sorted() {
    for (;;) {
      if (ready_pos < ready.size()) {
        current = std::move(ready[ready_pos++]);
        current.record.payload = current.payload;
        current.record.stack = current.stack;
        return &current.record;
      }
      if (ended || failed) {
        if (!pending.empty()) {
          release(nullptr);
          continue;
        }
        if (failed) return error;
        return static_cast<const EventRecord*>(nullptr);
      }
      auto r = next_raw();
      if (!r) {
        release(nullptr);  // deliver what came before the damage first
        continue;
      }
      if (*r == nullptr) {
        release(nullptr);
        continue;
      }
      if (*r == &sequence_marker) {
        release(nullptr);
        continue;
      }
      buffer_current();
      if (header.sorted) {
        const std::int64_t t = record.timestamp;
        release(&t);
      }
    }
  }
};

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::open_file(const std::string& path, ReaderOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (!impl->in.open_file(path)) return Error{Errc::io_error, 0, {}, "cannot open " + path};
  Error err;
  if (impl->open(err)) return err;
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Result<std::unique_ptr<Reader>> Reader::open_memory(Bytes data, ReaderOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->in.open_memory(data);
  Error err;
  if (impl->open(err)) return err;
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

const TraceInfo& Reader::info() const noexcept { return impl_->info; }
const Stats& Reader::stats() const noexcept { return impl_->stats; }
std::uint64_t Reader::position() const noexcept { return impl_->in.pos(); }
std::uint64_t Reader::size() const noexcept { return impl_->in.size(); }

Result<const EventRecord*> Reader::next() {
  if (impl_->options.sorted) return impl_->next_sorted();
  if (impl_->failed) return impl_->error;
  if (impl_->ended) return static_cast<const EventRecord*>(nullptr);
  return impl_->next_raw();
}

}  // namespace clretw::nettrace
