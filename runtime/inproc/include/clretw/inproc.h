// clretw/inproc.h - EventPipe events inside the process: what a profiler loaded into a .NET
// runtime receives in ICorProfilerCallback10::EventPipeEventDelivered, as EventRecords.
//
// A profiler starts a session with ICorProfilerInfo12::EventPipeStartSession (plan_session()
// below turns dotnet-trace's providers syntax or a profile into its provider list); the runtime
// then calls EventPipeEventDelivered on the thread that writes each event. The profiler copies
// the callback's arguments into a Delivery and asks an EventPipeDecoder for the record:
//
//   clretw::inproc::EventPipeDecoder decoder(
//       [info](std::uint64_t provider, std::u16string& name) { /* EventPipeGetProviderInfo */ });
//   // in EventPipeEventDelivered:
//   clretw::EventRecord record;
//   if (decoder.decode(delivery, record)) dispatcher.dispatch(record);   // views, describer, ...
//
// The record is what the file readers hand out: the provider's GUID and name, the event's id,
// version (its metadata's, as a file session records it, where the metadata has one), level,
// keywords and opcode from its metadata, the metadata as a self-description for
// EventSource events (so the describer names their fields), the payload, activity ids, thread
// and stack. It points into the callback's buffers and the decoder's caches: use it before the
// callback returns. EventPipe passes no timestamp: the record gets the steady clock's reading
// (nanoseconds), taken when it is decoded.
//
// Standard library only (the provider names come through the caller's function). The decoder is
// safe to call from every thread at once; it allocates only when it first sees a provider or an
// event type, never throws, and checks every size and pointer before use. A delivery it cannot
// trust is rejected with the reason; the payload itself is checked where it is read (views,
// describer), as with every source.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/guid.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/schema.h"

namespace clretw::inproc {

// The arguments of EventPipeEventDelivered, in portable types. Pointers may be null only with a
// size of 0 (activity ids: null when there are none).
struct Delivery {
  std::uint64_t provider = 0;             // the EVENTPIPE_PROVIDER handle
  std::uint32_t event_id = 0;
  std::uint32_t event_version = 0;
  const std::uint8_t* metadata = nullptr;
  std::uint32_t metadata_size = 0;
  const std::uint8_t* payload = nullptr;
  std::uint32_t payload_size = 0;
  const std::uint8_t* activity_id = nullptr;          // 16 bytes (LPCGUID), or null
  const std::uint8_t* related_activity_id = nullptr;  // 16 bytes, or null
  // The OS id of the thread the event is about. The callback passes the runtime's ThreadID; the
  // caller turns it into the OS id (ICorProfilerInfo::GetThreadInfo), or passes its own thread's.
  std::uint64_t thread_id = 0;
  const std::uintptr_t* stack = nullptr;  // return addresses, innermost first
  std::uint32_t stack_frames = 0;
};

// Names a provider handle: ICorProfilerInfo12::EventPipeGetProviderInfo. False when it cannot.
using ProviderNamer = std::function<bool(std::uint64_t provider, std::u16string& name)>;

struct DecoderOptions {
  std::uint32_t process_id = kUnrecorded;  // what records say: the profiler knows its process
  // At most this many event types (provider, id, version and metadata) are remembered; a further
  // one is rejected. EventPipe defines a few thousand at most.
  std::size_t max_types = 1u << 16;
};

struct DecoderCounts {
  std::uint64_t decoded = 0;    // deliveries turned into records
  std::uint64_t rejected = 0;   // deliveries refused (decode() said why)
  std::uint64_t providers = 0;  // provider handles named
  std::uint64_t types = 0;      // event types remembered
};

class EventPipeDecoder {
 public:
  explicit EventPipeDecoder(ProviderNamer namer, DecoderOptions options = {});
  ~EventPipeDecoder();
  EventPipeDecoder(const EventPipeDecoder&) = delete;
  EventPipeDecoder& operator=(const EventPipeDecoder&) = delete;

  // `out` = the record of `d`, or the reason it cannot be trusted (a null pointer with a size, an
  // id or version wider than the record's, metadata that is malformed or names another event, a
  // provider that cannot be named). Thread-safe; never throws.
  Status decode(const Delivery& d, EventRecord& out) noexcept;

  // The steady clock in nanoseconds: what decode() stamps records with.
  static std::int64_t now() noexcept;
  // Milliseconds from the decoder's creation to a record's timestamp.
  double milliseconds(std::int64_t timestamp) const noexcept {
    return static_cast<double>(timestamp - start_) / 1e6;
  }
  std::int64_t start() const noexcept { return start_; }

  DecoderCounts counts() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::int64_t start_;
};

// One provider of a session, as EventPipeStartSession takes it (COR_PRF_EVENTPIPE_PROVIDER_CONFIG):
// UTF-16 name and filter, the filter empty when there is none.
struct SessionProvider {
  std::u16string name;
  std::uint64_t keywords = 0;
  std::uint32_t level = 4;
  std::u16string filter;  // "Key=Value;Key=Value"
  std::string name_utf8;  // the same name, for messages
};

struct InprocSession {
  std::vector<SessionProvider> providers;
  bool rundown = false;            // requestRundown
  std::vector<std::string> notes;  // what the plan decided by default, unknown providers...
};

// The providers of an in-process session from dotnet-trace's syntax
// ("Name[:Keywords[:Level[:Key=Value;...]]]", comma separated, keyword names allowed) and/or
// profile names ("gc-verbose", "dotnet-common", ...), planned as clretw-trace plans a session
// (clretw::diagnostics::plan_session). Both empty: an error (an in-process session has no
// default). Rundown only when a profile asks for it.
Result<InprocSession> plan_session(std::string_view providers, std::string_view profiles = {},
                                   const std::vector<const Catalog*>& catalogs = {});

}  // namespace clretw::inproc
