// Internal: what is inside the blocks of a nettrace stream. The parser keeps
// what blocks say that outlives one block - metadata, stacks, threads, label
// lists, the last sequence number of each thread - and turns the event blobs
// of event blocks into EventRecords. Framing (nettrace_framing.h) hands it the
// blocks; the reader decides what to do with the events.
//
// NetPerf (format 3) has event blocks only: their blobs carry the metadata
// (as events of metadata id 0) and each event's stack inline, and no sequence
// numbers, so events lost cannot be counted there.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clretw/nettrace.h"
#include "nettrace_format.h"
#include "nettrace_framing.h"

namespace clretw::nettrace::detail {

// The header of the current event blob (compressed headers are deltas
// against the previous blob of the same block).
struct EventHeader {
  std::uint32_t metadata_id = 0;
  std::uint32_t sequence = 0;
  std::uint64_t thread = 0;          // thread id (V3-V5) or thread index (V6)
  std::uint64_t capture_thread = 0;  // likewise (V3 has none: the thread id)
  std::uint32_t processor = 0;
  std::uint32_t stack_id = 0;
  std::uint64_t timestamp = 0;
  Guid activity, related;
  std::uint32_t label_list = 0;  // V6
  bool sorted = false;
  std::uint32_t payload_size = 0;
};

class BlockParser {
 public:
  BlockParser(const TraceInfo& info, bool fast_serialization, Stats& stats)
      : info_(info), fast_serialization_(fast_serialization), netperf_(info.format == 3), stats_(stats) {}

  // Takes the next block: parses it whole, or, for an event or metadata
  // block, its header (its rows follow through next_event()).
  Status begin(const Block& block);
  // The next event of the current event block into `record`; nullptr when the
  // block has no more events (metadata rows are taken in on the way).
  Result<const EventRecord*> next_event(EventRecord& record);
  // The header of the event next_event() returned last.
  const EventHeader& header() const noexcept { return header_; }

 private:
  Status begin_event_block();
  Result<Bytes> read_blob();
  Result<Bytes> read_blob_v3();
  Status read_metadata_v6();
  Status add_metadata_v5(Bytes payload);
  void add_metadata(Metadata m);
  Status stack_block();
  Status sequence_point();
  Status thread_block();
  Status remove_thread_block();
  Status label_block();
  void fill(EventRecord& r, Bytes payload);
  void lost(std::uint64_t thread, std::uint32_t seq);
  Error damage(const std::string& what) const { return block_.damage(pos_, what); }

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

  const TraceInfo& info_;
  bool fast_serialization_;
  bool netperf_;  // format 3
  Stats& stats_;

  // The current block.
  Block block_;
  std::size_t pos_ = 0;
  bool compressed_ = false;
  EventHeader header_;
  Bytes inline_stack_;  // V3: the stack of the current blob

  // What outlives a block.
  std::deque<Metadata> metadata_store_;
  std::unordered_map<std::uint32_t, const Metadata*> metadata_;
  std::uint32_t last_metadata_id_ = 0;  // consecutive events mostly share their metadata
  const Metadata* last_metadata_ = nullptr;
  std::vector<std::uint8_t> stack_bytes_;
  // Stacks since the last sequence point, in the order their blocks gave them. Ids normally
  // ascend by one, so a stack is found by its distance from the first; otherwise the entries
  // are sorted once (the last of equal ids wins) and searched. Cleared, not freed: reading
  // allocates nothing per stack once the vector has grown.
  struct StackEntry {
    std::uint32_t id;
    std::size_t offset, size;  // in stack_bytes_
  };
  std::vector<StackEntry> stacks_;
  bool stacks_sorted_ = true;  // ids strictly ascending
  const StackEntry* find_stack(std::uint32_t id);
  std::unordered_map<std::uint64_t, std::uint32_t> last_sequence_;                 // per capture thread
  std::unordered_map<std::uint64_t, ThreadInfo> threads_;                           // V6
  std::unordered_map<std::uint32_t, LabelList> labels_;                             // V6
};

}  // namespace clretw::nettrace::detail
