// clretw/kernel_stacks.h - the stacks of Windows kernel events (ETL files), joined to their events.
//
// The NT kernel logger does not put a stack into the event it walked it for. It logs StackWalk
// events after it, each naming its event by thread and timestamp (StackThread, EventTimeStamp).
// A stack comes whole (StackWalk/Stack, its return addresses) or, compressed (Windows 8 and later),
// as references: StackKeyKernel and StackKeyUser name a kernel-mode and a user-mode part by a key,
// and the part's addresses come later, when the kernel's cache lets go of it (KeyDelete: the key
// may then name another part) or when the trace ends (KeyRundown). A sample taken in kernel mode
// on a thread of a user process may get its user-mode part only when the thread returns to user
// mode: that part then belongs to every event the thread logged in the kernel since.
//
//   clretw::KernelStacks stacks;
//   while (auto r = *source.next()) {
//     sym.observe(*r);
//     stacks.observe(*r);  // StackWalk events, and the sampling interval
//     if (clretw::is_kernel_cpu_sample(*r)) stacks.add(*r, source.milliseconds(r->timestamp));
//   }
//   stacks.finish(profile);  // each sample a stack event named, in time order; then profile.finish(sym)
//
// Samples wait for their stacks until finish() (a key's definition may come at the trace's end):
// memory grows with the samples (about 70 bytes each) and the distinct stack parts, not with the stack
// events. Nothing is allocated per event beyond the growth of those tables.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "clretw/profile.h"
#include "clretw/record.h"

namespace clretw {

// The kernel logger's CPU sample (PerfInfo/Sample, hook 0x0F2E): its thread is in the payload, its
// stack in the StackWalk events after it.
bool is_kernel_cpu_sample(const EventRecord& record) noexcept;
// An event of the NT kernel logger (SystemTraceControlGuid), whose stack the kernel logs apart.
bool is_kernel_event(const EventRecord& record) noexcept;

struct KernelStackCounts {
  std::uint64_t samples = 0;         // given to add()
  std::uint64_t with_stack = 0;      // a stack event named them: handed to the profile by finish()
  std::uint64_t without_stack = 0;   // no stack event named them (the kernel walks no stack for most
                                     // samples of the idle process): left out of the profile
  std::uint64_t kernel_only = 0;     // handed over with their kernel-mode part alone: no user-mode
                                     // part came (threads of a user process only)
  std::uint64_t undefined = 0;       // parts whose key no definition resolved by the end: left out of
                                     // their sample's stack
  std::uint64_t stack_events = 0;    // StackWalk events read (Stack, key references, definitions)
  std::uint64_t unmatched = 0;       // Stack events and key references for no sample given (other events'
                                     // stacks, or samples left out by filters)
};

class KernelStacks {
 public:
  KernelStacks();
  ~KernelStacks();
  KernelStacks(KernelStacks&&) noexcept;
  KernelStacks& operator=(KernelStacks&&) noexcept;

  // Every record, in time order: learns the StackWalk events and the timer's sampling interval
  // (PerfInfo SetInterval, CollectionStart, CollectionEnd); returns whether `record` was one.
  bool observe(const EventRecord& record);
  // A sample: `record` at `ms`, weighing `weight`. Its stack: its own when it has one, else the
  // StackWalk events observed after it that name its thread and timestamp. Call it before
  // observe() sees the stack events that follow the sample.
  void add(const EventRecord& record, double ms, std::uint64_t weight = 1);
  // No sample added yet.
  bool empty() const noexcept;
  // After the last record: hands `profile` every sample with a stack, in time order, its stack the
  // kernel-mode part (innermost) followed by the user-mode part. Samples without a stack are left
  // out and counted (counts().without_stack). Call once.
  void finish(StackProfile& profile, const Symbolizer& symbols);
  // The same, for any use: `each` gets every sample with a stack, in time order, as a record (its timestamp,
  // process, thread and joined stack, frames of 8 bytes) with its time and weight. Call once (either finish).
  void finish(const std::function<void(const EventRecord& sample, double ms, std::uint64_t weight)>& each);

  // The timer's sampling interval the trace states, in milliseconds (the last one stated); 0 when
  // it states none.
  double interval_ms() const noexcept;
  const KernelStackCounts& counts() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clretw
