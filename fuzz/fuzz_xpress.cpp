// libFuzzer harness for the XPRESS (plain LZ77) code of ETL buffers.
//
// (1) Decompresses the input into a 64 KB output and into a small one whose size is
//     the first input byte; both must agree (the same bytes when the small one is big
//     enough, an overflow error when it is not) and never read or write out of range.
// (2) Compresses the input and decompresses the result: it must give the input back.
// Seeds: the compressed data of real ETL buffers (bytes [72, BufferSize)) and their
// decompressed contents; run with -max_len=70000.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "../runtime/etl/src/xpress.h"

namespace {

using clretw::Bytes;
using clretw::etl::detail::xpress_compress;
using clretw::etl::detail::xpress_decompress;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Bytes in(data, size);

  // (1) Arbitrary input. Outputs are heap blocks of exactly their size, so that
  // AddressSanitizer sees any write past the end.
  static std::vector<std::uint8_t> big(65536);
  auto r = xpress_decompress(in, big);
  if (!r) check(r.error().offset <= size);
  else check(*r <= big.size());

  const std::size_t small_size = size == 0 ? 0 : data[0];
  auto small = std::make_unique<std::uint8_t[]>(small_size + (small_size == 0));
  auto rs = xpress_decompress(in, std::span<std::uint8_t>(small.get(), small_size));
  if (r) {
    // Whatever fits the small buffer decodes the same; what does not is an overflow.
    if (*r <= small_size) {
      check(rs.ok() && *rs == *r && std::memcmp(small.get(), big.data(), *r) == 0);
    } else {
      check(!rs.ok() && rs.error().detail.starts_with("output larger than"));
    }
  } else if (rs.ok()) {
    // Only running out of the big output can fail where the small one succeeds: never.
    check(false);
  }

  // (2) Round trip.
  const std::vector<std::uint8_t> packed = xpress_compress(in);
  std::vector<std::uint8_t> back(size + 1);
  auto rb = xpress_decompress(packed, back);
  check(rb.ok() && *rb == size && std::memcmp(back.data(), data, size) == 0);
  return 0;
}
