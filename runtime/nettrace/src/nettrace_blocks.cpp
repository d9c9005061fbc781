#include "nettrace_blocks.h"

#include <algorithm>

#include "nettrace_metadata.h"

namespace clretw::nettrace::detail {

Status BlockParser::begin(const Block& block) {
  block_ = block;
  pos_ = 0;
  switch (block.kind) {
    case BlockKind::Event:
      ++stats_.event_blocks;
      return begin_event_block();
    case BlockKind::Metadata:
      ++stats_.metadata_blocks;
      return begin_event_block();
    case BlockKind::Stack:
      ++stats_.stack_blocks;
      return stack_block();
    case BlockKind::SequencePoint: return sequence_point();
    case BlockKind::Thread: return thread_block();
    case BlockKind::RemoveThread: return remove_thread_block();
    case BlockKind::LabelList: return label_block();
    default:  // V6 readers skip blocks they do not know
      ++stats_.other_blocks;
      return {};
  }
}

Result<const EventRecord*> BlockParser::next_event(EventRecord& record) {
  const bool metadata = block_.kind == BlockKind::Metadata;
  if (!metadata && block_.kind != BlockKind::Event) return nullptr;
  while (pos_ < block_.bytes.size()) {
    if (metadata && !fast_serialization_) {
      if (Status s = read_metadata_v6(); !s) return std::move(s).error();
      continue;
    }
    if (netperf_) {
      auto payload = read_blob_v3();
      if (!payload) return std::move(payload).error();
      if (header_.metadata_id == 0) {  // a metadata record, as the payload of an event
        if (Status s = add_metadata_v5(*payload); !s) return std::move(s).error();
        continue;
      }
      fill(record, *payload);
      return &record;
    }
    auto payload = read_blob();
    if (!payload) return std::move(payload).error();
    if (metadata) {
      if (Status s = add_metadata_v5(*payload); !s) return std::move(s).error();
      continue;
    }
    fill(record, *payload);
    return &record;
  }
  return nullptr;
}

// ---- event and metadata blocks ---------------------------------------------------

// An event or metadata block's header, and fresh header state.
Status BlockParser::begin_event_block() {
  if (netperf_) {  // V3 event blocks have no header: their blobs start at once
    header_ = EventHeader{};
    return {};
  }
  Cursor c(block_.bytes);
  if (block_.kind == BlockKind::Metadata && !fast_serialization_) {  // V6 metadata: uint16 header size, excluding itself
    const std::uint16_t hs = c.u16();
    c.skip(hs);
    if (!c.ok) return damage("header larger than the block");
    pos_ = c.pos();
    return {};
  }
  const std::uint16_t header_size = c.u16();
  const std::uint16_t flags = c.u16();
  if (!c.ok || header_size < 20 || header_size > block_.bytes.size())
    return damage("bad block header size " + std::to_string(header_size));
  compressed_ = (flags & 1) != 0;
  pos_ = header_size;
  header_ = EventHeader{};
  return {};
}

// Decodes the next event blob header into header_; returns the payload.
Result<Bytes> BlockParser::read_blob() {
  Cursor c(block_.bytes, pos_);
  const bool v6 = !fast_serialization_;
  EventHeader& h = header_;
  if (compressed_) {
    const std::uint8_t flags = c.u8();
    if (flags & kFlagMetadataId) h.metadata_id = c.varuint32();
    if (flags & kFlagCaptureThreadAndSequence) {
      h.sequence += c.varuint32() + 1;
      h.capture_thread = c.varuint64();
      h.processor = c.varuint32();
    } else if (v6 || h.metadata_id != 0) {
      ++h.sequence;
    }
    if (flags & kFlagThreadId) h.thread = c.varuint64();
    if (flags & kFlagStackId) h.stack_id = c.varuint32();
    h.timestamp += c.varuint64();  // deltas wrap modulo 2^64: "negative" deltas are common
    if (v6) {
      if (flags & kFlagActivityId) h.label_list = c.varuint32();
    } else {
      if (flags & kFlagActivityId) h.activity = c.guid();
      if (flags & kFlagRelatedActivityId) h.related = c.guid();
    }
    h.sorted = (flags & kFlagSorted) != 0;
    if (flags & kFlagPayloadSize) h.payload_size = c.varuint32();
    const Bytes payload = c.bytes(h.payload_size);
    if (!c.ok) return damage("event header or payload runs past the end of the block");
    pos_ = c.pos();
    return payload;
  }
  // Uncompressed.
  const std::size_t start = c.pos();
  const std::uint32_t size = c.u32();
  const std::uint32_t id = c.u32();
  h.sorted = v6 ? (id & 0x80000000u) != 0
                : (id & 0x80000000u) == 0;  // V4/V5: the high bit marks events that are *not* sorted
  h.metadata_id = id & 0x7FFFFFFFu;
  h.sequence = c.u32();
  h.thread = c.u64();
  h.capture_thread = c.u64();
  h.processor = c.u32();
  h.stack_id = c.u32();
  h.timestamp = c.u64();
  if (v6) {
    h.label_list = c.u32();
  } else {
    h.activity = c.guid();
    h.related = c.guid();
  }
  h.payload_size = c.u32();
  const Bytes payload = c.bytes(h.payload_size);
  if (!c.ok || c.pos() - start > std::size_t{size} + 4)
    return damage("event header or payload runs past the end of the block");
  std::size_t next = start + 4 + size;
  if (!v6) next = (next + 3) & ~std::size_t{3};  // V4/V5: padded to 4 bytes (block starts are aligned)
  pos_ = std::min(next, block_.bytes.size());
  return payload;
}

// NetPerf V3: int32 EventSize (of what follows it, padding included), int32 MetaDataId, int32 ThreadId,
// int64 TimeStamp, Guid ActivityID, Guid RelatedActivityID, int32 PayloadSize, the payload, int32 stack
// byte count, the stack (pointer-size addresses), zero padding to 4 bytes. The runtime pads at the end
// of the blob, not after the payload: the stack count follows the payload directly.
Result<Bytes> BlockParser::read_blob_v3() {
  Cursor c(block_.bytes, pos_);
  EventHeader& h = header_;
  const std::uint32_t size = c.u32();
  h.metadata_id = c.u32();
  h.thread = h.capture_thread = c.u32();
  h.timestamp = c.u64();
  h.activity = c.guid();
  h.related = c.guid();
  h.payload_size = c.u32();
  if (!c.ok) return damage("event header runs past the end of the block");
  const Bytes payload = c.bytes(h.payload_size);
  const std::uint32_t stack_size = c.u32();
  inline_stack_ = c.bytes(stack_size);
  if (!c.ok) return damage("event payload or stack runs past the end of the block");
  const std::size_t used = c.pos() - pos_ - 4;
  if (used > size)
    return damage("event size " + std::to_string(size) + " is less than its header, payload and stack (" +
                  std::to_string(used) + " bytes)");
  if (size > block_.bytes.size() - pos_ - 4)
    return damage("event size " + std::to_string(size) + " runs past the end of the block");
  pos_ += 4 + std::size_t{size};
  return payload;
}

Status BlockParser::read_metadata_v6() {
  Cursor c(block_.bytes, pos_);
  const std::uint16_t size = c.u16();
  const Bytes row = c.bytes(size);
  if (!c.ok) return damage("metadata row runs past the end of the block");
  pos_ = c.pos();
  Metadata m;
  m.format = 6;
  if (Status s = parse_metadata_v6(row, m); !s) return damage("malformed metadata row: " + s.error().detail);
  add_metadata(std::move(m));
  return {};
}

Status BlockParser::add_metadata_v5(Bytes payload) {
  Metadata m;
  m.format = info_.format;
  if (Status s = parse_metadata_v5(payload, m); !s) {  // located at the record's byte that is wrong
    const std::size_t at = payload.data() ? static_cast<std::size_t>(payload.data() - block_.bytes.data()) : pos_;
    return block_.damage(at + s.error().offset, "malformed metadata record: " + s.error().detail);
  }
  add_metadata(std::move(m));
  return {};
}

void BlockParser::add_metadata(Metadata m) {
  ++stats_.metadata;
  metadata_store_.push_back(std::move(m));
  metadata_[metadata_store_.back().id] = &metadata_store_.back();
  last_metadata_ = nullptr;  // an id may have been redefined
}

// ---- the other blocks ------------------------------------------------------------

Status BlockParser::stack_block() {
  Cursor c(block_.bytes);
  const std::uint32_t first = c.u32();
  const std::uint32_t count = c.u32();
  if (!c.ok || count > block_.bytes.size()) return damage("bad stack block header");
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t size = c.u32();
    const Bytes ips = c.bytes(size);
    if (!c.ok) return damage("stack " + std::to_string(first + i) + " runs past the end of the block");
    if (!stacks_.empty() && first + i <= stacks_.back().id) stacks_sorted_ = false;
    stacks_.push_back({first + i, stack_bytes_.size(), ips.size()});
    stack_bytes_.insert(stack_bytes_.end(), ips.begin(), ips.end());
    ++stats_.stacks;
  }
  return {};
}

const BlockParser::StackEntry* BlockParser::find_stack(std::uint32_t id) {
  if (stacks_.empty() || id < stacks_.front().id) return nullptr;
  const std::uint64_t at = std::uint64_t{id} - stacks_.front().id;
  if (at < stacks_.size() && stacks_[at].id == id && stacks_sorted_) return &stacks_[at];
  if (!stacks_sorted_) {
    std::stable_sort(stacks_.begin(), stacks_.end(), [](const StackEntry& a, const StackEntry& b) { return a.id < b.id; });
    // Of equal ids the last given wins: keep the last of each run.
    auto out = stacks_.begin();
    for (auto it = stacks_.begin(); it != stacks_.end(); ++it)
      if (std::next(it) == stacks_.end() || std::next(it)->id != it->id) *out++ = *it;
    stacks_.erase(out, stacks_.end());
    stacks_sorted_ = true;
    if (id < stacks_.front().id) return nullptr;
  }
  auto it = std::lower_bound(stacks_.begin(), stacks_.end(), id, [](const StackEntry& e, std::uint32_t v) { return e.id < v; });
  return it != stacks_.end() && it->id == id ? &*it : nullptr;
}

// Events a thread's sequence number says were lost before `seq`.
void BlockParser::lost(std::uint64_t thread, std::uint32_t seq) {
  auto it = last_sequence_.find(thread);
  const std::uint32_t last = it == last_sequence_.end() ? 0 : it->second;
  const std::uint32_t gap = seq - last;
  if (gap != 0 && gap < 0x80000000u) {
    stats_.lost_events += gap;
    last_sequence_[thread] = seq;
  }
}

Status BlockParser::sequence_point() {
  Cursor c(block_.bytes);
  c.u64();  // timestamp
  std::uint32_t flags = 0;
  if (!fast_serialization_) flags = c.u32();
  const std::uint32_t count = c.u32();
  if (!c.ok) return damage("bad sequence point header");
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t thread = fast_serialization_ ? c.u64() : c.varuint64();
    const std::uint32_t seq = fast_serialization_ ? c.u32() : c.varuint32();
    if (!c.ok) return damage("sequence point thread list runs past the end of the block");
    lost(thread, seq);
  }
  ++stats_.sequence_points;
  // A sequence point ends the validity of stack (and V6 label) ids.
  stacks_.clear();
  stacks_sorted_ = true;
  stack_bytes_.clear();
  labels_.clear();
  if (flags & 1) threads_.clear();
  if (flags & 2) {
    metadata_.clear();  // the records themselves stay alive for events already handed out
    last_metadata_ = nullptr;
  }
  return {};
}

Status BlockParser::thread_block() {
  Cursor c(block_.bytes);
  while (!c.at_end()) {
    const std::uint16_t size = c.u16();
    Cursor row(c.bytes(size));
    if (!c.ok) return damage("thread row runs past the end of the block");
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
    if (!row.ok) return damage("malformed thread row");
    threads_[index] = t;
  }
  return {};
}

Status BlockParser::remove_thread_block() {
  Cursor c(block_.bytes);
  while (!c.at_end()) {
    const std::uint64_t index = c.varuint64();
    const std::uint32_t seq = c.varuint32();
    if (!c.ok) return damage("malformed remove-thread entry");
    lost(index, seq);
    last_sequence_.erase(index);
    threads_.erase(index);
  }
  return {};
}

Status BlockParser::label_block() {
  Cursor c(block_.bytes);
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
    labels_[index] = l;
  }
  if (!c.ok) return damage("malformed label list");
  return {};
}

// ---- events ----------------------------------------------------------------------

void BlockParser::fill(EventRecord& r, Bytes payload) {
  const EventHeader& h = header_;
  if (!last_metadata_ || last_metadata_id_ != h.metadata_id) {
    auto it = metadata_.find(h.metadata_id);
    last_metadata_ = it == metadata_.end() ? nullptr : it->second;
    last_metadata_id_ = h.metadata_id;
  }
  const Metadata* m = last_metadata_;
  if (!m) ++stats_.unknown_metadata;
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
  r.timestamp = static_cast<std::int64_t>(h.timestamp);
  r.process_id = info_.process_id;
  r.thread_id = h.thread;
  r.capture_thread_id = h.capture_thread;
  r.processor = h.processor;
  r.sequence = h.sequence;
  r.pointer_size = static_cast<std::uint8_t>(info_.pointer_size);
  r.activity_id = h.activity;
  r.related_activity_id = h.related;
  if (!fast_serialization_) {
    if (auto t = threads_.find(h.thread); t != threads_.end()) {
      if (t->second.has_thread_id) r.thread_id = t->second.os_thread_id;
      if (t->second.has_process_id) r.process_id = static_cast<std::uint32_t>(t->second.process_id);
    }
    if (auto t = threads_.find(h.capture_thread); t != threads_.end() && t->second.has_thread_id)
      r.capture_thread_id = t->second.os_thread_id;
    r.activity_id = r.related_activity_id = Guid{};
    if (auto l = labels_.find(h.label_list); l != labels_.end()) {
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
  if (netperf_) {
    r.stack = inline_stack_;
    if (!inline_stack_.empty()) ++stats_.stacks;
    // V3 has no sequence numbers (nor capture threads or processors): events lost go uncounted.
    ++stats_.events;
    return;
  }
  if (h.stack_id) {
    if (const StackEntry* s = find_stack(h.stack_id)) r.stack = Bytes(stack_bytes_.data() + s->offset, s->size);
  }
  // Sequence numbers, per capture thread.
  auto [seq, inserted] = last_sequence_.try_emplace(h.capture_thread, h.sequence);
  if (!inserted) {
    const std::uint32_t gap = h.sequence - seq->second - 1;
    if (gap != 0 && gap < 0x80000000u && h.sequence != 1) stats_.lost_events += gap;
    seq->second = h.sequence;
  } else if (h.sequence > 1 && h.sequence < 0x80000000u) {
    stats_.lost_events += h.sequence - 1;  // the thread's first event here is not its first
  }
  ++stats_.events;
}

}  // namespace clretw::nettrace::detail
