#include "clretw/symbolizer.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

#include "clretw/dispatch.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/windows_kernel.h"
#include "clretw/format.h"
#include "clretw/windows_kernel.h"

namespace clretw {

namespace {

namespace rt = dotnet_runtime;
namespace rd = dotnet_runtime_rundown;
namespace wk = windows_kernel;

// An R2R entry point's method is taken to reach to the next known code, but no further than this:
// precompiled methods are rarely longer, and an address far past the last entry point is more
// likely in code the trace does not describe.
constexpr std::uint64_t kR2RReach = 0x4000;
// How many ranges at lower addresses a lookup looks at before it gives up (ranges of unloaded code
// and of code not yet loaded at that time are stepped over).
constexpr int kMaxSteps = 64;

struct Image {
  std::uint64_t size = 0;
  std::string name;
  std::int64_t loaded = INT64_MIN, unloaded = INT64_MAX;
};

struct Process {
  std::multimap<std::uint64_t, std::uint32_t> ranges;  // start -> method (exact ranges)
  std::map<std::uint64_t, std::uint32_t> r2r;          // entry point -> method
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_id;  // method id -> methods
  std::unordered_map<std::uint64_t, std::string> modules;               // module id -> name
  std::multimap<std::uint64_t, Image> images;                           // base -> image
  std::uint64_t max_size = 0;
  std::uint64_t unloads = 0;
};

std::string utf8(const Utf16View& s) { return s.to_utf8(); }

bool live(std::int64_t loaded, std::int64_t unloaded, std::int64_t t) { return loaded <= t && t < unloaded; }

}  // namespace

struct Symbolizer::Impl {
  std::deque<Method> methods;  // stable addresses: Frames point here
  std::unordered_map<std::uint32_t, Process> processes;
  Counts counts;
  Dispatcher dispatcher{&clretw::catalog()};
  // Set by observe() for the handlers.
  std::uint32_t pid = 0;
  std::int64_t now = 0;
  bool used = false;

  Impl() {
    // Methods, with or without names, from the runtime and rundown providers.
    ranges<rt::MethodLoad>(MethodSource::load);
    named<rt::MethodLoadVerbose>(MethodSource::load);
    ranges<rd::MethodDCStart>(MethodSource::rundown);
    ranges<rd::MethodDCEnd>(MethodSource::rundown);
    named<rd::MethodDCStartVerbose>(MethodSource::rundown);
    named<rd::MethodDCEndVerbose>(MethodSource::rundown);
    auto method = [this](std::uint64_t id, std::uint64_t module, std::uint64_t start, std::uint64_t size,
                         std::string name, MethodSource source) {
      used = true;
      add_method(id, module, start, size, std::move(name), source);
    };
    dispatcher.on<rt::R2RGetEntryPoint>([method](const rt::R2RGetEntryPointView& v, const EventRecord&) {
      method(v.MethodID(), 0, v.EntryPoint(), 0,
             method_display_name(utf8(v.MethodNamespace()), utf8(v.MethodName()), utf8(v.MethodSignature())),
             MethodSource::r2r);
    });
    dispatcher.on<rt::MethodUnload>([this](const rt::MethodUnloadView& v, const EventRecord&) {
      unload(v.MethodID(), v.MethodStartAddress());
    });
    dispatcher.on<rt::MethodUnloadVerbose>([this](const rt::MethodUnloadVerboseView& v, const EventRecord&) {
      unload(v.MethodID(), v.MethodStartAddress());
    });
    // Modules: id -> file name, for the module part of a method's name.
    auto module = [this](std::uint64_t id, const Utf16View& il, const Utf16View& native) {
      used = true;
      ++counts.modules;
      const std::string path = utf8(il.empty() ? native : il);
      processes[pid].modules[id] = std::string(module_display_name(path));
    };
    dispatcher.on<rt::ModuleLoad>([module](const rt::ModuleLoadView& v, const EventRecord&) {
      module(v.ModuleID(), v.ModuleILPath(), v.ModuleNativePath());
    });
    dispatcher.on<rt::DomainModuleLoad>([module](const rt::DomainModuleLoadView& v, const EventRecord&) {
      module(v.ModuleID(), v.ModuleILPath(), v.ModuleNativePath());
    });
    dispatcher.on<rd::ModuleDCStart>([module](const rd::ModuleDCStartView& v, const EventRecord&) {
      module(v.ModuleID(), v.ModuleILPath(), v.ModuleNativePath());
    });
    dispatcher.on<rd::ModuleDCEnd>([module](const rd::ModuleDCEndView& v, const EventRecord&) {
      module(v.ModuleID(), v.ModuleILPath(), v.ModuleNativePath());
    });
    // Kernel images (ETW): where each file is mapped in which process.
    auto image = [this](std::uint32_t process, std::uint64_t base, std::uint64_t size, const Utf16View& file, bool load) {
      used = true;
      ++counts.images;
      Process& p = processes[process];
      if (load) {
        Image im;
        im.size = size;
        im.name = std::string(module_display_name(utf8(file)));
        // DCStart (rundown at the start) describes images mapped before the trace.
        im.loaded = now;
        p.images.emplace(base, std::move(im));
        return;
      }
      auto [b, e] = p.images.equal_range(base);
      for (; b != e; ++b)
        if (b->second.unloaded == INT64_MAX) b->second.unloaded = now;
    };
    dispatcher.on<wk::ImageLoad>([image](const wk::ImageLoadView& v, const EventRecord&) {
      image(v.ProcessId(), v.ImageBase(), v.ImageSize(), v.FileName(), true);
    });
    dispatcher.on<wk::ImageLoadProcessGroup>([image](const wk::ImageLoadProcessGroupView& v, const EventRecord&) {
      image(v.ProcessId(), v.ImageBase(), v.ImageSize(), v.FileName(), true);
    });
    dispatcher.on<wk::ImageDCStart>([this, image](const wk::ImageDCStartView& v, const EventRecord&) {
      const std::int64_t saved = now;
      now = INT64_MIN;
      image(v.ProcessId(), v.ImageBase(), v.ImageSize(), v.FileName(), true);
      now = saved;
    });
    dispatcher.on<wk::ImageUnload>([image](const wk::ImageUnloadView& v, const EventRecord&) {
      image(v.ProcessId(), v.ImageBase(), v.ImageSize(), v.FileName(), false);
    });
    dispatcher.on<wk::ImageDCStop>([this, image](const wk::ImageDCStopView& v, const EventRecord&) {
      // Rundown at the end: mapped before the trace's end; known from the start unless a load said when.
      Process& p = processes[v.ProcessId()];
      auto [b, e] = p.images.equal_range(v.ImageBase());
      if (b != e) return;
      const std::int64_t saved = now;
      now = INT64_MIN;
      image(v.ProcessId(), v.ImageBase(), v.ImageSize(), v.FileName(), true);
      now = saved;
    });
    dispatcher.on_malformed([this](const EventRecord&, const Error&) { ++counts.malformed; });
  }

  // A method event with a range only, or with names too (the Verbose events).
  template <class E>
  void ranges(MethodSource source) {
    dispatcher.on<E>([this, source](const typename E::View& v, const EventRecord&) {
      used = true;
      add_method(v.MethodID(), v.ModuleID(), v.MethodStartAddress(), v.MethodSize(), {}, source);
    });
  }
  template <class E>
  void named(MethodSource source) {
    dispatcher.on<E>([this, source](const typename E::View& v, const EventRecord&) {
      used = true;
      add_method(v.MethodID(), v.ModuleID(), v.MethodStartAddress(), v.MethodSize(),
                 method_display_name(utf8(v.MethodNamespace()), utf8(v.MethodName()), utf8(v.MethodSignature())), source);
    });
  }

  void add_method(std::uint64_t id, std::uint64_t module, std::uint64_t start, std::uint64_t size, std::string name,
                  MethodSource source) {
    Process& p = processes[pid];
    // The same code seen twice (a load, then rundown; DCStart and DCEnd): one method, named by
    // whichever event has the name, known from the earliest time.
    auto& same_id = p.by_id[id];
    for (std::uint32_t i : same_id) {
      Method& m = methods[i];
      if (m.start != start || m.source == MethodSource::r2r || source == MethodSource::r2r) continue;
      if (m.name.empty()) m.name = std::move(name);
      if (!m.module_id) m.module_id = module;
      return;
    }
    if (source == MethodSource::r2r && p.r2r.count(start)) return;
    Method m;
    m.start = start;
    m.size = size;
    m.method_id = id;
    m.module_id = module;
    m.name = std::move(name);
    m.source = source;
    m.loaded = source == MethodSource::load ? now : INT64_MIN;
    const auto index = static_cast<std::uint32_t>(methods.size());
    methods.push_back(std::move(m));
    same_id.push_back(index);
    switch (source) {
      case MethodSource::load: ++counts.jitted; break;
      case MethodSource::rundown: ++counts.rundown; break;
      case MethodSource::r2r: ++counts.r2r; break;
    }
    if (source == MethodSource::r2r) {
      p.r2r.emplace(start, index);
      return;
    }
    p.ranges.emplace(start, index);
    p.max_size = std::max(p.max_size, size);
  }

  void unload(std::uint64_t id, std::uint64_t start) {
    used = true;
    Process& p = processes[pid];
    ++p.unloads;
    auto it = p.by_id.find(id);
    if (it == p.by_id.end()) return;
    for (std::uint32_t i : it->second) {
      Method& m = methods[i];
      if (m.start == start && m.unloaded == INT64_MAX && m.source != MethodSource::r2r) {
        m.unloaded = now;
        ++counts.unloads;
        return;
      }
    }
  }

  const Method* exact(const Process& p, std::uint64_t address, std::int64_t t) const {
    auto it = p.ranges.upper_bound(address);
    const Method* best = nullptr;
    for (int steps = 0; it != p.ranges.begin() && steps < kMaxSteps; ++steps) {
      --it;
      const Method& m = methods[it->second];
      if (best && m.start != best->start) break;
      if (address - m.start >= p.max_size && !best) break;  // nothing this far below is long enough
      if (!live(m.loaded, m.unloaded, t)) continue;
      if (address - m.start < m.size) {
        if (!best || m.loaded > best->loaded) best = &m;
        continue;
      }
      if (!best) break;  // live code ending below the address: code alive with it cannot reach further
    }
    return best;
  }

  bool image(const Process& p, std::uint64_t address, std::int64_t t, Frame& f) const {
    auto it = p.images.upper_bound(address);
    while (it != p.images.begin()) {
      --it;
      const Image& im = it->second;
      if (address - it->first < im.size && live(im.loaded, im.unloaded, t)) {
        f.kind = Frame::Kind::module;
        f.module = im.name;
        return true;
      }
      if (address - it->first >= (std::uint64_t{1} << 32)) break;  // images are far smaller than 4 GB
    }
    return false;
  }

  const Method* r2r(const Process& p, std::uint64_t address) const {
    auto it = p.r2r.upper_bound(address);
    if (it == p.r2r.begin()) return nullptr;
    const std::uint64_t next = it == p.r2r.end() ? UINT64_MAX : it->first;
    --it;
    const std::uint64_t entry = it->first;
    if (address - entry >= kR2RReach || address >= next) return nullptr;
    // Exact code between the entry point and the address ends the entry point's method.
    auto e = p.ranges.upper_bound(address);
    if (e != p.ranges.begin() && std::prev(e)->first > entry) return nullptr;
    return &methods[it->second];
  }
};

Symbolizer::Symbolizer() : impl_(std::make_unique<Impl>()) {}
Symbolizer::~Symbolizer() = default;
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;
Symbolizer& Symbolizer::operator=(Symbolizer&&) noexcept = default;

bool Symbolizer::observe(const EventRecord& record) {
  Impl& s = *impl_;
  s.pid = record.process_id;
  s.now = record.timestamp;
  s.used = false;
  const Dispatcher::Outcome o = s.dispatcher.dispatch(record);
  return s.used || o == Dispatcher::Outcome::malformed;
}

Frame Symbolizer::resolve(std::uint32_t process, std::uint64_t address, std::int64_t timestamp) const {
  Frame f;
  f.address = address;
  auto pit = impl_->processes.find(process);
  if (pit != impl_->processes.end()) {
    const Process& p = pit->second;
    const Method* m = impl_->exact(p, address, timestamp);
    if (!m) m = impl_->r2r(p, address);
    if (m) {
      f.kind = Frame::Kind::method;
      f.method = m;
      if (m->module_id) {
        auto mod = p.modules.find(m->module_id);
        if (mod != p.modules.end()) f.module = mod->second;
      }
      return f;
    }
    if (impl_->image(p, address, timestamp, f)) return f;
  }
  // Kernel-mode images (drivers, the kernel) are mapped in every process; ETW names them under
  // process 0.
  if (process != 0 && (address >> 63) != 0) {
    auto system = impl_->processes.find(0);
    if (system != impl_->processes.end()) impl_->image(system->second, address, timestamp, f);
  }
  return f;
}

void Symbolizer::append_name(const Frame& f, std::string& out) const {
  switch (f.kind) {
    case Frame::Kind::method:
      if (!f.module.empty()) {
        out += f.module;
        out += '!';
      } else if (f.method->name.empty()) {
        out += "?!";
      }
      if (!f.method->name.empty()) {
        out += f.method->name;
      } else {
        out += "method ";
        append_hex(out, f.method->method_id);
      }
      return;
    case Frame::Kind::module:
      out += f.module;
      out += '!';
      append_hex(out, f.address);
      return;
    case Frame::Kind::unmanaged:
      append_hex(out, f.address);
      return;
  }
}

std::uint64_t Symbolizer::unload_epoch(std::uint32_t process) const noexcept {
  auto it = impl_->processes.find(process);
  return it == impl_->processes.end() ? 0 : it->second.unloads;
}

const Symbolizer::Counts& Symbolizer::counts() const noexcept { return impl_->counts; }

std::string method_display_name(std::string_view ns, std::string_view name, std::string_view signature) {
  std::string out;
  out.reserve(ns.size() + 1 + name.size() + signature.size());
  if (!ns.empty()) {
    out += ns;
    out += '.';
  }
  out += name;
  const std::size_t paren = signature.find('(');
  if (paren != std::string_view::npos) out += signature.substr(paren);
  return out;
}

std::string_view module_display_name(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  auto strip = [&path](std::string_view ext) {
    if (path.size() > ext.size()) {
      bool same = true;
      for (std::size_t i = 0; i < ext.size(); ++i) {
        char c = path[path.size() - ext.size() + i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        same &= c == ext[i];
      }
      if (same) {
        path.remove_suffix(ext.size());
        return true;
      }
    }
    return false;
  };
  for (std::string_view ext : {".dll", ".exe", ".so", ".dylib", ".sys"})
    if (strip(ext)) break;
  for (std::string_view ext : {".ni", ".r2r"})
    if (strip(ext)) break;
  return path;
}

}  // namespace clretw
