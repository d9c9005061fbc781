// clretw/symbolizer.h - method names for stack addresses, from the runtime's own events.
//
// The .NET runtime says where its code is: MethodLoad/MethodLoadVerbose when it jits a method,
// MethodDCStart/MethodDCEnd(Verbose) in rundown (the code that existed when a session started or
// ended), MethodUnload when collectible code goes away, R2RGetEntryPoint when a precompiled method
// is first called, and ModuleLoad/ModuleDCEnd for the files methods come from. ETW traces add the
// kernel's Image events (where each DLL is mapped). A Symbolizer learns all of that from the
// records it is shown, in one pass, through the generated views, and answers "what was at this
// address, in this process, at this time?":
//
//   clretw::Symbolizer sym;
//   while (auto r = *source.next()) {
//     sym.observe(*r);                        // every record: it keeps what it needs
//     ...
//   }
//   clretw::Frame f = sym.resolve(pid, address, timestamp);
//   std::string name;
//   sym.append_name(f, name);                 // "System.Private.CoreLib!System.String.Concat(...)"
//
// Time: a jitted method is known from its load event's timestamp to its unload's; a method named
// by rundown is known at every time (rundown does not say when it was jitted). Where ranges claim
// the same address at one time (code unloaded and the memory reused, with only rundown naming the
// newer method), the one loaded most recently before that time wins. Resolution uses timestamps,
// not the order events arrive in, so a sample written before the load event of the method it ran
// (other threads' buffers) still resolves - once that load has been observed. Lookups cost
// O(log n) in the methods of the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "clretw/record.h"

namespace clretw {

// Where a method's range came from.
enum class MethodSource : std::uint8_t {
  load,     // MethodLoad / MethodLoadVerbose (jitted during the trace)
  rundown,  // MethodDCStart / MethodDCEnd (Verbose), rundown provider
  r2r,      // R2RGetEntryPoint: the entry point only; the range reaches to the next known code
};

struct Method {
  std::uint64_t start = 0;
  std::uint64_t size = 0;  // R2R methods: the distance to the next known code, capped
  std::uint64_t method_id = 0;
  std::uint64_t module_id = 0;
  std::string name;  // Namespace.Type.Method(args); empty when only the range is known
  std::int64_t loaded = INT64_MIN;    // first timestamp at which the range holds this method
  std::int64_t unloaded = INT64_MAX;  // first timestamp at which it no longer does
  MethodSource source = MethodSource::load;
};

struct Frame {
  enum class Kind : std::uint8_t {
    method,     // inside a method's code (`method` set)
    module,     // inside a mapped image (kernel Image events) but no method: `module` set
    unmanaged,  // in nothing the trace describes
  };
  Kind kind = Kind::unmanaged;
  std::uint64_t address = 0;
  const Method* method = nullptr;
  std::string_view module;  // the method's module, or the image holding the address; may be empty
};

class Symbolizer {
 public:
  struct Counts {
    std::uint64_t jitted = 0;      // methods from load events
    std::uint64_t rundown = 0;     // methods from rundown events (not already known from a load)
    std::uint64_t r2r = 0;         // entry points of precompiled methods
    std::uint64_t unloads = 0;     // unload events matched to a method
    std::uint64_t modules = 0;     // ModuleLoad / ModuleDCStart / ModuleDCEnd
    std::uint64_t images = 0;      // kernel Image events
    std::uint64_t malformed = 0;   // method, module or image events whose payload did not verify
  };

  Symbolizer();
  ~Symbolizer();
  Symbolizer(Symbolizer&&) noexcept;
  Symbolizer& operator=(Symbolizer&&) noexcept;

  // Learns from `record` if it is a method, module or image event (of the runtime, rundown or
  // kernel providers); returns whether it was one. Any other record is ignored cheaply.
  bool observe(const EventRecord& record);

  // What `address` was in `process` at `timestamp` (the source's ticks).
  Frame resolve(std::uint32_t process, std::uint64_t address, std::int64_t timestamp) const;

  // Appends a frame's display name: "Module!Namespace.Type.Method(args)" (the module is the file
  // name without directory and extension; "Namespace.Type.Method(args)" alone when it is not
  // known); "Module!method 0x<id>" for a method known only by its range; "module!0x<address>" in a
  // mapped image; "0x<address>" (lowercase hex) for unmanaged code.
  void append_name(const Frame& frame, std::string& out) const;

  // The number of unload events seen in `process` so far (profiles start a new tree when it
  // changes, since addresses may then mean other code).
  std::uint64_t unload_epoch(std::uint32_t process) const noexcept;
  // What has been learnt, by kind.
  const Counts& counts() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Namespace.Type.Method(args) from the three strings the runtime's method events carry: the
// signature's part from its first '(' (the parameter list) follows the name; a signature without
// one adds nothing.
std::string method_display_name(std::string_view method_namespace, std::string_view method_name,
                                std::string_view signature);
// The module name of a path: the file name without directory and without a .dll/.exe/.so/.dylib
// (or .ni.dll, .r2r.dll) extension.
std::string_view module_display_name(std::string_view path);

}  // namespace clretw
