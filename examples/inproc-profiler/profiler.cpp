// A profiler that .NET loads into a process: it starts an EventPipe session inside the runtime
// and decodes every event it receives with clretw's built-in decoders.
//
//   CORECLR_ENABLE_PROFILING=1
//   CORECLR_PROFILER={8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}
//   CORECLR_PROFILER_PATH=/path/to/libclretw_inproc_profiler.so
//   CLRETW_PROVIDERS=Microsoft-Windows-DotNETRuntime:0x1:4   (dotnet-trace's syntax; the default)
//   CLRETW_PROFILE=gc-verbose                                  (dotnet-trace's profiles; optional)
//   CLRETW_OUTPUT=events.jsonl                                 (one JSON line per event, as clretw-dump
//                                                               --format json writes them; optional)
//   CLRETW_RECORD=deliveries.bin                               (the callback's arguments as they came, for
//                                                               bench/inproc_replay; optional)
//   CLRETW_DECODE=0                                            (receive only: count, decode nothing; what
//                                                               bench/inproc.sh measures decoding against)
//
// When the runtime shuts down it writes one line to stderr: the events by provider, the GCs by
// generation, how many came with a stack, any deliveries it could not trust, and when the session
// began (steady clock, ns). Whatever goes wrong, the program runs on
// unchanged: the profiler says why on stderr and stops listening.
#include <clretw/describe.h>               // EventDescriber, format_event
#include <clretw/dotnet_runtime/gc.h>       // GCStartView: the GC events alone
#include <clretw/inproc.h>                  // EventPipeDecoder, plan_session
#include <clretw/catalog.h>                 // catalog(): the built-in decoders, for the describer

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#define CLRETW_EXPORT extern "C" __declspec(dllexport)
#else
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#define CLRETW_EXPORT extern "C" __attribute__((visibility("default")))
#endif

#include "corprof_min.h"

namespace {

namespace cor = clretw_example::cor;
using namespace clretw_example::cor;  // S_OK and the like: macros on Windows, the header's constants elsewhere
namespace rt = clretw::dotnet_runtime;

// {8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}
constexpr cor::GUID kClsid = {0x8E2B0A5C, 0x3F7D, 0x4C1B, {0x9E, 0x6A, 0xC1, 0xE7, 0xE7, 0xD0, 0xC0, 0xDE}};

bool same_guid(const cor::GUID& a, const cor::GUID& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::uint64_t os_thread_id() {
#if defined(_WIN32)
  return GetCurrentThreadId();
#elif defined(__linux__)
  return static_cast<std::uint64_t>(syscall(SYS_gettid));
#elif defined(__APPLE__)
  std::uint64_t id = 0;
  pthread_threadid_np(nullptr, &id);
  return id;
#else
  return 0;
#endif
}

std::uint32_t process_id() {
#if defined(_WIN32)
  return GetCurrentProcessId();
#else
  return static_cast<std::uint32_t>(getpid());
#endif
}

std::string env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

class Profiler final : public cor::ProfilerCallbackBase {
 public:
  cor::HRESULT STDMETHODCALLTYPE Initialize(cor::IUnknown* unknown) override {
    if (!unknown || unknown->QueryInterface(cor::IID_ICorProfilerInfo12, reinterpret_cast<void**>(&info_)) != S_OK) {
      std::fprintf(stderr, "clretw-inproc: this runtime has no ICorProfilerInfo12 (EventPipe sessions need .NET 5 or later)\n");
      return E_FAIL;
    }
    // Which events: dotnet-trace's providers syntax and/or profiles, planned as clretw-trace plans them.
    const std::string providers = env("CLRETW_PROVIDERS", env("CLRETW_PROFILE").empty() ? "Microsoft-Windows-DotNETRuntime:0x1:4" : "");
    auto plan = clretw::inproc::plan_session(providers, env("CLRETW_PROFILE"), {&clretw::catalog()});
    if (!plan) {
      std::fprintf(stderr, "clretw-inproc: CLRETW_PROVIDERS/CLRETW_PROFILE: %s\n", plan.error().message().c_str());
      return E_FAIL;
    }
    const std::string output = env("CLRETW_OUTPUT");
    if (!output.empty() && !(out_ = std::fopen(output.c_str(), "wb"))) {
      std::fprintf(stderr, "clretw-inproc: cannot write %s: %s\n", output.c_str(), std::strerror(errno));
      return E_FAIL;
    }
    const std::string record = env("CLRETW_RECORD");
    if (!record.empty() && !(record_ = std::fopen(record.c_str(), "wb"))) {
      std::fprintf(stderr, "clretw-inproc: cannot write %s: %s\n", record.c_str(), std::strerror(errno));
      return E_FAIL;
    }
    decode_ = env("CLRETW_DECODE", "1") != "0";
    if (info_->SetEventMask2(cor::COR_PRF_MONITOR_NONE, cor::COR_PRF_HIGH_MONITOR_EVENT_PIPE) != S_OK) {
      std::fprintf(stderr, "clretw-inproc: the runtime refused the EventPipe event mask\n");
      return E_FAIL;
    }
    std::vector<cor::COR_PRF_EVENTPIPE_PROVIDER_CONFIG> configs;
    for (const auto& p : plan->providers)
      configs.push_back({reinterpret_cast<const cor::WCHAR*>(p.name.c_str()), p.keywords, p.level,
                         p.filter.empty() ? nullptr : reinterpret_cast<const cor::WCHAR*>(p.filter.c_str())});
    session_plan_ = std::move(*plan);  // the names the configurations point to live as long as the profiler
    session_start_ = clretw::inproc::EventPipeDecoder::now();
    if (info_->EventPipeStartSession(static_cast<cor::UINT32>(configs.size()), configs.data(), session_plan_.rundown,
                                     &session_) != S_OK) {
      std::fprintf(stderr, "clretw-inproc: the runtime refused the EventPipe session\n");
      return E_FAIL;
    }
    listening_ = true;
    return S_OK;
  }

  cor::HRESULT STDMETHODCALLTYPE Shutdown() override {
    if (listening_.exchange(false)) info_->EventPipeStopSession(session_);
    std::lock_guard lock(mutex_);
    if (out_) std::fclose(out_), out_ = nullptr;
    if (record_) std::fclose(record_), record_ = nullptr;
    if (!decode_) {
      std::fprintf(stderr, "clretw-inproc: %llu events received (CLRETW_DECODE=0: none decoded)\n",
                   static_cast<unsigned long long>(received_.load()));
      return S_OK;
    }
    std::string line = "clretw-inproc: " + std::to_string(decoder_.counts().decoded) + " events";
    const char* sep = " (";
    for (const auto& [provider, n] : by_provider_) line += sep + provider + " " + std::to_string(n), sep = ", ";
    if (!by_provider_.empty()) line += ")";
    line += "; GCs";
    unsigned total = 0;
    for (unsigned g = 0; g < 3; ++g) line += " gen" + std::to_string(g) + " " + std::to_string(gcs_[g]), total += gcs_[g];
    line += " (" + std::to_string(total) + "); " + std::to_string(with_stack_) + " with a stack";
    if (const auto rejected = decoder_.counts().rejected) line += "; " + std::to_string(rejected) + " deliveries rejected";
    // When the session began, on the clock records are stamped with (what a trace of the same process
    // recorded before it, the session was not given).
    line += "; session from " + std::to_string(session_start_) + " ns";
    std::fprintf(stderr, "%s\n", line.c_str());
    return S_OK;
  }

  cor::HRESULT STDMETHODCALLTYPE EventPipeEventDelivered(cor::EVENTPIPE_PROVIDER provider, cor::DWORD eventId,
                                                         cor::DWORD eventVersion, cor::ULONG cbMetadataBlob,
                                                         const cor::BYTE* metadataBlob, cor::ULONG cbEventData,
                                                         const cor::BYTE* eventData, const cor::GUID* pActivityId,
                                                         const cor::GUID* pRelatedActivityId, cor::ThreadID eventThread,
                                                         cor::ULONG numStackFrames, cor::UINT_PTR stackFrames[]) override {
    if (!listening_.load(std::memory_order_relaxed)) return S_OK;
    if (!decode_) return received_.fetch_add(1, std::memory_order_relaxed), S_OK;
    clretw::inproc::Delivery d;
    d.provider = provider;
    d.event_id = eventId;
    d.event_version = eventVersion;
    d.metadata = metadataBlob;
    d.metadata_size = cbMetadataBlob;
    d.payload = eventData;
    d.payload_size = cbEventData;
    d.activity_id = reinterpret_cast<const std::uint8_t*>(pActivityId);
    d.related_activity_id = reinterpret_cast<const std::uint8_t*>(pRelatedActivityId);
    d.thread_id = thread_of(eventThread);
    d.stack = stackFrames;
    d.stack_frames = numStackFrames;
    clretw::EventRecord record;
    const clretw::Status decoded = decoder_.decode(d, record);
    if (record_) save(d, decoded ? record.provider_name : std::string_view());
    if (!decoded) {
      if (reported_.fetch_add(1) < 10)
        std::fprintf(stderr, "clretw-inproc: a delivery rejected: %s\n", decoded.error().message().c_str());
      return S_OK;
    }
    std::lock_guard lock(mutex_);  // one describer and one file for every thread
    auto counted = by_provider_.find(record.provider_name);  // a new string only for a new provider
    if (counted == by_provider_.end()) counted = by_provider_.emplace(std::string(record.provider_name), 0).first;
    ++counted->second;
    if (record.stack_depth()) ++with_stack_;
    if (auto gc = rt::GCStartView::from(record)) {
      const unsigned depth = gc->Depth().value_or(0);
      if (depth < 3) ++gcs_[depth];
    }
    if (out_) {
      line_.clear();
      clretw::format_event(record, describer_, decoder_.milliseconds(record.timestamp), clretw::LineFormat::json, line_);
      line_ += '\n';
      std::fwrite(line_.data(), 1, line_.size(), out_);
    }
    return S_OK;
  }

 private:
  // The OS id of the runtime's thread `id`: the last one asked on this thread is remembered (most
  // events are about the thread that writes them).
  std::uint64_t thread_of(cor::ThreadID id) {
    thread_local cor::ThreadID last = 0;
    thread_local std::uint64_t last_os = 0;
    if (id == 0) return os_thread_id();
    if (id == last) return last_os;
    cor::DWORD os = 0;
    if (info_->GetThreadInfo(id, &os) != S_OK) return os_thread_id();
    last = id;
    last_os = os;
    return os;
  }

  // CLRETW_RECORD: one delivery as bench/inproc_replay.cpp reads it (little-endian): u32 size of the
  // provider's UTF-8 name (as the decoder named it; empty when it refused the delivery), the name, u32
  // event id, u32 version, u64 thread, u32 metadata size, the metadata, u32 payload size, the payload.
  void save(const clretw::inproc::Delivery& d, std::string_view provider) {
    std::lock_guard lock(mutex_);
    auto u32 = [this](std::uint32_t v) { std::fwrite(&v, 4, 1, record_); };
    u32(static_cast<std::uint32_t>(provider.size()));
    std::fwrite(provider.data(), 1, provider.size(), record_);
    u32(d.event_id);
    u32(d.event_version);
    std::fwrite(&d.thread_id, 8, 1, record_);
    u32(d.metadata_size);
    if (d.metadata_size) std::fwrite(d.metadata, 1, d.metadata_size, record_);
    u32(d.payload_size);
    if (d.payload_size) std::fwrite(d.payload, 1, d.payload_size, record_);
  }

  bool name_provider(std::uint64_t provider, std::u16string& name) {
    cor::WCHAR buffer[256];
    cor::ULONG length = 0;
    if (info_->EventPipeGetProviderInfo(provider, 256, &length, buffer) != S_OK || length == 0 || length > 256) return false;
    name.assign(reinterpret_cast<const char16_t*>(buffer), length - 1);  // without the terminator
    return true;
  }

  cor::ICorProfilerInfo12* info_ = nullptr;
  cor::EVENTPIPE_SESSION session_ = 0;
  std::int64_t session_start_ = 0;
  clretw::inproc::InprocSession session_plan_;
  std::atomic<bool> listening_{false};
  std::atomic<unsigned> reported_{0};
  clretw::inproc::EventPipeDecoder decoder_{[this](std::uint64_t p, std::u16string& name) { return name_provider(p, name); },
                                            clretw::inproc::DecoderOptions{process_id()}};
  std::mutex mutex_;
  clretw::EventDescriber describer_{&clretw::catalog()};
  std::FILE* out_ = nullptr;
  std::FILE* record_ = nullptr;
  bool decode_ = true;
  std::atomic<std::uint64_t> received_{0};
  std::string line_;
  std::map<std::string, std::uint64_t, std::less<>> by_provider_;
  unsigned gcs_[3] = {};
  std::uint64_t with_stack_ = 0;
};

class Factory final : public cor::IClassFactory {
 public:
  cor::HRESULT STDMETHODCALLTYPE QueryInterface(const cor::GUID& riid, void** ppv) override {
    if (same_guid(riid, cor::IID_IUnknown) || same_guid(riid, cor::IID_IClassFactory)) {
      *ppv = this;
      return S_OK;
    }
    *ppv = nullptr;
    return E_NOINTERFACE;
  }
  cor::ULONG STDMETHODCALLTYPE AddRef() override { return 1; }
  cor::ULONG STDMETHODCALLTYPE Release() override { return 1; }
  cor::HRESULT STDMETHODCALLTYPE CreateInstance(cor::IUnknown* outer, const cor::GUID& riid, void** ppv) override {
    if (outer) return CLASS_E_NOAGGREGATION;
    auto* p = new (std::nothrow) Profiler();
    if (!p) return E_OUTOFMEMORY;
    const cor::HRESULT hr = p->QueryInterface(riid, ppv);
    p->Release();  // the runtime holds its own reference
    return hr;
  }
  cor::HRESULT STDMETHODCALLTYPE LockServer(cor::BOOL) override { return S_OK; }
};

}  // namespace

// What the runtime calls first, with the CLSID of CORECLR_PROFILER (on Windows with the SDK's types).
#if defined(_WIN32)
STDAPI DllGetClassObject(REFCLSID rclsid_sdk, REFIID riid_sdk, LPVOID* ppv) {
  const auto& rclsid = reinterpret_cast<const cor::GUID&>(rclsid_sdk);
  const auto& riid = reinterpret_cast<const cor::GUID&>(riid_sdk);
#else
CLRETW_EXPORT cor::HRESULT STDMETHODCALLTYPE DllGetClassObject(const cor::GUID& rclsid, const cor::GUID& riid, void** ppv) {
#endif
  static Factory factory;
  if (!ppv) return E_POINTER;
  *ppv = nullptr;
  if (!same_guid(rclsid, kClsid)) return CLASS_E_CLASSNOTAVAILABLE;
  return factory.QueryInterface(riid, ppv);
}
