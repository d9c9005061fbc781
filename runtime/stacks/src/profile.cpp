#include "clretw/profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

#include "clretw/dotnet_core_sample_profiler.h"
#include "clretw/format.h"
#include "clretw/text.h"

namespace clretw {

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint64_t kNoStack = UINT64_MAX;  // the one frame of a sample that has no stack

// (parent, key) -> node, open addressing with linear probing: one probe per frame in the common
// case, and no allocation per entry.
class ChildTable {
 public:
  ChildTable() : slots_(1024) {}
  // The node for (parent, key), made by `make` when new.
  template <class Make>
  std::uint32_t find_or_add(std::uint32_t parent, std::uint64_t key, Make&& make) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = hash(parent, key) & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.node == kNone) {
        s = Slot{key, parent, make()};
        ++used_;
        return s.node;
      }
      if (s.parent == parent && s.key == key) return s.node;
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t parent = 0;
    std::uint32_t node = kNone;
  };
  static std::size_t hash(std::uint32_t parent, std::uint64_t key) {
    std::uint64_t h = (key ^ (std::uint64_t{parent} * 0x9E3779B97F4A7C15ull)) * 0xFF51AFD7ED558CCDull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.node == kNone) continue;
      std::size_t i = hash(s.parent, s.key) & (slots_.size() - 1);
      while (slots_[i].node != kNone) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

struct RawNode {
  std::uint64_t address = 0;  // roots: 0
  std::int64_t first_seen = 0, last_seen = 0;
  std::uint64_t self = 0;   // the weights of the samples ending here
  std::uint64_t count = 0;  // the samples ending here
  std::uint32_t parent = kNone;
  std::uint32_t thread = 0;
};

struct Thread {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  std::uint64_t epoch = 0;
  std::uint32_t root = kNone;
  std::vector<std::uint64_t> path;   // the last sample's addresses, root first
  std::vector<std::uint32_t> nodes;  // and their nodes
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // (node, samples) in time order
  std::vector<double> run_ms;                                 // when each run began
  std::uint64_t samples = 0;
  double first_ms = 0, last_ms = 0;
};

struct NamedNode {
  std::uint32_t parent = kNone;
  std::uint32_t name = 0;
  std::uint64_t self = 0;
};

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  const int n = std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  out.append(buf, static_cast<std::size_t>(n));
}

void append_percent(std::string& out, std::uint64_t part, std::uint64_t whole) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  out.append(buf, static_cast<std::size_t>(n));
}

}  // namespace

bool is_cpu_sample(const EventRecord& r) noexcept {
  using Sample = dotnet_core_sample_profiler::ThreadSample;
  if (r.id != Sample::id) return false;
  return r.provider_guid == Sample::provider_guid || r.provider_name == "Microsoft-DotNETCore-SampleProfiler";
}

struct StackProfile::Impl {
  double interval;
  bool run_times = false;  // each run's start kept (write_chromium's times)
  std::vector<RawNode> raw;
  ChildTable children;
  std::vector<Thread> threads;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> thread_exact;  // (pid, tid) -> thread
  std::uint32_t last_thread = kNone;
  ProfileSummary summary;
  bool finished = false;

  // After finish(): frames named and equal named paths merged.
  std::vector<std::string> names;
  std::vector<NamedNode> named;
  std::vector<std::uint32_t> named_of;  // raw node -> named node
  std::vector<std::uint32_t> thread_named_root;

  explicit Impl(double i) : interval(i) {}

  std::uint32_t thread_for(std::uint32_t pid, std::uint64_t tid) {
    if (last_thread != kNone && threads[last_thread].pid == pid && threads[last_thread].tid == tid) return last_thread;
    auto [it, fresh] = thread_exact.try_emplace({pid, tid}, static_cast<std::uint32_t>(threads.size()));
    if (fresh) {
      Thread t;
      t.pid = pid;
      t.tid = tid;
      threads.push_back(std::move(t));
    }
    return last_thread = it->second;
  }

  std::uint32_t new_node(std::uint32_t parent, std::uint64_t address, std::int64_t t, std::uint32_t thread) {
    RawNode n;
    n.address = address;
    n.first_seen = n.last_seen = t;
    n.parent = parent;
    n.thread = thread;
    raw.push_back(n);
    return static_cast<std::uint32_t>(raw.size() - 1);
  }

  std::uint32_t child(std::uint32_t parent, std::uint64_t address, std::int64_t t, std::uint32_t thread) {
    const std::uint32_t n = children.find_or_add(parent, address, [&] { return new_node(parent, address, t, thread); });
    raw[n].last_seen = std::max(raw[n].last_seen, t);
    return n;
  }
};

StackProfile::StackProfile(double sample_interval_ms, bool run_times) : impl_(std::make_unique<Impl>(sample_interval_ms)) {
  impl_->run_times = run_times;
}
StackProfile::~StackProfile() = default;
StackProfile::StackProfile(StackProfile&&) noexcept = default;
StackProfile& StackProfile::operator=(StackProfile&&) noexcept = default;

void StackProfile::add(const EventRecord& r, double ms, const Symbolizer& symbols, std::uint64_t weight) {
  Impl& p = *impl_;
  if (p.finished) return;
  const std::uint32_t ti = p.thread_for(r.process_id, r.thread_id);
  Thread& th = p.threads[ti];
  const std::uint64_t epoch = symbols.unload_epoch(r.process_id);
  if (th.root == kNone || th.epoch != epoch) {
    th.root = p.new_node(kNone, 0, r.timestamp, ti);
    th.epoch = epoch;
    th.path.clear();
    th.nodes.clear();
  }
  const std::size_t n = r.stack_depth();
  std::uint32_t node;
  if (n == 0) {
    node = p.child(th.root, kNoStack, r.timestamp, ti);
    ++p.summary.without_stack;
  } else {
    // Consecutive samples of a thread share most of their stack from the root: only the frames
    // below the shared part are looked up.
    std::size_t k = 0;
    const std::size_t m = std::min(n, th.path.size());
    while (k < m && r.stack_frame(n - 1 - k) == th.path[k]) ++k;
    th.path.resize(k);
    th.nodes.resize(k);
    node = k ? th.nodes[k - 1] : th.root;
    for (std::size_t j = k; j < n; ++j) {
      const std::uint64_t a = r.stack_frame(n - 1 - j);
      node = p.child(node, a, r.timestamp, ti);
      th.path.push_back(a);
      th.nodes.push_back(node);
    }
  }
  p.raw[node].self += weight;
  ++p.raw[node].count;
  p.summary.weight += weight;
  if (!th.runs.empty() && th.runs.back().first == node) {
    ++th.runs.back().second;
  } else {
    th.runs.emplace_back(node, 1);
    if (p.run_times) th.run_ms.push_back(ms);
  }
  if (th.samples++ == 0) th.first_ms = ms;
  th.last_ms = ms;
  ++p.summary.samples;
}

void StackProfile::set_sample_interval(double ms) noexcept { impl_->interval = ms; }
double StackProfile::sample_interval() const noexcept { return impl_->interval; }

void StackProfile::finish(const Symbolizer& symbols) {
  Impl& p = *impl_;
  if (p.finished) return;
  p.finished = true;
  ProfileSummary& s = p.summary;
  s.threads = p.threads.size();
  {
    std::vector<std::uint32_t> pids;
    for (const Thread& t : p.threads) pids.push_back(t.pid);
    std::sort(pids.begin(), pids.end());
    s.processes = static_cast<std::uint64_t>(std::unique(pids.begin(), pids.end()) - pids.begin());
  }
  // Samples through each node (children come after their parents): each frame of each sample once.
  std::vector<std::uint64_t> total(p.raw.size());
  for (std::size_t i = p.raw.size(); i-- > 0;) {
    total[i] += p.raw[i].count;
    if (p.raw[i].parent != kNone) total[p.raw[i].parent] += total[i];
  }
  std::unordered_map<std::string, std::uint32_t> interned;
  auto intern = [&](std::string&& name) {
    auto [it, fresh] = interned.try_emplace(std::move(name), static_cast<std::uint32_t>(p.names.size()));
    if (fresh) p.names.push_back(it->first);
    return it->second;
  };
  ChildTable merged;
  p.named_of.assign(p.raw.size(), kNone);
  p.thread_named_root.assign(p.threads.size(), kNone);
  std::string name;
  for (std::size_t i = 0; i < p.raw.size(); ++i) {
    const RawNode& n = p.raw[i];
    const Thread& th = p.threads[n.thread];
    name.clear();
    std::uint32_t parent = kNone;
    if (n.parent == kNone) {
      if (s.processes > 1) {
        name += "Process (";
        append_uint(name, th.pid);
        name += ") ";
      }
      name += "Thread (";
      append_uint(name, th.tid);
      name += ')';
    } else {
      parent = p.named_of[n.parent];
      if (n.address == kNoStack) {
        name = "(no stack)";
      } else {
        // Named as of when the path was first seen; code unknown then but known when it was last
        // seen (within one unload epoch, code only appears) is named as of then.
        Frame f = symbols.resolve(th.pid, n.address, n.first_seen);
        if (f.kind != Frame::Kind::method && n.last_seen != n.first_seen) {
          const Frame later = symbols.resolve(th.pid, n.address, n.last_seen);
          if (later.kind == Frame::Kind::method) f = later;
        }
        symbols.append_name(f, name);
        s.frames += total[i];
        switch (f.kind) {
          case Frame::Kind::method:
            (f.method->source == MethodSource::r2r ? s.r2r_frames : s.method_frames) += total[i];
            break;
          case Frame::Kind::module: s.module_frames += total[i]; break;
          case Frame::Kind::unmanaged: s.unmanaged_frames += total[i]; break;
        }
      }
    }
    const std::uint32_t id = intern(std::string(name));
    // Roots of one thread (one per unload epoch) merge by their equal names.
    const std::uint32_t key_parent = parent == kNone ? kNone - 1 : parent;
    const std::uint32_t named = merged.find_or_add(key_parent, id, [&] {
      p.named.push_back(NamedNode{parent, id, 0});
      return static_cast<std::uint32_t>(p.named.size() - 1);
    });
    p.named[named].self += n.self;
    p.named_of[i] = named;
    if (n.parent == kNone) p.thread_named_root[n.thread] = named;
  }
  for (const NamedNode& n : p.named)
    if (n.self && n.parent != kNone) ++s.unique_stacks;
  s.unique_frames = p.names.size() - p.threads.size();
}

const ProfileSummary& StackProfile::summary() const noexcept { return impl_->summary; }

void StackProfile::write_folded(std::ostream& out) const {
  const Impl& p = *impl_;
  std::vector<std::string> lines;
  std::vector<std::uint32_t> path;
  for (std::uint32_t i = 0; i < p.named.size(); ++i) {
    if (!p.named[i].self) continue;
    path.clear();
    for (std::uint32_t n = i; n != kNone; n = p.named[n].parent) path.push_back(n);
    std::string line;
    for (std::size_t k = path.size(); k-- > 0;) {
      line += p.names[p.named[path[k]].name];
      if (k) line += ';';
    }
    line += ' ';
    append_uint(line, p.named[i].self);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  for (const std::string& l : lines) {
    out << l << '\n';
  }
}

void StackProfile::write_speedscope(std::ostream& out, std::string_view name, std::string_view exporter) const {
  const Impl& p = *impl_;
  // Frames: every name but the threads' (which name the profiles).
  std::vector<std::uint32_t> frame_of(p.names.size(), kNone);
  std::vector<std::uint32_t> frames;
  std::vector<bool> is_root(p.names.size());
  for (std::uint32_t r : p.thread_named_root)
    if (r != kNone) is_root[p.named[r].name] = true;
  for (const NamedNode& n : p.named) {
    if (n.parent == kNone || frame_of[n.name] != kNone) continue;
    frame_of[n.name] = static_cast<std::uint32_t>(frames.size());
    frames.push_back(n.name);
  }
  std::string buf;
  auto flush = [&] {
    if (buf.size() > (1u << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  };
  buf += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":\"";
  append_json_escaped(buf, name);
  buf += "\",\"exporter\":\"";
  append_json_escaped(buf, exporter);
  // Threads in (process, thread id) order; the busiest one is shown first.
  std::vector<std::uint32_t> order;
  for (std::uint32_t t = 0; t < p.threads.size(); ++t)
    if (p.threads[t].samples) order.push_back(t);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::pair(p.threads[a].pid, p.threads[a].tid) < std::pair(p.threads[b].pid, p.threads[b].tid);
  });
  std::size_t busiest = 0;
  for (std::size_t k = 0; k < order.size(); ++k)
    if (p.threads[order[k]].samples > p.threads[order[busiest]].samples) busiest = k;
  buf += "\",\"activeProfileIndex\":";
  append_uint(buf, busiest);
  buf += ",\"shared\":{\"frames\":[";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i) buf += ',';
    buf += "{\"name\":\"";
    append_json_escaped(buf, p.names[frames[i]]);
    buf += "\"}";
    flush();
  }
  buf += "]},\"profiles\":[";
  // Each profile's samples root first, in time order.
  std::vector<std::uint32_t> path;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> runs;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Thread& th = p.threads[order[k]];
    runs.clear();
    for (const auto& [raw, count] : th.runs) {
      const std::uint32_t n = p.named_of[raw];
      if (!runs.empty() && runs.back().first == n) runs.back().second += count;
      else runs.emplace_back(n, count);
    }
    if (k) buf += ',';
    buf += "{\"type\":\"sampled\",\"name\":\"";
    append_json_escaped(buf, p.names[p.named[p.thread_named_root[order[k]]].name]);
    buf += "\",\"unit\":\"milliseconds\",\"startValue\":";
    append_double(buf, th.first_ms);
    buf += ",\"endValue\":";
    append_double(buf, th.first_ms + static_cast<double>(th.samples) * p.interval);
    buf += ",\"samples\":[";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      path.clear();
      for (std::uint32_t n = runs[i].first; p.named[n].parent != kNone; n = p.named[n].parent) path.push_back(n);
      if (i) buf += ',';
      buf += '[';
      for (std::size_t j = path.size(); j-- > 0;) {
        append_uint(buf, frame_of[p.named[path[j]].name]);
        if (j) buf += ',';
      }
      buf += ']';
      flush();
    }
    buf += "],\"weights\":[";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i) buf += ',';
      append_double(buf, static_cast<double>(runs[i].second) * p.interval);
      flush();
    }
    buf += "]}";
  }
  buf += "]}\n";
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void StackProfile::write_chromium(std::ostream& out) const {
  const Impl& p = *impl_;
  std::string buf = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  bool first = true;
  auto event = [&](char phase, std::uint32_t name, std::uint32_t pid, std::uint64_t tid, double ms) {
    buf += first ? "" : ",";
    first = false;
    buf += "\n{\"ph\":\"";
    buf += phase;
    buf += "\",\"name\":\"";
    append_json_escaped(buf, p.names[name]);
    buf += "\",\"cat\":\"sample\",\"pid\":";
    append_uint(buf, pid);
    buf += ",\"tid\":";
    append_uint(buf, tid);
    buf += ",\"ts\":";
    append_double(buf, std::round(ms * 1000.0 * 1000.0) / 1000.0);  // microseconds, to the nanosecond
    buf += '}';
    if (buf.size() > (1u << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  };
  std::vector<std::uint32_t> open, path;  // named nodes, root first
  for (std::uint32_t t = 0; t < p.threads.size(); ++t) {
    const Thread& th = p.threads[t];
    if (!th.samples) continue;
    buf += first ? "" : ",";
    first = false;
    buf += "\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    append_uint(buf, th.pid);
    buf += ",\"tid\":";
    append_uint(buf, th.tid);
    buf += ",\"args\":{\"name\":\"";
    append_json_escaped(buf, p.names[p.named[p.thread_named_root[t]].name]);
    buf += "\"}}";
    open.clear();
    std::uint64_t before = 0;
    for (std::size_t i = 0; i < th.runs.size(); ++i) {
      path.clear();
      for (std::uint32_t n = p.named_of[th.runs[i].first]; p.named[n].parent != kNone; n = p.named[n].parent) path.push_back(n);
      std::reverse(path.begin(), path.end());
      std::size_t common = 0;
      while (common < open.size() && common < path.size() && open[common] == path[common]) ++common;
      // Without kept times, a run begins where the samples before it end (as speedscope's weights place it).
      const double ms = p.run_times ? th.run_ms[i] : th.first_ms + static_cast<double>(before) * p.interval;
      before += th.runs[i].second;
      while (open.size() > common) event('E', p.named[open.back()].name, th.pid, th.tid, ms), open.pop_back();
      for (std::size_t k = common; k < path.size(); ++k) event('B', p.named[path[k]].name, th.pid, th.tid, ms), open.push_back(path[k]);
    }
    const double end = (p.run_times ? th.last_ms : th.first_ms + static_cast<double>(before - 1) * p.interval) + p.interval;
    while (!open.empty()) event('E', p.named[open.back()].name, th.pid, th.tid, end), open.pop_back();
  }
  buf += "\n]}\n";
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void StackProfile::write_top(std::ostream& out, std::size_t n, std::string_view unit, bool by_inclusive, std::string_view note) const {
  const Impl& p = *impl_;
  const ProfileSummary& s = p.summary;
  std::vector<std::uint64_t> exclusive(p.names.size()), inclusive(p.names.size());
  std::vector<std::uint32_t> stamp(p.names.size(), kNone);
  for (std::uint32_t i = 0; i < p.named.size(); ++i) {
    const NamedNode& leaf = p.named[i];
    if (!leaf.self || leaf.parent == kNone) continue;
    exclusive[leaf.name] += leaf.self;
    for (std::uint32_t k = i; p.named[k].parent != kNone; k = p.named[k].parent) {
      const std::uint32_t name = p.named[k].name;
      if (stamp[name] == i) continue;  // recursion: once per sample
      stamp[name] = i;
      inclusive[name] += leaf.self;
    }
  }
  std::vector<std::uint32_t> rows;
  for (std::uint32_t i = 0; i < p.names.size(); ++i)
    if (inclusive[i]) rows.push_back(i);
  std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (by_inclusive && inclusive[a] != inclusive[b]) return inclusive[a] > inclusive[b];
    if (exclusive[a] != exclusive[b]) return exclusive[a] > exclusive[b];
    if (inclusive[a] != inclusive[b]) return inclusive[a] > inclusive[b];
    return p.names[a] < p.names[b];
  });
  if (rows.size() > n) rows.resize(n);
  std::string line;
  char buf[96];
  // Each count's unit heads its percentage's column: " exclusive samples  inclusive samples  method".
  const std::string u(unit.substr(0, 40));
  char head[160];
  std::snprintf(head, sizeof head, "%10s %-7s %10s %-7s  %s", "exclusive", u.c_str(), "inclusive", u.c_str(), "method");
  out << head;
  if (!note.empty()) out << "  (" << note << ")";
  out << '\n';
  for (std::uint32_t r : rows) {
    line.clear();
    std::snprintf(buf, sizeof buf, "%10llu ", static_cast<unsigned long long>(exclusive[r]));
    line += buf;
    std::string pct;
    append_percent(pct, exclusive[r], s.weight);
    std::snprintf(buf, sizeof buf, "%7s %10llu ", pct.c_str(), static_cast<unsigned long long>(inclusive[r]));
    line += buf;
    pct.clear();
    append_percent(pct, inclusive[r], s.weight);
    std::snprintf(buf, sizeof buf, "%7s  ", pct.c_str());
    line += buf;
    line += p.names[r];
    out << line << '\n';
  }
}

}  // namespace clretw
