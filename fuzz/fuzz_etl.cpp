// libFuzzer harness: the ETL reader on whole files (buffer index, the merge across processors,
// every event header kind, XPRESS decompression), and every event it delivers described with
// the built-in decoders and formatted as JSON and text. The first byte picks the options.
#include <cstddef>
#include <cstdint>

#include "clretw/etl.h"
#include "describe_all.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  clretw::etl::ReaderOptions options;
  options.sorted = !(data[0] & 1);
  options.max_buffer_size = 1u << 20;
  auto reader = clretw::etl::Reader::open_memory(clretw::Bytes(data + 1, size - 1), options);
  if (!reader) return 0;
  describe_all(**reader);
  return 0;
}
