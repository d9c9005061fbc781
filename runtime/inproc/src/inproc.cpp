// EventPipe deliveries to a profiler, as EventRecords (clretw/inproc.h).
#include "clretw/inproc.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>

#include "clretw/diagnostics.h"
#include "clretw/nettrace.h"
#include "clretw/text.h"

namespace clretw::inproc {

namespace {

Error reject(std::string what) { return Error{Errc::bad_format, 0, {}, std::move(what)}; }

std::string utf8_of(std::u16string_view s) {
  return Utf16View(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()).to_utf8();
}

struct Provider {
  std::string name;
  Guid guid;
};

// One event type: what a (provider, id, version) delivered with this metadata is.
struct Type {
  std::vector<std::uint8_t> blob;  // the metadata as delivered, to tell a different one apart
  nettrace::Metadata meta;
};

struct TypeKey {
  std::uint64_t provider;
  std::uint32_t id, version;
  friend bool operator==(const TypeKey&, const TypeKey&) = default;
};
struct TypeKeyHash {
  std::size_t operator()(const TypeKey& k) const noexcept {
    std::uint64_t h = k.provider * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<std::uint64_t>(k.id) << 8 | k.version) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

bool same_blob(const std::vector<std::uint8_t>& kept, const std::uint8_t* p, std::uint32_t n) noexcept {
  return kept.size() == n && (n == 0 || std::memcmp(kept.data(), p, n) == 0);
}

// Each decoder's number, never reused: what a thread's cache knows its entries' decoder by (an address can be).
std::atomic<std::uint64_t> next_decoder_serial{1};

// What a thread met last, per slot: the provider and type a (decoder, provider, id, version) was, so that a
// delivery of a type the thread has just seen takes no lock and no map lookup. Entries point into a decoder's
// maps, whose nodes never move or go away while it lives; its serial tells a later decoder's lookups apart.
struct RecentType {
  std::uint64_t decoder = 0;  // 0: empty
  std::uint64_t provider = 0;
  std::uint32_t id = 0, version = 0;
  const Provider* provider_entry = nullptr;
  const Type* type_entry = nullptr;
};
constexpr std::size_t kRecentSlots = 16;
thread_local RecentType recent[kRecentSlots];

std::size_t recent_slot(std::uint64_t provider, std::uint32_t id) noexcept {
  return static_cast<std::size_t>((provider >> 4) ^ (provider >> 12) ^ id * 0x9E37u) & (kRecentSlots - 1);
}

}  // namespace

struct EventPipeDecoder::Impl {
  ProviderNamer namer;
  DecoderOptions options;
  mutable std::shared_mutex mutex;  // guards the two maps; their nodes never move or go away
  std::unordered_map<std::uint64_t, Provider> providers;
  // Several types per key only when a provider redefines an event with other metadata.
  std::unordered_map<TypeKey, std::vector<std::unique_ptr<Type>>, TypeKeyHash> types;
  std::size_t type_count = 0;
  std::atomic<std::uint64_t> decoded{0}, rejected{0};
  const std::uint64_t serial = next_decoder_serial.fetch_add(1, std::memory_order_relaxed);

  const Provider* find_provider(std::uint64_t handle) const {
    std::shared_lock lock(mutex);
    auto it = providers.find(handle);
    return it == providers.end() ? nullptr : &it->second;
  }

  Result<const Provider*> provider(std::uint64_t handle) {
    if (const Provider* p = find_provider(handle)) return p;
    std::u16string name;
    if (!namer || !namer(handle, name)) return reject("provider handle " + std::to_string(handle) + " could not be named");
    if (name.empty()) return reject("provider handle " + std::to_string(handle) + " has an empty name");
    Provider p{utf8_of(name), {}};
    p.guid = nettrace::provider_guid_for(p.name);
    std::unique_lock lock(mutex);
    return &providers.try_emplace(handle, std::move(p)).first->second;  // another thread may have named it first
  }

  const Type* find_type(const TypeKey& key, const Delivery& d) const {
    std::shared_lock lock(mutex);
    auto it = types.find(key);
    if (it == types.end()) return nullptr;
    for (const auto& t : it->second)
      if (same_blob(t->blob, d.metadata, d.metadata_size)) return t.get();
    return nullptr;
  }

  Result<const Type*> type(const TypeKey& key, const Delivery& d, const Provider& p) {
    if (const Type* t = find_type(key, d)) return t;
    auto t = std::make_unique<Type>();
    t->blob.assign(d.metadata, d.metadata + d.metadata_size);
    if (Status s = nettrace::parse_event_metadata(Bytes(t->blob.data(), t->blob.size()), p.name, t->meta); !s) {
      Error e = std::move(s).error();
      e.detail = "the metadata of " + p.name + " event " + std::to_string(d.event_id) + " is malformed: " + e.detail;
      return e;
    }
    const nettrace::Metadata& m = t->meta;
    // The metadata's id must be the callback's. Its version is the event's: what a file session
    // records (the callback passes 0 for EventPipe's own ProcessInfo, whose metadata says 1).
    if (d.metadata_size != 0 && m.event_id != d.event_id)
      return reject("the metadata of " + p.name + " event " + std::to_string(d.event_id) + " v" +
                    std::to_string(d.event_version) + " describes event " + std::to_string(m.event_id) + " v" +
                    std::to_string(m.version));
    std::unique_lock lock(mutex);
    auto& list = types[key];
    for (const auto& kept : list)  // another thread may have added it meanwhile
      if (same_blob(kept->blob, d.metadata, d.metadata_size)) return kept.get();
    if (type_count >= options.max_types)
      return reject("more than " + std::to_string(options.max_types) + " event types: " + p.name + " event " +
                    std::to_string(d.event_id) + " is not remembered");
    ++type_count;
    list.push_back(std::move(t));
    return list.back().get();
  }

  Status decode(const Delivery& d, EventRecord& out) {
    if (!d.payload && d.payload_size) return reject("a null payload of " + std::to_string(d.payload_size) + " bytes");
    if (!d.metadata && d.metadata_size) return reject("null metadata of " + std::to_string(d.metadata_size) + " bytes");
    if (!d.stack && d.stack_frames) return reject("a null stack of " + std::to_string(d.stack_frames) + " frames");
    if (d.event_id > 0xFFFF) return reject("event id " + std::to_string(d.event_id) + " is wider than 16 bits");
    if (d.event_version > 0xFF) return reject("event version " + std::to_string(d.event_version) + " is wider than 8 bits");
    if (d.stack_frames > 0xFFFFFFFFu / sizeof(std::uintptr_t))
      return reject(std::to_string(d.stack_frames) + " stack frames are more than a record holds");
    const Provider* pp = nullptr;
    const Type* tt = nullptr;
    RecentType& seen = recent[recent_slot(d.provider, d.event_id)];
    if (seen.decoder == serial && seen.provider == d.provider && seen.id == d.event_id && seen.version == d.event_version &&
        same_blob(seen.type_entry->blob, d.metadata, d.metadata_size)) {
      pp = seen.provider_entry;
      tt = seen.type_entry;
    } else {
      auto p = provider(d.provider);
      if (!p) return std::move(p).error();
      auto t = type(TypeKey{d.provider, d.event_id, d.event_version}, d, **p);
      if (!t) return std::move(t).error();
      pp = *p;
      tt = *t;
      seen = RecentType{serial, d.provider, d.event_id, d.event_version, pp, tt};
    }
    const nettrace::Metadata& m = tt->meta;

    out = EventRecord{};
    out.provider_guid = pp->guid;
    out.provider_name = pp->name;
    out.event_name = m.event_name;
    out.id = static_cast<std::uint16_t>(d.event_id);
    out.version = d.metadata_size ? m.version : static_cast<std::uint8_t>(d.event_version);
    out.level = m.level;
    out.opcode = m.has_opcode ? m.opcode : 0;
    out.keywords = m.keywords;
    out.timestamp = EventPipeDecoder::now();
    out.process_id = options.process_id;
    out.thread_id = d.thread_id;
    out.capture_thread_id = d.thread_id;
    out.processor = kUnrecorded;
    out.pointer_size = static_cast<std::uint8_t>(sizeof(void*));
    if (d.activity_id) std::memcpy(&out.activity_id, d.activity_id, sizeof(Guid));
    if (d.related_activity_id) std::memcpy(&out.related_activity_id, d.related_activity_id, sizeof(Guid));
    out.payload = Bytes(d.payload, d.payload_size);
    out.stack = Bytes(reinterpret_cast<const std::uint8_t*>(d.stack), d.stack_frames * sizeof(std::uintptr_t));
    out.stack_pointer_size = static_cast<std::uint8_t>(sizeof(std::uintptr_t));
    out.self_description = m.describes_fields ? &m : nullptr;
    return {};
  }
};

static_assert(sizeof(Guid) == 16, "a GUID is 16 bytes, as EventPipe passes it");

EventPipeDecoder::EventPipeDecoder(ProviderNamer namer, DecoderOptions options)
    : impl_(std::make_unique<Impl>()), start_(now()) {
  impl_->namer = std::move(namer);
  impl_->options = options;
}

EventPipeDecoder::~EventPipeDecoder() = default;

Status EventPipeDecoder::decode(const Delivery& d, EventRecord& out) noexcept {
  try {
    Status s = impl_->decode(d, out);
    (s ? impl_->decoded : impl_->rejected).fetch_add(1, std::memory_order_relaxed);
    return s;
  } catch (const std::exception& e) {  // out of memory while remembering a type, or the namer threw
    impl_->rejected.fetch_add(1, std::memory_order_relaxed);
    try {
      return reject(std::string("failed: ") + e.what());
    } catch (...) {
      return Error{Errc::bad_format, 0, {}, {}};
    }
  } catch (...) {
    impl_->rejected.fetch_add(1, std::memory_order_relaxed);
    return Error{Errc::bad_format, 0, {}, {}};
  }
}

std::int64_t EventPipeDecoder::now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

DecoderCounts EventPipeDecoder::counts() const noexcept {
  DecoderCounts c;
  c.decoded = impl_->decoded.load(std::memory_order_relaxed);
  c.rejected = impl_->rejected.load(std::memory_order_relaxed);
  std::shared_lock lock(impl_->mutex);
  c.providers = impl_->providers.size();
  c.types = impl_->type_count;
  return c;
}

Result<InprocSession> plan_session(std::string_view providers, std::string_view profiles,
                                   const std::vector<const Catalog*>& catalogs) {
  if (providers.empty() && profiles.empty())
    return Error{Errc::bad_format, 0, {}, "no providers and no profile: say which events the session is for"};
  diagnostics::SessionRequest request;
  request.providers = std::string(providers);
  request.profiles = std::string(profiles);
  if (profiles.empty()) request.rundown = false;  // a rundown at the end only when a profile asks for one
  auto plan = diagnostics::plan_session(request, catalogs);
  if (!plan) return std::move(plan).error();
  InprocSession session;
  session.rundown = plan->options.rundown;
  session.notes = plan->notes;
  for (const diagnostics::Provider& p : plan->options.providers) {
    SessionProvider sp;
    sp.name = utf8_to_utf16(p.name);
    sp.name_utf8 = p.name;
    sp.keywords = p.keywords;
    sp.level = p.level;
    sp.filter = utf8_to_utf16(p.arguments);
    session.providers.push_back(std::move(sp));
  }
  return session;
}

}  // namespace clretw::inproc
