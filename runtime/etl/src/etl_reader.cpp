// The ETL reader: an index of the buffer headers, one stream of events per processor (one
// buffer in memory each), and a merge of the streams by timestamp. Event headers are parsed
// in parse_event(); the logfile header in parse_logfile().
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "clretw/etl.h"
#include "clretw/file.h"
#include "carried_manifests.h"
#include "event_info.h"
#include "guid_key.h"
#include "clretw/text.h"
#include "tracelogging.h"
#include "xpress.h"

namespace clretw::etl {
namespace {

constexpr std::uint32_t kBufferHeader = 72;
// SystemTraceControlGuid: the NT kernel logger, the provider of every SYSTEM, COMPACT and PERFINFO event.
const Guid kSystemTrace = *Guid::parse("9e814aad-3204-11d2-9a82-006008a86939");
constexpr std::uint16_t kFlagCompressed = 0x40;
constexpr std::uint16_t kFlagProcIndex = 0x20;

// EVENT_HEADER flags and extended data item types.
constexpr std::uint16_t kExtendedInfo = 0x0001;
constexpr std::uint16_t kExtRelatedActivityId = 1, kExtStackTrace32 = 5, kExtStackTrace64 = 6;
constexpr std::uint16_t kExtSchemaTL = 11, kExtProvTraits = 12;  // TraceLogging: the event's schema, its provider's name
// The 16-bit version of SYSTEM, COMPACT and PERFINFO headers carries extended items in its top bits.
constexpr std::uint16_t kPebsIndexFlag = 0x8000, kPmcCountersMask = 0x0700;
// The kernel's StackWalk group and its Stack event (type 32); types 34-36 define stack keys.
constexpr unsigned kGroupStackWalk = 0x18, kStackWalkStack = 32;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A UTF-16 string ending in NUL at p (or at end); advances p past it.
std::string utf16z(Bytes b, std::size_t& p) {
  std::size_t units = 0;
  while (p + 2 * units + 1 < b.size() && load_le<std::uint16_t>(b.data() + p + 2 * units) != 0) ++units;
  std::string s = Utf16View(b.data() + p, units).to_utf8();
  p = std::min(b.size(), p + 2 * units + 2);
  return s;
}

struct BufferEntry {
  std::uint64_t offset = 0;   // in the file
  std::uint32_t size = 0;     // bytes it takes in the file
  std::uint32_t saved = 0;    // bytes of valid data, header included (decompressed)
  std::uint32_t available = 0;  // bytes the file holds of it (< size: cut)
  std::uint16_t processor = 0;
  std::uint16_t flags = 0;
  std::uint32_t number = 0;   // 1-based, in file order
};

// Where a processor's events come from: its buffers in file order, the current one loaded.
struct Stream {
  std::vector<std::uint32_t> buffers;  // indices into the buffer index
  std::size_t next_buffer = 0;
  std::vector<std::uint8_t> data;      // the current buffer's events (decompressed or read)
  Bytes events;                        // the current buffer's event bytes
  std::uint32_t buffer = 0;            // index of the current buffer
  std::size_t pos = 0;                 // offset of the next event in `events`
  bool loaded = false;
  // The parsed event at `pos`, valid when `ready`.
  bool ready = false;
  EventRecord record;
  HeaderKind kind{};
  std::size_t size = 0;                // aligned size of the event at pos
};

const std::array<const char*, 0x1F> kGroupNames = {
    "EventTrace", "DiskIO", "Memory", "Process", "FileIO", "Thread", "TcpIp", "Job", "UdpIp", "Registry", "DbgPrint",
    "SysConfig", "Spare1", "Wnf", "Pool", "PerfInfo", "Heap", "Object", "Power", "Modbound", "Image", "Dpc", "Cc",
    "CritSec", "StackWalk", "Ums", "ALPC", "SplitIO", "ThreadPool", "Hypervisor", "HypervisorX"};

}  // namespace

const char* header_kind_name(HeaderKind k) noexcept {
  switch (k) {
    case HeaderKind::system32: return "SYSTEM32";
    case HeaderKind::system64: return "SYSTEM64";
    case HeaderKind::compact32: return "COMPACT32";
    case HeaderKind::compact64: return "COMPACT64";
    case HeaderKind::full32: return "FULL_HEADER32";
    case HeaderKind::instance32: return "INSTANCE32";
    case HeaderKind::perfinfo32: return "PERFINFO32";
    case HeaderKind::perfinfo64: return "PERFINFO64";
    case HeaderKind::event_header32: return "EVENT_HEADER32";
    case HeaderKind::event_header64: return "EVENT_HEADER64";
    case HeaderKind::full64: return "FULL_HEADER64";
    case HeaderKind::instance64: return "INSTANCE64";
  }
  return "?";
}

std::string kernel_group_name(std::uint8_t group) {
  if (group < kGroupNames.size()) return kGroupNames[group];
  return "Group(" + std::to_string(group) + ")";
}

struct Reader::Impl {
  explicit Impl(const ReaderOptions& o) : options(o) {}
  ~Impl() {
    if (file) std::fclose(file);
  }

  ReaderOptions options;
  std::FILE* file = nullptr;
  Bytes memory;
  std::uint64_t file_size = 0;
  std::uint64_t consumed = 0;

  LogfileInfo info;
  Stats stats;
  std::vector<BufferEntry> index;
  std::optional<Error> index_damage;  // what ended the index early (reported after its buffers)
  std::vector<Stream> streams;
  // Damage met in a processor's stream: that stream ends; the first damage is reported once the
  // other streams have delivered their events.
  struct Pending {
    Error error;
    std::uint32_t stream;
  };
  std::vector<Pending> pending;
  std::vector<std::uint32_t> heap;    // streams with a ready event, ordered by time (min-heap)
  Stream* advance = nullptr;          // the stream last delivered from: moves on at the next call
  EventRecord record;
  HeaderKind last_kind{};
  bool failed = false;
  Error error;
  std::map<detail::GuidKey, std::string> guid_names;
  std::map<std::uint16_t, std::string> kernel_names;  // hook id -> "Group/opcode"
  std::array<std::string, 256> opcode_names;
  ManifestChunks manifests;  // the EventSource manifests the file carries
  detail::TraceLoggingSchemas tracelogging;  // the TraceLogging schemas met, each parsed once
  detail::EventInfos event_infos;  // what KernelTraceControl-MetaData's events say of other providers' events
  const Guid metadata_provider = detail::metadata_provider();
  Reader* owner = nullptr;   // lists those completed

  // --- input -------------------------------------------------------------------
  bool read_at(std::uint64_t off, void* dst, std::size_t n) {
    if (off > file_size || n > file_size - off) return false;
    if (n == 0) return true;  // (an empty vector's data() may be null)
    if (!file) {
      std::memcpy(dst, memory.data() + off, n);
      return true;
    }
#ifdef _WIN32
    if (_fseeki64(file, static_cast<long long>(off), SEEK_SET) != 0) return false;
#else
    if (fseeko(file, static_cast<off_t>(off), SEEK_SET) != 0) return false;
#endif
    return std::fread(dst, 1, n, file) == n;
  }

  Error damage(const BufferEntry& b, std::uint64_t at, const std::string& what) const {
    return Error{Errc::bad_format, at, {},
                 "buffer " + std::to_string(b.number) + " (file offset " + std::to_string(b.offset) + ", processor " +
                     std::to_string(b.processor) + "): " + what};
  }

  // --- the index of buffer headers ------------------------------------------------
  Status build_index() {
    std::uint64_t off = 0;
    std::uint8_t h[kBufferHeader];
    std::uint32_t number = 0;
    while (off < file_size) {
      ++number;
      BufferEntry b;
      b.offset = off;
      b.number = number;
      if (file_size - off < kBufferHeader) {
        index_damage = Error{Errc::truncated, off, {},
                             "buffer " + std::to_string(number) + " (file offset " + std::to_string(off) + "): the file ends " +
                                 std::to_string(file_size - off) + " bytes into its 72-byte header"};
        break;
      }
      if (!read_at(off, h, kBufferHeader)) return Error{Errc::io_error, off, {}, "cannot read the buffer header at byte " + std::to_string(off)};
      b.size = load_le<std::uint32_t>(h + 0);
      b.saved = load_le<std::uint32_t>(h + 4);
      b.flags = load_le<std::uint16_t>(h + 0x34);
      b.processor = (b.flags & kFlagProcIndex) ? load_le<std::uint16_t>(h + 0x28) : h[0x28];
      const bool compressed = b.flags & kFlagCompressed;
      std::string bad;
      if (b.size < kBufferHeader) bad = "its size " + std::to_string(b.size) + " is smaller than its header";
      else if (b.size > options.max_buffer_size) bad = "its size " + std::to_string(b.size) + " exceeds the limit of " + std::to_string(options.max_buffer_size);
      else if (b.saved < kBufferHeader) bad = "its saved offset " + std::to_string(b.saved) + " is inside its header";
      else if (!compressed && b.saved > b.size) bad = "its saved offset " + std::to_string(b.saved) + " is past its size " + std::to_string(b.size);
      else if (compressed && b.saved > options.max_buffer_size) bad = "it decompresses to " + std::to_string(b.saved) + " bytes, more than the limit";
      if (!bad.empty()) {
        index_damage = damage(b, off, bad);
        break;
      }
      b.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(b.size, file_size - off));
      index.push_back(b);
      ++stats.buffers;
      if (compressed) ++stats.compressed_buffers;
      if (b.available < b.size) break;  // cut: its complete events are read, then the cut is reported
      off += b.size;
    }
    if (index.empty()) {
      if (index_damage) return *index_damage;
      return Error{Errc::bad_format, 0, {}, "not an ETL file: it is empty"};
    }
    return {};
  }

  // Loads buffer i's event bytes into s.
  Status load(Stream& s, std::uint32_t i) {
    const BufferEntry& b = index[i];
    s.buffer = i;
    s.pos = 0;
    s.loaded = true;
    consumed = std::max<std::uint64_t>(consumed, b.offset + b.available);
    const std::size_t have = b.available - kBufferHeader;
    if (b.flags & kFlagCompressed) {
      std::vector<std::uint8_t> packed(have);
      if (!read_at(b.offset + kBufferHeader, packed.data(), have)) return Error{Errc::io_error, b.offset, {}, "cannot read buffer " + std::to_string(b.number)};
      if (b.available < b.size) return damage(b, b.offset + b.available, "the file ends " + std::to_string(b.available) + " bytes into its " + std::to_string(b.size) + " compressed bytes");
      s.data.resize(b.saved - kBufferHeader);
      auto n = detail::xpress_decompress(packed, s.data);
      if (!n) return damage(b, b.offset + kBufferHeader + n.error().offset, "compressed data: " + n.error().message());
      if (*n != s.data.size())
        return damage(b, b.offset, "it decompresses to " + std::to_string(*n) + " bytes, not the " + std::to_string(s.data.size()) + " its header says");
      s.events = s.data;
      return {};
    }
    const std::size_t valid = std::min<std::size_t>(b.saved, b.available) - kBufferHeader;
    if (!file) {
      s.events = memory.subspan(b.offset + kBufferHeader, valid);
      return {};
    }
    s.data.resize(valid);
    if (!read_at(b.offset + kBufferHeader, s.data.data(), valid)) return Error{Errc::io_error, b.offset, {}, "cannot read buffer " + std::to_string(b.number)};
    s.events = s.data;
    return {};
  }

  std::uint64_t file_offset(const Stream& s, std::size_t pos) const {
    const BufferEntry& b = index[s.buffer];
    return (b.flags & kFlagCompressed) ? b.offset : b.offset + kBufferHeader + pos;
  }

  Error event_damage(const Stream& s, std::size_t pos, const std::string& what) const {
    const BufferEntry& b = index[s.buffer];
    const bool compressed = b.flags & kFlagCompressed;
    return damage(b, file_offset(s, pos),
                  "event at byte " + std::to_string(pos + kBufferHeader) + (compressed ? " of the decompressed buffer" : "") + ": " + what);
  }

  // Consecutive events mostly share a provider: the last one is remembered, not looked up again.
  Guid last_guid;
  std::string_view last_guid_name;
  std::string_view guid_name(const Guid& g) {
    if (!last_guid_name.empty() && g == last_guid) return last_guid_name;
    const detail::GuidKey key = detail::guid_key(g);
    auto it = guid_names.find(key);
    if (it == guid_names.end()) it = guid_names.emplace(key, g.to_string()).first;
    last_guid = g;
    last_guid_name = it->second;
    return last_guid_name;
  }

  std::string_view kernel_name(std::uint16_t hook) {
    auto it = kernel_names.find(hook);
    if (it == kernel_names.end())
      it = kernel_names.emplace(hook, kernel_group_name(static_cast<std::uint8_t>(hook >> 8)) + "/" + std::to_string(hook & 0xFF)).first;
    return it->second;
  }

  // The kernel's StackWalk events end in return addresses (a Stack event after its 16 bytes, a stack
  // key's definition after the key), as many as the payload holds: they become the record's stack
  // and the payload keeps the fixed part, as manifest/WindowsKernel.man describes it.
  static void split_stackwalk(EventRecord& r) {
    if ((r.id >> 8) != kGroupStackWalk) return;
    const std::size_t fixed = r.opcode == kStackWalkStack ? 16 : (r.opcode >= 34 && r.opcode <= 36) ? r.pointer_size : 0;
    if (fixed == 0 || r.payload.size() < fixed) return;
    const std::size_t frames = (r.payload.size() - fixed) / r.pointer_size * r.pointer_size;
    if (r.payload.size() - fixed != frames) return;  // not whole addresses: left as payload, for the decoder to report
    r.stack = r.payload.subspan(fixed, frames);
    r.payload = r.payload.first(fixed);
  }

  // Parses the event at s.pos into s.record; false (ok) at the end of the buffer's events.
  Result<bool> parse_event(Stream& s) {
    const Bytes e = s.events;
    const std::size_t p = s.pos;
    if (p >= e.size() || e.size() - p < 4 || load_le<std::uint32_t>(e.data() + p) == 0xFFFFFFFFu) return false;
    if (e.size() - p < 8) return event_damage(s, p, "only " + std::to_string(e.size() - p) + " bytes left for an event header");
    const std::uint8_t* h = e.data() + p;
    const auto kind = static_cast<HeaderKind>(h[2]);
    const std::uint8_t marker_flags = h[3];
    EventRecord& r = s.record;
    r = EventRecord{};
    std::size_t header = 0, size = 0;
    auto need = [&](std::size_t n) -> Status {
      if (size < n) return event_damage(s, p, std::string(header_kind_name(kind)) + " header claims " + std::to_string(size) + " bytes, less than its " + std::to_string(n) + "-byte header");
      if (size > e.size() - p)
        return event_damage(s, p, std::string(header_kind_name(kind)) + " header claims " + std::to_string(size) + " bytes; the buffer's data ends " + std::to_string(e.size() - p) + " bytes after it");
      return {};
    };
    if ((marker_flags & 0xC0) != 0xC0) return event_damage(s, p, "no trace header marker (" + hex(load_le<std::uint32_t>(h)) + ")");
    switch (kind) {
      case HeaderKind::system32: case HeaderKind::system64: case HeaderKind::compact32: case HeaderKind::compact64:
      case HeaderKind::perfinfo32: case HeaderKind::perfinfo64: {
        const auto version = load_le<std::uint16_t>(h);
        size = load_le<std::uint16_t>(h + 4);
        const auto hook = load_le<std::uint16_t>(h + 6);
        const bool perfinfo = kind == HeaderKind::perfinfo32 || kind == HeaderKind::perfinfo64;
        const bool compact = kind == HeaderKind::compact32 || kind == HeaderKind::compact64;
        header = perfinfo ? 16 : compact ? 24 : 32;
        if (Status st = need(header); !st) return std::move(st).error();
        if (perfinfo) {
          r.timestamp = load_le<std::int64_t>(h + 8);
          r.process_id = 0xFFFFFFFFu;
          r.thread_id = 0xFFFFFFFFu;
        } else {
          r.thread_id = load_le<std::uint32_t>(h + 8);
          r.process_id = load_le<std::uint32_t>(h + 12);
          r.timestamp = load_le<std::int64_t>(h + 16);
        }
        // PEBS index and PMC counters follow the header, before the payload.
        header += ((version & kPebsIndexFlag) ? 8 : 0) + ((version & kPmcCountersMask) >> 8) * 8;
        if (Status st = need(header); !st) return std::move(st).error();
        r.version = static_cast<std::uint8_t>(version & ~(kPebsIndexFlag | kPmcCountersMask));
        r.task = hook >> 8;
        r.opcode = static_cast<std::uint8_t>(hook & 0xFF);
        r.id = hook;  // unique across the kernel logger: the event id of manifest/WindowsKernel.man
        r.provider_guid = kSystemTrace;
        r.provider_name = "Windows Kernel";
        r.event_name = kernel_name(hook);
        r.pointer_size = (kind == HeaderKind::system32 || kind == HeaderKind::compact32 || kind == HeaderKind::perfinfo32) ? 4 : 8;
        r.payload = e.subspan(p + header, size - header);
        split_stackwalk(r);
        break;
      }
      case HeaderKind::full32: case HeaderKind::full64: case HeaderKind::instance32: case HeaderKind::instance64: {
        size = load_le<std::uint16_t>(h);
        header = (kind == HeaderKind::instance32 || kind == HeaderKind::instance64) ? 72 : 48;
        if (Status st = need(header); !st) return std::move(st).error();
        r.opcode = h[4];
        r.id = r.opcode;
        r.level = h[5];
        r.version = static_cast<std::uint8_t>(load_le<std::uint16_t>(h + 6));
        r.thread_id = load_le<std::uint32_t>(h + 8);
        r.process_id = load_le<std::uint32_t>(h + 12);
        r.timestamp = load_le<std::int64_t>(h + 16);
        r.provider_guid = Guid::load(h + 24);
        r.provider_name = guid_name(r.provider_guid);
        if (opcode_names[r.opcode].empty()) opcode_names[r.opcode] = "Opcode(" + std::to_string(r.opcode) + ")";
        r.event_name = opcode_names[r.opcode];
        r.pointer_size = (kind == HeaderKind::full32 || kind == HeaderKind::instance32) ? 4 : 8;
        r.payload = e.subspan(p + header, size - header);
        break;
      }
      case HeaderKind::event_header32: case HeaderKind::event_header64: {
        size = load_le<std::uint16_t>(h);
        header = 80;
        if (Status st = need(header); !st) return std::move(st).error();
        const auto flags = load_le<std::uint16_t>(h + 4);
        r.thread_id = load_le<std::uint32_t>(h + 8);
        r.process_id = load_le<std::uint32_t>(h + 12);
        r.timestamp = load_le<std::int64_t>(h + 16);
        r.provider_guid = Guid::load(h + 24);
        r.provider_name = guid_name(r.provider_guid);
        r.id = load_le<std::uint16_t>(h + 40);
        r.version = h[42];
        r.level = h[44];
        r.opcode = h[45];
        r.task = load_le<std::uint16_t>(h + 46);
        r.keywords = load_le<std::uint64_t>(h + 48);
        r.activity_id = Guid::load(h + 64);
        r.pointer_size = kind == HeaderKind::event_header32 ? 4 : 8;
        if (r.id == 0xFFFE) r.event_name = "ManifestData";  // an EventSource's manifest, in chunks
        Bytes schema, traits;  // TraceLogging
        std::size_t schema_at = 0, traits_at = 0;
        bool self_describing = false;
        if (flags & kExtendedInfo) {
          for (;;) {
            if (size - header < 8) return event_damage(s, p, "extended data item header past the event's " + std::to_string(size) + " bytes");
            const std::uint8_t* x = h + header;
            const std::size_t item = load_le<std::uint16_t>(x);
            const auto type = load_le<std::uint16_t>(x + 2);
            const bool more = load_le<std::uint16_t>(x + 4) & 1;
            const std::size_t data = load_le<std::uint16_t>(x + 6);
            if (item < 8 || item > size - header || data > item - 8)
              return event_damage(s, p, "extended data item at byte " + std::to_string(header) + " of the event: size " + std::to_string(item) +
                                            ", data " + std::to_string(data) + ", event " + std::to_string(size));
            ++stats.extended_items;
            if (type == kExtRelatedActivityId && data >= 16) r.related_activity_id = Guid::load(x + 8);
            if ((type == kExtStackTrace32 || type == kExtStackTrace64) && data >= 8) {
              const unsigned frame = type == kExtStackTrace32 ? 4 : 8;
              r.stack = e.subspan(p + header + 16, (data - 8) / frame * frame);  // after the 8-byte match id
              r.stack_pointer_size = static_cast<std::uint8_t>(frame);
            }
            if (type == kExtSchemaTL) schema = e.subspan(p + header + 8, data), schema_at = header + 8, self_describing = true;
            if (type == kExtProvTraits) traits = e.subspan(p + header + 8, data), traits_at = header + 8;
            header += item;
            if (!more) break;
          }
        }
        r.payload = e.subspan(p + header, size - header);
        if (self_describing) {
          // A TraceLogging event: its names and fields come from the schema it carries.
          auto tl = tracelogging.find(r.provider_guid, r.opcode, traits, schema);
          if (!tl) {
            // Only this event is unreadable: it is malformed, with why and where, and the trace goes on.
            const Error& bad = tl.error();
            const bool in_traits = bad.detail.starts_with("TraceLogging provider traits");
            r.self_description = tracelogging.unreadable(
                Error{Errc::bad_format, 0, {},
                      bad.detail + " (extended data item " + (in_traits ? "12" : "11") + " at byte " +
                          std::to_string((in_traits ? traits_at : schema_at) + bad.offset) + " of the event)"});
            r.event_name = r.self_description->name();
            break;
          }
          const detail::TraceLoggingEvent* d = *tl;
          r.self_description = d;
          r.event_name = d->name();
          if (!d->provider_name().empty()) r.provider_name = d->provider_name();
        }
        break;
      }
      default:
        return event_damage(s, p, "unknown event header kind " + hex(h[2]));
    }
    r.processor = index[s.buffer].processor;
    r.sequence = 0;
    s.kind = kind;
    s.size = (size + 7) & ~std::size_t{7};
    return true;
  }

  // Makes s.ready hold s's next event, loading its next buffers as needed; false at its end.
  Result<bool> fill(Stream& s) {
    s.ready = false;
    for (;;) {
      if (s.loaded) {
        auto got = parse_event(s);
        if (!got) return std::move(got).error();
        if (*got) {
          s.ready = true;
          return true;
        }
        const BufferEntry& b = index[s.buffer];
        if (b.available < b.size && !(b.flags & kFlagCompressed))
          return damage(b, b.offset + b.available, "the file ends " + std::to_string(b.available) + " bytes into its " + std::to_string(b.size) + " bytes");
        s.loaded = false;
      }
      if (s.next_buffer == s.buffers.size()) return false;
      if (Status st = load(s, s.buffers[s.next_buffer++]); !st) return std::move(st).error();
    }
  }

  // Orders ready streams: earliest timestamp first, then file order.
  bool later(std::uint32_t a, std::uint32_t b) const {
    const Stream& x = streams[a];
    const Stream& y = streams[b];
    if (x.record.timestamp != y.record.timestamp) return x.record.timestamp > y.record.timestamp;
    if (x.buffer != y.buffer) return x.buffer > y.buffer;
    return x.pos > y.pos;
  }
  void push(std::uint32_t i) {
    heap.push_back(i);
    std::push_heap(heap.begin(), heap.end(), [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
  }

  Error fail(Error e) {
    failed = true;
    error = e;
    return e;
  }

  Status parse_logfile();

  // --- who logged what -------------------------------------------------------------
  // Kernel events about a process or thread name it in their payload, and their header often carries
  // -1 or the thread that happened to log them (PERFINFO headers carry neither). As events are
  // delivered, in time order, the record's process and thread become the ones the event is about
  // (Process, Thread, Image, CPU samples, StackWalk), as TraceEvent shows them; the reader keeps each
  // thread's process from Thread events and each process's image name from Process events, and names
  // the process of every record it can. A sample taken before its thread's rundown event has no
  // process (a second pass would find it; the reader makes one pass).
  std::unordered_map<std::uint32_t, std::uint32_t> thread_process;
  std::unordered_map<std::uint32_t, std::string> process_names;

  void apply_context(EventRecord& r, HeaderKind kind) {
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    const bool kernel = kind == HeaderKind::system32 || kind == HeaderKind::system64 || kind == HeaderKind::compact32 ||
                        kind == HeaderKind::compact64 || kind == HeaderKind::perfinfo32 || kind == HeaderKind::perfinfo64;
    if (kernel) {
      const Bytes b = r.payload;
      const std::size_t ptr = r.pointer_size;
      const unsigned group = r.id >> 8, type = r.id & 0xFF;
      auto u32 = [&](std::size_t at, std::uint32_t& v) {
        if (at + 4 > b.size()) return false;
        v = load_le<std::uint32_t>(b.data() + at);
        return true;
      };
      std::uint32_t pid = kNone, tid = kNone;
      if (group == 3 && (type <= 4 || type == 39) && type >= 1 && u32(ptr, pid)) {  // Process: name after the SID
        r.process_id = pid;
        std::size_t at = 2 * ptr + 16 + (r.version >= 4 ? 4 : 0);
        std::uint32_t sid = 0;
        if (u32(at, sid)) {
          at += sid == 0 ? 4 : 2 * ptr;
          if (sid == 0 || at + 2 <= b.size()) {
            if (sid != 0) at += 8 + 4 * std::size_t{b[at + 1]};
            std::size_t end = at;
            while (end < b.size() && b[end] != 0) ++end;
            if (end < b.size()) process_names[pid] = std::string(reinterpret_cast<const char*>(b.data() + at), end - at);
          }
        }
      } else if (group == 5 && type >= 1 && type <= 4 && u32(0, pid) && u32(4, tid)) {  // Thread
        thread_process[tid] = pid;
        r.process_id = pid;
        r.thread_id = tid;
      } else if (r.id == 0x0F2E && u32(ptr, tid)) {  // PerfInfo SampledProfile: the sampled thread
        r.thread_id = tid;
        r.process_id = kNone;
      } else if ((group == 0x14 || r.id == 0x030A) && u32(2 * ptr, pid)) {  // Image: the process it is mapped in
        r.process_id = pid;
      } else if ((r.id == 0x1820 || r.id == 0x1825 || r.id == 0x1826) && u32(8, pid) && u32(12, tid)) {  // StackWalk: the stack's thread
        r.process_id = pid;
        r.thread_id = tid;
      } else if ((group == 6 || group == 8) && r.process_id == kNone && u32(0, pid)) {
        // TcpIp, UdpIp: the header names no process; the payload's first field (PID) is the connection's.
        r.process_id = pid;
      }
    }
    if (r.process_id == kNone && r.thread_id != kNone) {
      auto t = thread_process.find(static_cast<std::uint32_t>(r.thread_id));
      if (t != thread_process.end()) r.process_id = t->second;
    }
    auto n = process_names.find(r.process_id);
    if (n != process_names.end()) r.process_name = n->second;
  }

  Status open() {
    if (Status s = build_index(); !s) return s;
    // Streams: one per processor (or one for all, in file order).
    std::map<std::uint16_t, std::uint32_t> by_processor;
    for (std::uint32_t i = 0; i < index.size(); ++i) {
      const std::uint16_t key = options.sorted ? index[i].processor : 0;
      auto [it, added] = by_processor.emplace(key, static_cast<std::uint32_t>(by_processor.size()));
      if (added) streams.emplace_back();
      streams[it->second].buffers.push_back(i);
    }
    if (Status s = parse_logfile(); !s) return s;
    for (std::uint32_t i = 0; i < streams.size(); ++i) {
      auto got = fill(streams[i]);
      if (!got) pending.push_back({std::move(got).error(), i});  // the other streams' events still come first
      else if (*got) push(i);
    }
    return {};
  }

  void take_manifest_chunk() {
    if (auto m = manifests.take(record, options.manifest_loader)) owner->carry(std::move(*m));
  }

  // Events of manifests the file does not carry, described by KernelTraceControl-MetaData events
  // met before them (in delivery order: the merging tool writes each description before the first
  // event it describes); the MetaData events themselves are taken as they pass.
  void describe_by_metadata(HeaderKind kind) {
    if (kind == HeaderKind::event_header32 || kind == HeaderKind::event_header64) {
      if (record.self_description) return;  // TraceLogging
      if (const detail::EventInfoDescription* d = event_infos.find(record.provider_guid, record.id, record.version, record.pointer_size)) {
        record.self_description = d;
        if (!d->provider_name().empty()) record.provider_name = d->provider_name();
        ++stats.metadata_described;
      }
    } else if (record.provider_guid == metadata_provider) {
      event_infos.take(record);
      stats.metadata_taken = event_infos.taken();
      stats.metadata_refused = event_infos.refused();
    }
  }

  // What the KernelTraceControl-MetaData events gave, for summary(); empty when the file has none.
  std::string metadata_summary() const {
    if (!stats.metadata_taken && !stats.metadata_refused) return {};
    std::string s = ", " + std::to_string(stats.metadata_taken) + " event descriptions from KernelTraceControl-MetaData";
    if (stats.metadata_refused)
      s += " (" + std::to_string(stats.metadata_refused) + " unreadable; the last: " + event_infos.last_refusal() + ")";
    return s;
  }

  Result<const EventRecord*> next() {
    if (failed) return error;
    if (advance) {
      Stream& s = *advance;
      advance = nullptr;
      s.pos += s.size;
      const auto i = static_cast<std::uint32_t>(&s - streams.data());
      auto got = fill(s);
      if (!got) pending.push_back({std::move(got).error(), i});  // this processor's stream ends here
      else if (*got) push(i);
    }
    if (heap.empty()) {  // every event before the damage has been delivered: report the first damage
      if (!pending.empty()) {
        auto first = std::min_element(pending.begin(), pending.end(), [this](const Pending& a, const Pending& b) {
          return streams[a.stream].buffer < streams[b.stream].buffer;
        });
        return fail(first->error);
      }
      if (index_damage) return fail(*index_damage);
      return static_cast<const EventRecord*>(nullptr);
    }
    std::pop_heap(heap.begin(), heap.end(), [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
    Stream& s = streams[heap.back()];
    heap.pop_back();
    record = s.record;
    last_kind = s.kind;
    apply_context(record, s.kind);
    ++stats.events;
    ++stats.by_kind[static_cast<std::uint8_t>(s.kind)];
    if (!record.stack.empty()) ++stats.stacks;
    if (record.id == ManifestChunks::kManifestEvent) take_manifest_chunk();
    describe_by_metadata(s.kind);
    advance = &s;
    return &record;
  }
};

// The first event of the first buffer is the logfile header (kernel group 0, opcode 0).
Status Reader::Impl::parse_logfile() {
  Stream probe;
  const std::uint32_t first = 0;
  if (Status st = load(probe, first); !st) return st;
  auto got = parse_event(probe);
  if (!got) return std::move(got).error();
  const EventRecord& r = probe.record;
  const bool system = probe.kind == HeaderKind::system32 || probe.kind == HeaderKind::system64;
  if (!*got || !system || r.task != 0 || r.opcode != 0)
    return Error{Errc::bad_format, kBufferHeader, {}, "not an ETL file: its first event is not the logfile header"};
  const Bytes b = r.payload;
  const unsigned ptr = r.pointer_size;
  const std::size_t tz = 56 + 2 * ptr;              // after the two name pointers
  const std::size_t times = (tz + 172 + 7) & ~std::size_t{7};  // TIME_ZONE_INFORMATION, then 8-byte aligned
  const std::size_t fixed = times + 32;
  if (b.size() < fixed)
    return Error{Errc::bad_format, kBufferHeader, {}, "the logfile header event has " + std::to_string(b.size()) + " payload bytes, less than " + std::to_string(fixed)};
  const std::uint8_t* d = b.data();
  LogfileInfo& i = info;
  i.buffer_size = load_le<std::uint32_t>(d + 0);
  i.version = load_le<std::uint32_t>(d + 4);
  i.provider_version = load_le<std::uint32_t>(d + 8);
  i.processors = load_le<std::uint32_t>(d + 12);
  i.end_time = load_le<std::int64_t>(d + 16);
  i.timer_resolution = load_le<std::uint32_t>(d + 24);
  i.max_file_size = load_le<std::uint32_t>(d + 28);
  i.log_file_mode = load_le<std::uint32_t>(d + 32);
  i.buffers_written = load_le<std::uint32_t>(d + 36);
  i.start_buffers = load_le<std::uint32_t>(d + 40);
  i.pointer_size = load_le<std::uint32_t>(d + 44);
  i.events_lost = load_le<std::uint32_t>(d + 48);
  i.cpu_speed_mhz = load_le<std::uint32_t>(d + 52);
  i.timezone_bias = load_le<std::int32_t>(d + tz);
  i.boot_time = load_le<std::int64_t>(d + times);
  i.perf_freq = load_le<std::int64_t>(d + times + 8);
  i.start_time = load_le<std::int64_t>(d + times + 16);
  i.clock_type = load_le<std::uint32_t>(d + times + 24);
  i.buffers_lost = load_le<std::uint32_t>(d + times + 28);
  std::size_t p = fixed;
  i.logger_name = utf16z(b, p);
  i.log_file_name = utf16z(b, p);
  i.start_timestamp = r.timestamp;
  switch (i.clock_type) {
    case 2: i.frequency = 10'000'000; break;  // system time: 100 ns units
    case 3: i.frequency = static_cast<std::int64_t>(i.cpu_speed_mhz) * 1'000'000; break;
    default: i.frequency = i.perf_freq; break;
  }
  if (i.frequency <= 0)
    return Error{Errc::bad_format, kBufferHeader, {}, "the logfile header gives no timestamp frequency (clock type " + std::to_string(i.clock_type) + ")"};
  return {};
}

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->owner = this; }
Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::open_file(const std::string& path, ReaderOptions options) {
  auto impl = std::make_unique<Impl>(options);
  auto opened = open_for_reading(path);
  if (!opened) return std::move(opened).error();
  impl->file = *opened;
  // ETL buffers are read where the file says they are: a pipe will not do.
  const auto not_seekable = [] {
    return cannot_open(std::string("an ETL file must be a file on disk; seeking in this one failed (") + std::strerror(errno) + ")");
  };
#ifdef _WIN32
  if (_fseeki64(impl->file, 0, SEEK_END) != 0) return not_seekable();
  const long long end = _ftelli64(impl->file);
#else
  if (fseeko(impl->file, 0, SEEK_END) != 0) return not_seekable();
  const off_t end = ftello(impl->file);
#endif
  if (end < 0) return not_seekable();
  impl->file_size = static_cast<std::uint64_t>(end);
  if (Status s = impl->open(); !s) return std::move(s).error();
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Result<std::unique_ptr<Reader>> Reader::open_memory(Bytes data, ReaderOptions options) {
  auto impl = std::make_unique<Impl>(options);
  impl->memory = data;
  impl->file_size = data.size();
  if (Status s = impl->open(); !s) return std::move(s).error();
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

const LogfileInfo& Reader::info() const noexcept { return impl_->info; }
const Stats& Reader::stats() const noexcept { return impl_->stats; }
HeaderKind Reader::last_kind() const noexcept { return impl_->last_kind; }
Result<const EventRecord*> Reader::next() { return impl_->next(); }
std::uint64_t Reader::position() const noexcept { return impl_->consumed; }
std::uint64_t Reader::size() const noexcept { return impl_->file_size; }

std::string Reader::summary() const {
  const LogfileInfo& i = impl_->info;
  return "etl, pointer size " + std::to_string(i.pointer_size) + ", " + std::to_string(i.processors) + " processors, " +
         std::to_string(impl_->stats.buffers) + " buffers (" + std::to_string(impl_->stats.compressed_buffers) +
         " compressed), session '" + i.logger_name + "'" + impl_->metadata_summary();
}

SourceCounts Reader::counts() const {
  SourceCounts c;
  c.events = impl_->stats.events;
  c.lost_events = impl_->info.events_lost;
  return c;
}

}  // namespace clretw::etl
