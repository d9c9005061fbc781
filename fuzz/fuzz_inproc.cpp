// libFuzzer harness: the in-process source (clretw/inproc.h) on deliveries as a profiler's
// EventPipeEventDelivered receives them, one after another from the input:
//   u8 flags (bit 0: provider 1, bit 1: activity ids, bit 2: a stack), u16 event id, u8 version,
//   u16 metadata size, the metadata, u16 payload size, the payload.
// Sizes are cut to what is left. Each record decoded is described with the built-in decoders and
// formatted as JSON and text; a delivery refused must say why.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "clretw/catalog.h"
#include "clretw/describe.h"
#include "clretw/inproc.h"

namespace {

std::uint16_t u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const clretw::EventDescriber describer({&clretw::catalog()});
  clretw::inproc::EventPipeDecoder decoder([](std::uint64_t provider, std::u16string& name) {
    if (provider > 1) return false;
    name = provider ? u"Clretw-Fuzz" : u"Microsoft-Windows-DotNETRuntime";
    return true;
  });
  static const std::uint8_t activity[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::string line;
  std::size_t at = 0;
  for (int n = 0; n < 64 && size - at >= 6; ++n) {
    const std::uint8_t* p = data + at;
    clretw::inproc::Delivery d;
    d.provider = p[0] & 1;
    d.event_id = u16(p + 1);
    d.event_version = p[3];
    std::size_t meta = u16(p + 4);
    at += 6;
    if (meta > size - at) meta = size - at;
    d.metadata = data + at;
    d.metadata_size = static_cast<std::uint32_t>(meta);
    at += meta;
    std::size_t payload = 0;
    if (size - at >= 2) payload = u16(data + at), at += 2;
    if (payload > size - at) payload = size - at;
    d.payload = data + at;
    d.payload_size = static_cast<std::uint32_t>(payload);
    at += payload;
    if (p[0] & 2) d.activity_id = d.related_activity_id = activity;
    const std::uintptr_t frames[3] = {0x1000, 0x2000, 0x3000};
    if (p[0] & 4) d.stack = frames, d.stack_frames = 3;
    d.thread_id = 42;
    clretw::EventRecord r;
    if (clretw::Status s = decoder.decode(d, r); !s) {
      if (s.error().message().empty()) std::abort();  // a refusal says why
      continue;
    }
    line.clear();
    clretw::Described visited;
    clretw::format_event(r, describer, decoder.milliseconds(r.timestamp), (n & 1) ? clretw::LineFormat::json : clretw::LineFormat::text,
                         line, &visited);
    const clretw::Described checked = describer.describe(r);
    if (checked.kind != visited.kind || checked.consumed != visited.consumed) std::abort();
  }
  return 0;
}
