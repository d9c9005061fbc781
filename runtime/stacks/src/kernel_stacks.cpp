#include "clretw/kernel_stacks.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "clretw/windows_kernel.h"

namespace clretw {

namespace {

namespace wk = windows_kernel;

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Hook ids ((group << 8) | type), the kernel events' ids in manifest/WindowsKernel.man.
constexpr std::uint16_t kSample = 0x0F2E;
constexpr std::uint16_t kSetInterval = 0x0F48, kCollectionStart = 0x0F49, kCollectionEnd = 0x0F4A;
constexpr std::uint16_t kStack = 0x1820, kKeyCreate = 0x1822, kKeyDelete = 0x1823, kKeyRundown = 0x1824;
constexpr std::uint16_t kKeyKernel = 0x1825, kKeyUser = 0x1826;

// Processes whose threads never run user-mode code: their kernel-mode stacks are whole.
bool kernel_only_process(std::uint32_t pid) { return pid == 0 || pid == 4; }

bool kernel_address(std::uint64_t a, unsigned pointer_size) {
  return pointer_size == 4 ? a >= 0x80000000u : (a >> 63) != 0;
}

// Sample flags.
constexpr std::uint8_t kNamed = 1;        // a stack event named it
constexpr std::uint8_t kKernelKey = 2;    // its kernel-mode part waits for a key's definition
constexpr std::uint8_t kUserKey = 4;      // its user-mode part waits for a key's definition
constexpr std::uint8_t kInKernel = 8;     // on its thread's list of samples waiting to leave the kernel

struct Sample {
  std::int64_t timestamp = 0;
  double ms = 0;
  std::uint64_t weight = 1;
  std::uint64_t thread = 0;
  std::uint32_t pid = kUnrecorded;
  std::uint32_t kernel = kNone, user = kNone;  // parts
  std::uint32_t next_kernel_key = kNone, next_user_key = kNone;  // samples waiting for the same key
  std::uint32_t next_in_kernel = kNone;  // the thread's samples waiting for it to leave the kernel
  std::uint8_t flags = 0;
};

// A run of return addresses in the frame pool, innermost first.
struct Part {
  std::uint32_t offset = 0, count = 0;
};

struct Thread {
  std::vector<std::uint32_t> samples;  // in time order
  std::uint32_t in_kernel = kNone;     // the last sample waiting for the thread to leave the kernel
};

// key -> the last sample waiting for the key's definition (a list through the samples), open
// addressing: no allocation per entry. A key stays once seen (keys are the cache's addresses,
// reused, so they stay few).
class KeyWaits {
 public:
  KeyWaits() : slots_(256) {}
  std::uint32_t& head(std::uint64_t key) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = hash(key) & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = Slot{key, kNone, true};
        ++used_;
        return s.head;
      }
      if (s.key == key) return s.head;
    }
  }
  // The waiting list of `key`, or kNone, without adding it.
  std::uint32_t peek(std::uint64_t key) const {
    for (std::size_t i = hash(key) & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (!s.used) return kNone;
      if (s.key == key) return s.head;
    }
  }
  template <class F>
  void for_each_waiting(F&& f) const {
    for (const Slot& s : slots_)
      if (s.used && s.head != kNone) f(s.head);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t head = kNone;
    bool used = false;
  };
  static std::size_t hash(std::uint64_t key) {
    const std::uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = hash(s.key) & (slots_.size() - 1);
      while (slots_[i].used) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace

bool is_kernel_event(const EventRecord& r) noexcept { return r.provider_guid == wk::provider_guid; }

bool is_kernel_cpu_sample(const EventRecord& r) noexcept { return r.id == kSample && is_kernel_event(r); }

struct KernelStacks::Impl {
  std::vector<Sample> samples;
  std::vector<Part> parts;
  std::vector<std::uint64_t> frames;
  std::unordered_map<std::uint64_t, Thread> threads;  // one entry per thread, not per event
  KeyWaits kernel_waits, user_waits;
  KernelStackCounts counts;
  double interval = 0;
  bool finished = false;

  std::uint32_t add_part(const EventRecord& r) {
    Part p;
    p.offset = static_cast<std::uint32_t>(frames.size());
    p.count = static_cast<std::uint32_t>(r.stack_depth());
    for (std::size_t i = 0; i < p.count; ++i) frames.push_back(r.stack_frame(i));
    parts.push_back(p);
    return static_cast<std::uint32_t>(parts.size() - 1);
  }

  // The sample of `thread` at `timestamp`, or kNone.
  std::uint32_t find(std::uint64_t thread, std::uint64_t timestamp) {
    auto t = threads.find(thread);
    if (t == threads.end()) return kNone;
    const std::vector<std::uint32_t>& list = t->second.samples;
    const auto ts = static_cast<std::int64_t>(timestamp);
    auto it = std::upper_bound(list.begin(), list.end(), ts,
                               [this](std::int64_t v, std::uint32_t s) { return v < samples[s].timestamp; });
    if (it == list.begin() || samples[*(it - 1)].timestamp != ts) return kNone;
    return *(it - 1);
  }

  void name(std::uint32_t s, std::uint32_t pid) {
    Sample& x = samples[s];
    x.flags |= kNamed;
    if (x.pid == kUnrecorded) x.pid = pid;
  }

  // A kernel-mode part (`part`, or the key `key` when part is kNone) for sample s.
  void kernel_part(std::uint32_t s, std::uint32_t part, std::uint64_t key) {
    Sample& x = samples[s];
    if (x.kernel != kNone || (x.flags & kKernelKey)) return;  // a second kernel part: the first stays
    if (part != kNone) {
      x.kernel = part;
    } else {
      std::uint32_t& head = kernel_waits.head(key);
      x.next_kernel_key = head;
      head = s;
      x.flags |= kKernelKey;
    }
    // Its user-mode part comes when the thread leaves the kernel (unless it came first).
    if (x.user == kNone && !(x.flags & (kUserKey | kInKernel)) && !kernel_only_process(x.pid)) {
      Thread& t = threads[x.thread];
      x.next_in_kernel = t.in_kernel;
      t.in_kernel = s;
      x.flags |= kInKernel;
    }
  }

  void user_part(std::uint32_t s, std::uint32_t part, std::uint64_t key) {
    Sample& x = samples[s];
    if (x.user != kNone || (x.flags & kUserKey)) return;
    if (part != kNone) {
      x.user = part;
      return;
    }
    std::uint32_t& head = user_waits.head(key);
    x.next_user_key = head;
    head = s;
    x.flags |= kUserKey;
  }

  // The thread returned to user mode with this user-mode part: it belongs to each of its samples
  // that wait for it, and to `target` (kNone: no sample).
  void leave_kernel(std::uint64_t thread, std::uint32_t target, std::uint32_t part, std::uint64_t key) {
    auto t = threads.find(thread);
    if (t != threads.end()) {
      std::uint32_t s = t->second.in_kernel;
      t->second.in_kernel = kNone;
      while (s != kNone) {
        Sample& x = samples[s];
        const std::uint32_t next = x.next_in_kernel;
        x.next_in_kernel = kNone;
        x.flags &= static_cast<std::uint8_t>(~kInKernel);
        user_part(s, part, key);
        s = next;
      }
    }
    if (target != kNone) user_part(target, part, key);
  }

  void stack(const EventRecord& r) {
    auto v = wk::StackWalkStackView::from(r);
    if (!v || r.stack.empty()) return;
    const std::uint64_t thread = v->StackThread();
    const std::uint32_t target = find(thread, v->EventTimeStamp());
    if (target == kNone) ++counts.unmatched;
    else name(target, v->StackProcess());
    const unsigned ps = r.stack_frame_size();
    const std::size_t n = r.stack_depth();
    if (kernel_address(r.stack_frame(n - 1), ps)) {  // it ends in the kernel: a kernel-mode part
      if (target != kNone) kernel_part(target, add_part(r), 0);
      return;
    }
    const std::uint32_t part = add_part(r);
    // Walked from user mode: the thread is at the boundary, its waiting samples take this part.
    if (!kernel_address(r.stack_frame(0), ps)) leave_kernel(thread, target, part, 0);
    else if (target != kNone) user_part(target, part, 0);
  }

  template <class View>
  void reference(const EventRecord& r, bool kernel) {
    auto v = View::from(r);
    if (!v) return;
    const std::uint64_t thread = v->StackThread();
    const std::uint32_t target = find(thread, v->EventTimeStamp());
    if (target == kNone) ++counts.unmatched;
    else name(target, v->StackProcess());
    if (kernel) {
      if (target != kNone) kernel_part(target, kNone, v->StackKey());
    } else {
      leave_kernel(thread, target, kNone, v->StackKey());
    }
  }

  template <class View>
  void definition(const EventRecord& r) {
    auto v = View::from(r);
    if (!v || r.stack.empty()) return;
    const std::uint64_t key = v->StackKey();
    // Which part the key names: the table that waits for it; when both do (a kernel-mode and a
    // user-mode part under one key at once), the part's outermost address tells.
    std::uint32_t k = kernel_waits.peek(key), u = user_waits.peek(key);
    if (k != kNone && u != kNone) {
      (kernel_address(r.stack_frame(r.stack_depth() - 1), r.stack_frame_size()) ? u : k) = kNone;
    }
    if (k == kNone && u == kNone) return;  // a part no sample waits for
    const std::uint32_t part = add_part(r);
    if (k != kNone) {
      kernel_waits.head(key) = kNone;
      for (std::uint32_t s = k; s != kNone;) {
        Sample& x = samples[s];
        const std::uint32_t next = x.next_kernel_key;
        x.next_kernel_key = kNone;
        x.flags &= static_cast<std::uint8_t>(~kKernelKey);
        x.kernel = part;
        s = next;
      }
    } else {
      user_waits.head(key) = kNone;
      for (std::uint32_t s = u; s != kNone;) {
        Sample& x = samples[s];
        const std::uint32_t next = x.next_user_key;
        x.next_user_key = kNone;
        x.flags &= static_cast<std::uint8_t>(~kUserKey);
        x.user = part;
        s = next;
      }
    }
  }
};

KernelStacks::KernelStacks() : impl_(std::make_unique<Impl>()) {}
KernelStacks::~KernelStacks() = default;
KernelStacks::KernelStacks(KernelStacks&&) noexcept = default;
KernelStacks& KernelStacks::operator=(KernelStacks&&) noexcept = default;

bool KernelStacks::observe(const EventRecord& r) {
  if (!is_kernel_event(r)) return false;
  Impl& k = *impl_;
  switch (r.id) {
    case kSetInterval:
    case kCollectionStart:
    case kCollectionEnd: {
      // Every version starts with SampleSource and NewInterval (100 ns units); source 0 is the timer.
      auto v = wk::SampledProfileCollectionStartView::verify(r.payload, r.version, r.pointer_size);
      if (v && v->SampleSource() == 0 && v->NewInterval() > 0) k.interval = v->NewInterval() / 10000.0;
      return true;
    }
    case kStack: k.stack(r); break;
    case kKeyKernel: k.reference<wk::StackWalkStackKeyKernelView>(r, true); break;
    case kKeyUser: k.reference<wk::StackWalkStackKeyUserView>(r, false); break;
    case kKeyCreate: k.definition<wk::StackWalkKeyCreateView>(r); break;
    case kKeyDelete: k.definition<wk::StackWalkKeyDeleteView>(r); break;
    case kKeyRundown: k.definition<wk::StackWalkKeyRundownView>(r); break;
    default: return false;
  }
  ++k.counts.stack_events;
  return true;
}

void KernelStacks::add(const EventRecord& r, double ms, std::uint64_t weight) {
  Impl& k = *impl_;
  if (k.finished) return;
  Sample s;
  s.timestamp = r.timestamp;
  s.ms = ms;
  s.weight = weight;
  s.thread = r.thread_id;
  s.pid = r.process_id;
  const auto index = static_cast<std::uint32_t>(k.samples.size());
  if (!r.stack.empty()) {  // an event with its own stack (ETW's extended data)
    s.user = k.add_part(r);
    s.flags = kNamed;
  }
  k.samples.push_back(s);
  k.threads[s.thread].samples.push_back(index);
  ++k.counts.samples;
}

bool KernelStacks::empty() const noexcept { return impl_->samples.empty(); }

void KernelStacks::finish(StackProfile& profile, const Symbolizer& symbols) {
  finish([&](const EventRecord& r, double ms, std::uint64_t weight) { profile.add(r, ms, symbols, weight); });
}

void KernelStacks::finish(const std::function<void(const EventRecord& sample, double ms, std::uint64_t weight)>& each) {
  Impl& k = *impl_;
  if (k.finished) return;
  k.finished = true;
  KernelStackCounts& c = k.counts;
  auto undefined = [&](std::uint32_t head, std::uint32_t Sample::*next) {
    for (std::uint32_t s = head; s != kNone; s = k.samples[s].*next) ++c.undefined;
  };
  k.kernel_waits.for_each_waiting([&](std::uint32_t head) { undefined(head, &Sample::next_kernel_key); });
  k.user_waits.for_each_waiting([&](std::uint32_t head) { undefined(head, &Sample::next_user_key); });
  std::vector<std::uint8_t> bytes;
  EventRecord r;
  r.stack_pointer_size = 8;
  for (const Sample& s : k.samples) {
    if (!(s.flags & kNamed)) {
      ++c.without_stack;
      continue;
    }
    ++c.with_stack;
    if (s.kernel != kNone && s.user == kNone && !kernel_only_process(s.pid)) ++c.kernel_only;
    bytes.clear();
    for (std::uint32_t p : {s.kernel, s.user}) {
      if (p == kNone) continue;
      for (std::uint32_t i = 0; i < k.parts[p].count; ++i) {
        const std::uint64_t a = k.frames[k.parts[p].offset + i];
        for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<std::uint8_t>(a >> (8 * b)));
      }
    }
    r.timestamp = s.timestamp;
    r.process_id = s.pid;
    r.thread_id = s.thread;
    r.stack = Bytes(bytes.data(), bytes.size());
    each(r, s.ms, s.weight);
  }
  k.samples = {};
  k.parts = {};
  k.frames = {};
  k.threads = {};
}

double KernelStacks::interval_ms() const noexcept { return impl_->interval; }
const KernelStackCounts& KernelStacks::counts() const noexcept { return impl_->counts; }

}  // namespace clretw
