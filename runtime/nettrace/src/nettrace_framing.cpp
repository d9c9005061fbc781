#include "nettrace_framing.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "clretw/file.h"

namespace clretw::nettrace::detail {

// ---- input -------------------------------------------------------------------

Input::~Input() {
  if (file_) std::fclose(file_);
}

Status Input::open_file(const std::string& path) {
  auto opened = open_for_reading(path);
  if (!opened) return std::move(opened).error();
  file_ = *opened;
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  std::error_code ec;  // the size only drives progress reports: unknown (0) is fine
  const auto size = std::filesystem::file_size(path, ec);
  size_ = ec ? 0 : static_cast<std::uint64_t>(size);
  return {};
}

void Input::open_memory(Bytes data) {
  memory_ = data;
  size_ = data.size();
}

bool Input::read(void* dst, std::size_t n) {
  if (stream_) {
    auto* out = static_cast<std::uint8_t*>(dst);
    std::size_t done = 0;
    while (done < n) {
      auto got = stream_->read_some(out + done, n - done);
      if (!got) {
        stream_error_ = got.error().message();
        break;
      }
      if (*got == 0) break;
      done += *got;
    }
    pos_ += done;
    return done == n;
  }
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

bool Input::read_block(std::vector<std::uint8_t>& buf, std::size_t n, Bytes& out) {
  if (!file_ && !stream_) {
    if (n > memory_.size() - pos_) {
      pos_ = memory_.size();
      return false;
    }
    out = memory_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  // The buffer only grows: resizing it to each block's size would zero-fill the difference
  // every time a large block follows a small one (a tenth of reading a file). Under
  // AddressSanitizer it is sized exactly, so that reading past a block is reported.
#if defined(__SANITIZE_ADDRESS__)
  buf.resize(n);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  buf.resize(n);
#endif
#endif
  if (buf.size() < n) buf.resize(n);
  if (!read(buf.data(), n)) return false;
  out = Bytes(buf.data(), n);
  return true;
}

// ---- blocks ------------------------------------------------------------------

const char* kind_name(BlockKind k) noexcept {
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

Error Block::damage(std::size_t pos, const std::string& what) const {
  return Error{Errc::bad_format, offset + pos, {},
               std::string(kind_name(kind)) + " #" + std::to_string(number) + " at byte " + std::to_string(offset) +
                   ": " + what};
}

namespace {

Error damage(Errc code, std::uint64_t offset, std::string detail) { return Error{code, offset, {}, std::move(detail)}; }

Status check_info(const TraceInfo& info, std::uint64_t at) {
  if (info.pointer_size != 4 && info.pointer_size != 8)
    return damage(Errc::bad_format, at, "pointer size " + std::to_string(info.pointer_size) + " (must be 4 or 8)");
  if (info.frequency <= 0)
    return damage(Errc::bad_format, at, "timestamp frequency " + std::to_string(info.frequency) + " (must be positive)");
  return {};
}

}  // namespace

// ---- the stream header and the trace description -------------------------------

Status Framing::open(TraceInfo& info) {
  std::uint8_t head[8];
  const bool whole = in_.read(head, 8);
  if (whole && load_le<std::uint32_t>(head) == 20 && std::memcmp(head + 4, "!Fas", 4) == 0)
    return open_netperf(info);
  if (!whole || std::memcmp(head, "Nettrace", 8) != 0)
    return damage(Errc::bad_format, 0,
                  "not a nettrace file (no 'Nettrace' magic) nor a NetPerf file (no FastSerialization header)");
  std::uint32_t word = 0;
  if (!in_.read(&word, 4)) return damage(Errc::truncated, in_.pos(), "file ends in the stream header");
  word = load_le<std::uint32_t>(reinterpret_cast<const std::uint8_t*>(&word));
  if (word == 0) return open_v6(info);
  // FastSerialization: length-prefixed "!FastSerialization.1".
  fast_serialization_ = true;
  std::string name(word < 64 ? word : 0, '\0');
  if (word != 20 || !in_.read(name.data(), name.size()) || name != "!FastSerialization.1")
    return damage(Errc::bad_format, 8, "unknown serialization header after the 'Nettrace' magic");
  return read_trace_object(info);
}

// NetPerf: the stream starts with the length-prefixed "!FastSerialization.1", with no magic before
// it; open() has read its length and "!Fas".
Status Framing::open_netperf(TraceInfo& info) {
  char rest[16];
  if (!in_.read(rest, sizeof rest)) return damage(Errc::truncated, in_.pos(), "file ends in the stream header");
  if (std::memcmp(rest, "tSerialization.1", sizeof rest) != 0)
    return damage(Errc::bad_format, 4, "unknown serialization header (not '!FastSerialization.1')");
  fast_serialization_ = true;
  netperf_ = true;
  object_tag_ = kBeginObject;
  return read_trace_object(info);
}

// The Trace object: SYSTEMTIME sync time, int64 sync QPC, int64 QPC frequency, int32 pointer size,
// int32 process id, int32 processors, int32 expected CPU sampling rate - the same in NetPerf
// version 3 and nettrace versions 4 and 5.
Status Framing::read_trace_object(TraceInfo& info) {
  std::string type;
  std::uint32_t version = 0;
  std::uint8_t tag = 0;
  if (!in_.read(&tag, 1) || tag != object_tag_)
    return damage(Errc::bad_format, in_.pos(), "the stream does not start with the Trace object");
  auto well_formed = read_type(type, version);
  if (!well_formed) return std::move(well_formed).error();
  if (!*well_formed) return damage(Errc::bad_format, in_.pos(), "the stream does not start with the Trace object");
  if (netperf_) {
    // .NET Core 2.0 wrote versions 1 and 2, under another type name.
    if (type == "Microsoft.DotNet.Runtime.EventPipeFile" || (type == "Trace" && version < 3))
      return damage(Errc::unsupported_version, in_.pos(),
                    "NetPerf format version " + std::to_string(version) +
                        " (.NET Core 2.0) is not supported; version 3 (.NET Core 2.1/2.2) is");
    if (type != "Trace") return damage(Errc::bad_format, in_.pos(), "the first object is '" + type + "', not 'Trace'");
    if (version != 3)
      return damage(Errc::unsupported_version, in_.pos(),
                    "NetPerf Trace object version " + std::to_string(version) +
                        " (supported: 3; later versions are nettrace files, which begin with 'Nettrace')");
  } else {
    if (type != "Trace") return damage(Errc::bad_format, in_.pos(), "the first object is '" + type + "', not 'Trace'");
    if (version < 4 || version > 5)
      return damage(Errc::unsupported_version, in_.pos(),
                    "Trace object version " + std::to_string(version) + " (supported: 4 and 5, and format 6)");
  }
  info.format = version;
  std::uint8_t t[16 + 8 + 8 + 16];
  if (!in_.read(t, sizeof t)) return damage(Errc::truncated, in_.pos(), "file ends in the Trace object");
  info.sync_time_utc = SystemTime::load(t);
  info.sync_timestamp = load_le<std::int64_t>(t + 16);
  info.frequency = load_le<std::int64_t>(t + 24);
  info.pointer_size = load_le<std::uint32_t>(t + 32);
  info.process_id = load_le<std::uint32_t>(t + 36);
  info.processors = load_le<std::uint32_t>(t + 40);
  info.sampling_rate = load_le<std::uint32_t>(t + 44);
  if (!in_.read(&tag, 1) || tag != kEndObject)
    return damage(Errc::bad_format, in_.pos(), "the Trace object does not end where expected");
  return check_info(info, in_.pos());
}

// FastSerialization type header after a BeginPrivateObject tag (NetPerf: BeginObject, here too):
// BeginPrivateObject, NullReference, int32 version, int32 min reader version, string name, EndObject.
Result<bool> Framing::read_type(std::string& name, std::uint32_t& version) {
  std::uint8_t h[2 + 12];
  if (!in_.read(h, sizeof h) || h[0] != object_tag_ || h[1] != kNullReference) return false;
  version = load_le<std::uint32_t>(h + 2);
  const std::uint32_t min_reader = load_le<std::uint32_t>(h + 6);
  const std::uint32_t length = load_le<std::uint32_t>(h + 10);
  if (length > 256) return false;
  name.assign(length, '\0');
  std::uint8_t end = 0;
  if (!in_.read(name.data(), length) || !in_.read(&end, 1) || end != kEndObject) return false;
  if (min_reader > 5 && name == "Trace")
    return damage(Errc::unsupported_version, in_.pos(),
                  "the trace needs a reader of version " + std::to_string(min_reader) + " (this reader: 5)");
  return true;
}

Status Framing::open_v6(TraceInfo& info) {
  fast_serialization_ = false;
  std::uint32_t v[2];
  if (!in_.read(v, 8)) return damage(Errc::truncated, in_.pos(), "file ends in the stream header");
  const std::uint32_t major = load_le<std::uint32_t>(reinterpret_cast<const std::uint8_t*>(&v[0]));
  if (major != 6)
    return damage(Errc::unsupported_version, 12, "nettrace major version " + std::to_string(major) + " (supported: 4, 5, 6)");
  info.format = 6;
  // The first block must be the trace block.
  Block b;
  auto more = next(b);
  if (!more) return std::move(more).error();
  if (!*more) return damage(Errc::truncated, in_.pos(), "file ends before the trace block");
  if (b.kind != BlockKind::Trace) return damage(Errc::bad_format, b.offset, "the first block is not the trace block");
  if (b.bytes.size() < 16 + 8 + 8 + 4 + 4) return b.damage(0, "trace block too short");
  info.sync_time_utc = SystemTime::load(b.bytes.data());
  Cursor c(b.bytes, 16);
  info.sync_timestamp = c.i64();
  info.frequency = c.i64();
  if (c.ok && info.frequency <= 0)
    return b.damage(0, "timestamp frequency " + std::to_string(info.frequency) + " (must be positive)");
  info.pointer_size = c.u32();
  const std::uint32_t count = c.u32();
  for (std::uint32_t i = 0; i < count && c.ok; ++i) {
    std::string key = c.utf8(), value = c.utf8();
    const auto number = [&] { return static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10)); };
    if (key == "ProcessId") info.process_id = number();
    if (key == "HardwareThreadCount") info.processors = number();
    if (key == "ExpectedCPUSamplingRate") info.sampling_rate = number();
    info.properties.emplace_back(std::move(key), std::move(value));
  }
  if (!c.ok) return b.damage(0, "malformed trace block");
  return check_info(info, in_.pos());
}

// ---- the blocks after it ---------------------------------------------------------

Result<bool> Framing::next(Block& block) {
  block.number = ++block_number_;
  return fast_serialization_ ? next_object(block) : next_v6_block(block);
}

Result<bool> Framing::next_object(Block& block) {
  const std::uint64_t at = in_.pos();
  std::uint8_t tag = 0;
  if (!in_.read(&tag, 1))
    return damage(Errc::truncated, at,
                  "file ends without the end-of-stream tag (after block #" + std::to_string(block.number - 1) + ")");
  if (tag == kNullReference) return false;  // end of stream
  std::string type;
  std::uint32_t version = 0;
  if (tag != object_tag_) return damage(Errc::bad_format, at, "expected an object at byte " + std::to_string(at));
  auto well_formed = read_type(type, version);
  if (!well_formed) return std::move(well_formed).error();
  if (!*well_formed) return damage(Errc::bad_format, at, "expected an object at byte " + std::to_string(at));
  if (type == "EventBlock") block.kind = BlockKind::Event;
  else if (netperf_)  // NetPerf has event blocks only: metadata and stacks travel inside them
    return damage(Errc::bad_format, at,
                  "unknown object type '" + type + "' in a NetPerf stream at byte " + std::to_string(at));
  else if (type == "MetadataBlock") block.kind = BlockKind::Metadata;
  else if (type == "StackBlock") block.kind = BlockKind::Stack;
  else if (type == "SPBlock") block.kind = BlockKind::SequencePoint;
  else return damage(Errc::bad_format, at, "unknown object type '" + type + "' at byte " + std::to_string(at));
  // Named only when something is wrong: a block read costs no allocation.
  auto where = [&] { return type + " #" + std::to_string(block.number); };
  std::uint8_t sz[4];
  if (!in_.read(sz, 4))
    return damage(Errc::truncated, in_.pos(), where() + " at byte " + std::to_string(at) + ": file ends in the block size");
  const std::uint32_t size = load_le<std::uint32_t>(sz);
  // Zero padding to a 4-byte aligned file offset (NetPerf too: its stream starts at offset 0).
  std::uint8_t pad[4];
  const std::size_t padding = (4 - in_.pos() % 4) % 4;
  if (padding && !in_.read(pad, padding)) return damage(Errc::truncated, in_.pos(), where() + ": file ends in padding");
  if (Status s = load(block, size, type, at); !s) return std::move(s).error();
  std::uint8_t end = 0;
  if (!in_.read(&end, 1) || end != kEndObject)
    return damage(end ? Errc::bad_format : Errc::truncated, in_.pos(),
                  where() + " at byte " + std::to_string(at) + ": no end-of-object tag after the block");
  return true;
}

Result<bool> Framing::next_v6_block(Block& block) {
  const std::uint64_t at = in_.pos();
  std::uint8_t h[4];
  if (!in_.read(h, 4)) return damage(Errc::truncated, at, "file ends without an end-of-stream block");
  const std::uint32_t word = load_le<std::uint32_t>(h);
  block.kind = static_cast<BlockKind>(word >> 24);
  if (block.kind == BlockKind::EndOfStream) return false;
  if (Status s = load(block, word & 0xFFFFFF, kind_name(block.kind), at); !s) return std::move(s).error();
  return true;
}

Status Framing::load(Block& block, std::uint32_t size, std::string_view type, std::uint64_t at) {
  auto where = [&] { return std::string(type) + " #" + std::to_string(block.number) + " at byte " + std::to_string(at); };
  if (size > max_block_size_) return damage(Errc::bad_format, at, where() + " claims " + std::to_string(size) + " bytes");
  block.offset = in_.pos();
  if (!in_.read_block(buffer_, size, block.bytes))
    return damage(Errc::truncated, in_.pos(),
                  where() + " needs " + std::to_string(size) + " bytes, the file ends after " +
                      std::to_string(in_.pos() - block.offset));
  return {};
}

}  // namespace clretw::nettrace::detail
