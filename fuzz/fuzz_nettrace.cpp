// libFuzzer harness: the nettrace reader on whole files (nettrace V4-V6 and
// NetPerf V3, which the reader tells apart by content), and every event it
// delivers described with the built-in decoders and formatted as JSON and text.
// The first byte picks the reader's options, so sorted delivery is fuzzed too.
#include <cstddef>
#include <cstdint>

#include "clretw/nettrace.h"
#include "clretw/open.h"
#include "describe_all.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  clretw::nettrace::ReaderOptions options;
  options.sorted = data[0] & 1;
  options.max_block_size = 1u << 20;
  auto reader = clretw::nettrace::Reader::open_memory(clretw::Bytes(data + 1, size - 1), options);
  if (!reader) return 0;
  clretw::NettraceSource source(**reader);
  describe_all(source);
  return 0;
}
