// The nettrace writer: produces NetPerf V3, V4, V5 and V6 files, for tests and samples.
#include <algorithm>
#include <map>

#include "clretw/nettrace.h"
#include "nettrace_metadata.h"

namespace clretw::nettrace {

using detail::BlockKind;
using detail::put_varuint;

namespace {
struct HeaderState {
  std::uint32_t metadata_id = 0, sequence = 0, processor = 0, stack_id = 0, payload_size = 0, label_list = 0;
  std::uint64_t thread = 0, capture_thread = 0, timestamp = 0;
  Guid activity, related;
};
}  // namespace

struct Writer::Impl {
  std::ostream& out;
  WriterOptions o;
  std::uint64_t pos = 0;  // bytes written
  bool finished = false;
  std::uint32_t next_metadata = 1, next_stack = 1;

  std::vector<std::uint8_t> events;  // the event block being filled (after its header)
  HeaderState prev;
  std::int64_t min_ts = 0, max_ts = 0;
  std::size_t event_count = 0;

  std::map<std::uint64_t, std::uint32_t> sequence;  // per capture thread (id; V6: index)
  std::map<std::uint64_t, std::uint64_t> thread_index;  // V6: OS thread id -> index
  std::map<std::string, std::uint32_t> label_ids;  // V6: activity id pair (32 bytes) -> label list
  std::uint32_t next_label = 1;
  std::map<std::uint32_t, std::vector<std::uint64_t>> inline_stacks;  // V3: stack id -> addresses

  bool netperf() const noexcept { return o.format == 3; }
  // NetPerf opens objects with BeginObject, nettrace with BeginPrivateObject.
  std::uint8_t object_tag() const noexcept { return netperf() ? detail::kBeginObject : detail::kBeginPrivateObject; }

  Impl(std::ostream& s, WriterOptions opts) : out(s), o(opts) {}

  void raw(const void* p, std::size_t n) {
    out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    pos += n;
  }
  void raw(const std::vector<std::uint8_t>& b) { raw(b.data(), b.size()); }
  template <class T>
  void put(T v) {
    std::vector<std::uint8_t> b;
    ByteWriter(b).put(v);
    raw(b);
  }

  // What both trace descriptions (format 6's trace block, the Trace object) begin with.
  void clock_and_pointer_size(ByteWriter& w) const {
    o.sync_time_utc.store(w);
    w.put(o.sync_timestamp);
    w.put(o.frequency);
    w.put(o.pointer_size);
  }

  void start() {
    if (!netperf()) raw("Nettrace", 8);
    if (o.format >= 6) {
      put<std::uint32_t>(0);
      put<std::uint32_t>(6);
      put<std::uint32_t>(0);
      std::vector<std::uint8_t> t;
      ByteWriter w(t);
      clock_and_pointer_size(w);
      const std::pair<std::string, std::string> kv[] = {{"ProcessId", std::to_string(o.process_id)},
                                                         {"HardwareThreadCount", "4"}};
      w.put<std::uint32_t>(2);
      for (const auto& [k, v] : kv) detail::put_utf8(w, k), detail::put_utf8(w, v);
      block_v6(BlockKind::Trace, t);
      return;
    }
    put<std::uint32_t>(20);
    raw("!FastSerialization.1", 20);
    put(object_tag());
    type_header("Trace", o.format, netperf() ? 0 : 4);
    std::vector<std::uint8_t> t;
    ByteWriter w(t);
    clock_and_pointer_size(w);
    w.put(o.process_id);
    w.put<std::uint32_t>(4);     // processors
    w.put<std::uint32_t>(1000);  // expected sampling rate
    raw(t);
    put(detail::kEndObject);
  }

  void type_header(const std::string& name, std::uint32_t version, std::uint32_t min_reader) {
    put(object_tag());
    put(detail::kNullReference);
    put(version);
    put(min_reader);
    put(static_cast<std::uint32_t>(name.size()));
    raw(name.data(), name.size());
    put(detail::kEndObject);
  }

  // V3-V5: BeginPrivateObject (V3: BeginObject), type, int32 size, padding to a 4-byte file offset,
  // block, EndObject.
  void block_object(const std::string& type, const std::vector<std::uint8_t>& body) {
    put(object_tag());
    if (netperf()) type_header(type, 1, 0);  // as .NET Core 2.1 writes its event blocks
    else type_header(type, 2, 2);
    put(static_cast<std::uint32_t>(body.size()));
    static const std::uint8_t zeros[4] = {};
    raw(zeros, (4 - pos % 4) % 4);
    raw(body);
    put(detail::kEndObject);
  }

  void block_v6(BlockKind kind, const std::vector<std::uint8_t>& body) {
    put(static_cast<std::uint32_t>(body.size() | (static_cast<std::uint32_t>(kind) << 24)));
    raw(body);
  }

  void block(BlockKind kind, const std::vector<std::uint8_t>& body) {
    if (o.format >= 6) return block_v6(kind, body);
    switch (kind) {
      case BlockKind::Event: return block_object("EventBlock", body);
      case BlockKind::Metadata: return block_object("MetadataBlock", body);
      case BlockKind::Stack: return block_object("StackBlock", body);
      case BlockKind::SequencePoint: return block_object("SPBlock", body);
      default: return;
    }
  }

  std::vector<std::uint8_t> block_header(bool compressed, std::int64_t lo, std::int64_t hi) {
    std::vector<std::uint8_t> h;
    ByteWriter w(h);
    w.put<std::uint16_t>(20);
    w.put<std::uint16_t>(compressed ? 1 : 0);
    w.put(lo);
    w.put(hi);
    return h;
  }

  void define(const Metadata& m) {
    if (netperf()) {  // an event of metadata id 0 whose payload is the record, among the events
      std::vector<std::uint8_t> payload = detail::encode_metadata_v5(m, o.format);
      ByteWriter w(events);
      blob_v3(w, 0, 0, 0, {}, {}, payload, {});
      if (events.size() >= o.block_bytes) flush_events();
      return;
    }
    if (o.format >= 6) {
      std::vector<std::uint8_t> row = detail::encode_metadata_v6(m);
      std::vector<std::uint8_t> body;
      ByteWriter w(body);
      w.put<std::uint16_t>(0);  // header size
      w.put(static_cast<std::uint16_t>(row.size()));
      w.bytes(row);
      block_v6(BlockKind::Metadata, body);
      return;
    }
    // V4/V5: a metadata block holding one blob with metadata id 0.
    std::vector<std::uint8_t> payload = detail::encode_metadata_v5(m, o.format);
    std::vector<std::uint8_t> body = block_header(o.compressed, 0, 0);
    ByteWriter w(body);
    if (o.compressed) {
      w.put<std::uint8_t>(detail::kFlagPayloadSize);
      put_varuint(w, 0);  // timestamp delta
      put_varuint(w, payload.size());
      w.bytes(payload);
    } else {
      blob_uncompressed(w, 0, true, 0, 0, 0, 0, 0, 0, {}, {}, payload);
    }
    block(BlockKind::Metadata, body);
  }

  void blob_uncompressed(ByteWriter& w, std::uint32_t md, bool sorted, std::uint32_t seq, std::uint64_t thread,
                         std::uint64_t capture, std::uint32_t proc, std::uint32_t stack, std::uint64_t ts,
                         const Guid& act, const Guid& rel, Bytes payload) {
    std::vector<std::uint8_t> rest;
    ByteWriter r(rest);
    r.put(md | (sorted ? 0u : 0x80000000u));
    r.put(seq);
    r.put(thread);
    r.put(capture);
    r.put(proc);
    r.put(stack);
    r.put(ts);
    act.store(r);
    rel.store(r);
    r.put(static_cast<std::uint32_t>(payload.size()));
    r.bytes(payload);
    w.put(static_cast<std::uint32_t>(rest.size()));
    w.bytes(rest);
    // Blobs end on a 4-byte boundary (blocks start on one: offsets here are block-relative).
    while (w.size() % 4) w.put<std::uint8_t>(0);
  }

  // V3: int32 size of the rest, int32 metadata id, int32 thread id, int64 timestamp, the activity ids,
  // int32 payload size, payload, int32 stack size, stack, zero padding to 4 bytes (counted in the size).
  void blob_v3(ByteWriter& w, std::uint32_t md, std::uint64_t thread, std::uint64_t ts, const Guid& act, const Guid& rel,
               Bytes payload, const std::vector<std::uint64_t>& stack) {
    std::vector<std::uint8_t> rest;
    ByteWriter r(rest);
    r.put(md);
    r.put(static_cast<std::uint32_t>(thread));
    r.put(ts);
    act.store(r);
    rel.store(r);
    r.put(static_cast<std::uint32_t>(payload.size()));
    r.bytes(payload);
    r.put(static_cast<std::uint32_t>(stack.size() * o.pointer_size));
    for (std::uint64_t ip : stack) r.put_uint(ip, o.pointer_size);
    while (rest.size() % 4) r.put<std::uint8_t>(0);
    w.put(static_cast<std::uint32_t>(rest.size()));
    w.bytes(rest);
    ++event_count;
  }

  std::uint64_t thread_key(std::uint64_t os_thread) {
    if (o.format < 6) return os_thread;
    auto [it, inserted] = thread_index.try_emplace(os_thread, thread_index.size() + 1);
    if (inserted) {
      std::vector<std::uint8_t> row;
      ByteWriter r(row);
      put_varuint(r, it->second);
      r.put<std::uint8_t>(2);  // OS process id
      put_varuint(r, o.process_id);
      r.put<std::uint8_t>(3);  // OS thread id
      put_varuint(r, os_thread);
      std::vector<std::uint8_t> body;
      ByteWriter b(body);
      b.put(static_cast<std::uint16_t>(row.size()));
      b.bytes(row);
      block_v6(BlockKind::Thread, body);
    }
    return it->second;
  }

  std::uint32_t label_for(const Guid& act, const Guid& rel) {
    if (act.is_zero() && rel.is_zero()) return 0;
    std::vector<std::uint8_t> key;
    ByteWriter k(key);
    act.store(k);
    rel.store(k);
    auto [it, inserted] = label_ids.try_emplace(std::string(key.begin(), key.end()), next_label);
    if (!inserted) return it->second;
    const std::uint32_t id = next_label++;
    std::vector<std::uint8_t> body;
    ByteWriter b(body);
    b.put(id);
    b.put<std::uint32_t>(1);
    b.put<std::uint8_t>(1);  // activity id
    act.store(b);
    b.put<std::uint8_t>(0x80 | 2);  // related activity id, last label of the list
    rel.store(b);
    block_v6(BlockKind::LabelList, body);
    return id;
  }

  void event(const EventSpec& e) {
    if (netperf()) {
      static const std::vector<std::uint64_t> none;
      auto s = e.stack_id ? inline_stacks.find(e.stack_id) : inline_stacks.end();
      ByteWriter w(events);
      blob_v3(w, e.metadata_id, e.thread_id, static_cast<std::uint64_t>(e.timestamp), e.activity_id, e.related_activity_id,
              e.payload, s == inline_stacks.end() ? none : s->second);
      if (events.size() >= o.block_bytes) flush_events();
      return;
    }
    const std::uint64_t capture = thread_key(e.capture_thread_id);
    const std::uint64_t thread = thread_key(e.thread_id);
    std::uint32_t label = 0;
    if (o.format >= 6 && (!e.activity_id.is_zero() || !e.related_activity_id.is_zero())) {
      flush_events();  // the label list must precede the block that uses it
      label = label_for(e.activity_id, e.related_activity_id);
    }
    std::uint32_t& seq = sequence[capture];
    seq += 1 + e.skip_sequence;
    const auto ts = static_cast<std::uint64_t>(e.timestamp);
    if (event_count == 0) min_ts = max_ts = e.timestamp;
    min_ts = std::min(min_ts, e.timestamp);
    max_ts = std::max(max_ts, e.timestamp);
    ++event_count;
    ByteWriter w(events);
    if (!o.compressed) {
      if (o.format >= 6) {
        std::vector<std::uint8_t> rest;
        ByteWriter r(rest);
        r.put(e.metadata_id | (e.sorted ? 0x80000000u : 0u));
        r.put(seq);
        r.put(thread);
        r.put(capture);
        r.put(e.processor);
        r.put(e.stack_id);
        r.put(ts);
        r.put(label);
        r.put(static_cast<std::uint32_t>(e.payload.size()));
        r.bytes(e.payload);
        w.put(static_cast<std::uint32_t>(rest.size()));
        w.bytes(rest);
      } else {
        // Offsets in `events` are relative to the end of the 20-byte block header, which keeps 4-byte alignment.
        blob_uncompressed(w, e.metadata_id, e.sorted, seq, thread, capture, e.processor, e.stack_id, ts, e.activity_id,
                          e.related_activity_id, e.payload);
      }
    } else {
      std::uint8_t flags = 0;
      if (e.metadata_id != prev.metadata_id) flags |= detail::kFlagMetadataId;
      if (capture != prev.capture_thread || e.processor != prev.processor || seq != prev.sequence + 1)
        flags |= detail::kFlagCaptureThreadAndSequence;
      if (thread != prev.thread) flags |= detail::kFlagThreadId;
      if (e.stack_id != prev.stack_id) flags |= detail::kFlagStackId;
      if (o.format >= 6) {
        if (label != prev.label_list) flags |= detail::kFlagActivityId;
      } else {
        if (e.activity_id != prev.activity) flags |= detail::kFlagActivityId;
        if (e.related_activity_id != prev.related) flags |= detail::kFlagRelatedActivityId;
      }
      if (e.sorted) flags |= detail::kFlagSorted;
      if (e.payload.size() != prev.payload_size) flags |= detail::kFlagPayloadSize;
      w.put(flags);
      if (flags & detail::kFlagMetadataId) put_varuint(w, e.metadata_id);
      if (flags & detail::kFlagCaptureThreadAndSequence) {
        put_varuint(w, static_cast<std::uint32_t>(seq - prev.sequence - 1));
        put_varuint(w, capture);
        put_varuint(w, e.processor);
      }
      if (flags & detail::kFlagThreadId) put_varuint(w, thread);
      if (flags & detail::kFlagStackId) put_varuint(w, e.stack_id);
      put_varuint(w, ts - prev.timestamp);  // modulo 2^64: negative deltas wrap
      if (o.format >= 6) {
        if (flags & detail::kFlagActivityId) put_varuint(w, label);
      } else {
        if (flags & detail::kFlagActivityId) e.activity_id.store(w);
        if (flags & detail::kFlagRelatedActivityId) e.related_activity_id.store(w);
      }
      if (flags & detail::kFlagPayloadSize) put_varuint(w, e.payload.size());
      w.bytes(e.payload);
      prev = HeaderState{e.metadata_id, seq, e.processor, e.stack_id, static_cast<std::uint32_t>(e.payload.size()),
                         label, thread, capture, ts, e.activity_id, e.related_activity_id};
    }
    if (events.size() >= o.block_bytes) flush_events();
  }

  void flush_events() {
    if (event_count == 0) return;
    std::vector<std::uint8_t> body = netperf() ? std::vector<std::uint8_t>{} : block_header(o.compressed, min_ts, max_ts);
    body.insert(body.end(), events.begin(), events.end());
    block(BlockKind::Event, body);
    events.clear();
    prev = HeaderState{};
    event_count = 0;
  }

  std::uint32_t stack(const std::vector<std::uint64_t>& ips) {
    const std::uint32_t id = next_stack++;
    if (netperf()) {  // written inline in each event that names it
      inline_stacks[id] = ips;
      return id;
    }
    std::vector<std::uint8_t> body;
    ByteWriter w(body);
    w.put(id);
    w.put<std::uint32_t>(1);
    w.put(static_cast<std::uint32_t>(ips.size() * o.pointer_size));
    for (std::uint64_t ip : ips) w.put_uint(ip, o.pointer_size);
    block(BlockKind::Stack, body);
    return id;
  }

  void sequence_point(std::int64_t timestamp) {
    flush_events();
    if (netperf()) {  // no sequence points: stack ids end here all the same, as in the other formats
      next_stack = 1;
      inline_stacks.clear();
      return;
    }
    std::vector<std::uint8_t> body;
    ByteWriter w(body);
    w.put(timestamp);
    if (o.format >= 6) w.put<std::uint32_t>(0);
    w.put(static_cast<std::uint32_t>(sequence.size()));
    for (const auto& [thread, seq] : sequence) {
      if (o.format >= 6) {
        put_varuint(w, thread);
        put_varuint(w, seq);
      } else {
        w.put(thread);
        w.put(seq);
      }
    }
    block(BlockKind::SequencePoint, body);
    next_stack = 1;  // stack (and label) ids are only valid up to a sequence point
    next_label = 1;
    label_ids.clear();
  }

  void finish() {
    if (finished) return;
    finished = true;
    flush_events();
    if (o.format >= 6) put<std::uint32_t>(0);  // EndOfStream block
    else put(detail::kNullReference);
    out.flush();
  }
};

Writer::Writer(std::ostream& out, WriterOptions options) : impl_(std::make_unique<Impl>(out, options)) { impl_->start(); }
Writer::~Writer() { impl_->finish(); }

std::uint32_t Writer::define(const Metadata& m) {
  Metadata copy = m;
  copy.id = impl_->next_metadata++;
  if (!impl_->netperf()) impl_->flush_events();  // NetPerf: the record goes among the events
  impl_->define(copy);
  return copy.id;
}
std::uint32_t Writer::stack(const std::vector<std::uint64_t>& ips) { return impl_->stack(ips); }
void Writer::event(const EventSpec& e) { impl_->event(e); }
void Writer::sequence_point(std::int64_t timestamp) { impl_->sequence_point(timestamp); }
void Writer::finish() { impl_->finish(); }

}  // namespace clretw::nettrace
