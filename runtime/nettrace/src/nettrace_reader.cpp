// The nettrace reader: framing (nettrace_framing.h) hands blocks to the block
// parser (nettrace_blocks.h), whose events are delivered in file order or,
// through the sorter (nettrace_sorter.h), in timestamp order.
#include <optional>

#include "clretw/nettrace.h"
#include "nettrace_blocks.h"
#include "nettrace_framing.h"
#include "nettrace_sorter.h"

namespace clretw::nettrace {

struct Reader::Impl {
  explicit Impl(const ReaderOptions& o) : options(o), framing(o.max_block_size) {}

  ReaderOptions options;
  detail::Framing framing;
  TraceInfo info;
  Stats stats;
  std::optional<detail::BlockParser> blocks;  // once the stream header is read
  detail::Sorter sorter;
  EventRecord record;
  bool ended = false;
  bool failed = false;
  Error error;
  EventRecord sequence_marker;  // next_raw() returns its address where the sorter may release all (sorted mode only)

  Status open() {
    if (Status s = framing.open(info); !s) return s;
    blocks.emplace(info, framing.fast_serialization(), stats);
    return {};
  }

  // Damage ends the stream: later calls report it again.
  Error fail(Error e) {
    if (const std::string& why = framing.input().stream_error(); !why.empty()) e.detail += " (the stream: " + why + ")";
    failed = true;
    error = e;
    return e;
  }

  // The next event in file order; nullptr at the end.
  Result<const EventRecord*> next_raw() {
    for (;;) {
      auto event = blocks->next_event(record);
      if (!event) return fail(std::move(event).error());
      if (*event) return *event;
      detail::Block block;
      auto more = framing.next(block);
      if (!more) return fail(std::move(more).error());
      if (!*more) {
        ended = true;
        return static_cast<const EventRecord*>(nullptr);
      }
      if (Status s = blocks->begin(block); !s) return fail(std::move(s).error());
      // NetPerf (format 3) has neither sequence points nor sorted flags, and ordering the whole
      // file would need memory for all of it: its events are ordered within each event block.
      if (options.sorted && (block.kind == detail::BlockKind::SequencePoint ||
                             (info.format == 3 && block.kind == detail::BlockKind::Event)))
        return static_cast<const EventRecord*>(&sequence_marker);
    }
  }

  // Sorted delivery: release at sorted events, sequence points (NetPerf: event block ends), the end and damage.
  Result<const EventRecord*> next_sorted() {
    for (;;) {
      if (const EventRecord* r = sorter.next()) return r;
      if (ended || failed) {
        if (sorter.holds_events()) {
          sorter.release();
          continue;
        }
        if (failed) return error;
        return static_cast<const EventRecord*>(nullptr);
      }
      auto r = next_raw();
      if (!r || *r == nullptr || *r == &sequence_marker) {  // damage: what came before it goes first
        sorter.release();
        continue;
      }
      if (!options.keep || options.keep(record)) sorter.add(record);
      else ++stats.passed_over;
      if (blocks->header().sorted) sorter.release(record.timestamp);
    }
  }
};

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::open_file(const std::string& path, ReaderOptions options) {
  auto impl = std::make_unique<Impl>(options);
  if (Status s = impl->framing.input().open_file(path); !s) return std::move(s).error();
  if (Status s = impl->open(); !s) return std::move(s).error();
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Result<std::unique_ptr<Reader>> Reader::open_memory(Bytes data, ReaderOptions options) {
  auto impl = std::make_unique<Impl>(options);
  impl->framing.input().open_memory(data);
  if (Status s = impl->open(); !s) return std::move(s).error();
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Result<std::unique_ptr<Reader>> Reader::open_stream(ByteStream& stream, ReaderOptions options) {
  auto impl = std::make_unique<Impl>(options);
  impl->framing.input().open_stream(stream);
  if (Status s = impl->open(); !s) {
    Error e = std::move(s).error();
    if (const std::string& why = impl->framing.input().stream_error(); !why.empty()) e.detail += " (the stream: " + why + ")";
    return e;
  }
  return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

const TraceInfo& Reader::info() const noexcept { return impl_->info; }
const Stats& Reader::stats() const noexcept { return impl_->stats; }
std::uint64_t Reader::position() const noexcept { return impl_->framing.input().pos(); }
std::uint64_t Reader::size() const noexcept { return impl_->framing.input().size(); }

Result<const EventRecord*> Reader::next() {
  if (impl_->options.sorted) return impl_->next_sorted();
  if (impl_->failed) return impl_->error;
  if (impl_->ended) return static_cast<const EventRecord*>(nullptr);
  for (;;) {
    auto r = impl_->next_raw();
    if (!r || !*r || !impl_->options.keep || impl_->options.keep(**r)) return r;
    ++impl_->stats.passed_over;
  }
}

}  // namespace clretw::nettrace
