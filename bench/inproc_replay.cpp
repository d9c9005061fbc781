// Replays what a profiler's EventPipeEventDelivered received (a recording made by
// examples/inproc-profiler with CLRETW_RECORD) through the in-process source, for instruction counts
// (bench/inproc.sh runs it under callgrind):
//   inproc_replay RECORDING read|decode|describe|json [REPEAT]
// read: the recording's deliveries walked, nothing decoded (the baseline); decode: each turned into
// a record (clretw::inproc::EventPipeDecoder); describe: and its payload checked and its fields
// walked by the built-in decoders (EventDescriber); json: and written as clretw-dump's JSON line.
// REPEAT (default 1) replays the recording that many times. Prints the deliveries replayed.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/describe.h"
#include "clretw/inproc.h"
#include "clretw/text.h"

namespace {

struct Recorded {
  std::string provider;
  clretw::inproc::Delivery delivery;
};

bool read_u32(const std::vector<std::uint8_t>& b, std::size_t& at, std::uint32_t& v) {
  if (b.size() - at < 4) return false;
  std::memcpy(&v, b.data() + at, 4);
  at += 4;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: inproc_replay RECORDING read|decode|describe|json [REPEAT]\n"), 2;
  const std::string mode = argv[2];
  if (mode != "read" && mode != "decode" && mode != "describe" && mode != "json")
    return std::fprintf(stderr, "inproc_replay: unknown mode '%s'\n", argv[2]), 2;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) return std::fprintf(stderr, "inproc_replay: cannot read %s\n", argv[1]), 2;

  // The deliveries, pointing into `bytes`; each distinct provider name gets a handle (its index + 1).
  std::vector<Recorded> recorded;
  std::vector<std::string> providers;
  for (std::size_t at = 0; at < bytes.size();) {
    Recorded r;
    std::uint32_t n = 0, id = 0, version = 0, meta = 0, payload = 0;
    std::uint64_t thread = 0;
    if (!read_u32(bytes, at, n) || bytes.size() - at < n) return std::fprintf(stderr, "inproc_replay: cut at byte %zu\n", at), 1;
    r.provider.assign(reinterpret_cast<const char*>(bytes.data() + at), n);
    at += n;
    if (!read_u32(bytes, at, id) || !read_u32(bytes, at, version) || bytes.size() - at < 8)
      return std::fprintf(stderr, "inproc_replay: cut at byte %zu\n", at), 1;
    std::memcpy(&thread, bytes.data() + at, 8);
    at += 8;
    if (!read_u32(bytes, at, meta) || bytes.size() - at < meta) return std::fprintf(stderr, "inproc_replay: cut at byte %zu\n", at), 1;
    r.delivery.metadata = meta ? bytes.data() + at : nullptr;
    r.delivery.metadata_size = meta;
    at += meta;
    if (!read_u32(bytes, at, payload) || bytes.size() - at < payload) return std::fprintf(stderr, "inproc_replay: cut at byte %zu\n", at), 1;
    r.delivery.payload = payload ? bytes.data() + at : nullptr;
    r.delivery.payload_size = payload;
    at += payload;
    std::size_t handle = 0;
    while (handle < providers.size() && providers[handle] != r.provider) ++handle;
    if (handle == providers.size()) providers.push_back(r.provider);
    r.delivery.provider = handle + 1;
    r.delivery.event_id = id;
    r.delivery.event_version = version;
    r.delivery.thread_id = thread;
    recorded.push_back(std::move(r));
  }

  clretw::inproc::EventPipeDecoder decoder([&](std::uint64_t handle, std::u16string& name) {
    if (handle == 0 || handle > providers.size()) return false;
    name = clretw::utf8_to_utf16(providers[handle - 1]);
    return !name.empty();
  });
  const clretw::EventDescriber describer({&clretw::catalog()});
  std::string line;
  std::uint64_t replayed = 0, rejected = 0, sum = 0;
  for (int i = 0; i < repeat; ++i) {
    for (const Recorded& r : recorded) {
      ++replayed;
      if (mode == "read") {
        sum += r.delivery.payload_size + r.delivery.event_id;
        continue;
      }
      clretw::EventRecord record;
      if (!decoder.decode(r.delivery, record)) {
        ++rejected;
        continue;
      }
      sum += record.payload.size();
      if (mode == "describe") {
        sum += describer.describe(record).consumed;
      } else if (mode == "json") {
        line.clear();
        clretw::format_event(record, describer, decoder.milliseconds(record.timestamp), clretw::LineFormat::json, line);
        sum += line.size();
      }
    }
  }
  std::printf("%llu deliveries replayed (%zu recorded, %zu providers), %llu rejected, checksum %llu\n",
              static_cast<unsigned long long>(replayed), recorded.size(), providers.size(),
              static_cast<unsigned long long>(rejected), static_cast<unsigned long long>(sum));
  return rejected ? 1 : 0;
}
