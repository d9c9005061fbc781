// Internal: [MS-XCA] "plain LZ77" (XPRESS), the compression of ETL buffers written with
// logfile mode EVENT_TRACE_COMPRESSED_MODE (0x04000000), written from the published spec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/result.h"

namespace clretw::etl::detail {

// Decompresses `in` into `out`, bounds-checked on every read and copy. Returns the number
// of bytes written. Input that would write past out.size(), a match that reaches before
// the start of the output, or input that ends inside a token is an Error (bad_format)
// whose offset is the position in `in` where the problem was seen.
Result<std::size_t> xpress_decompress(Bytes in, std::span<std::uint8_t> out);

// Compresses `in` (greedy matching); xpress_decompress() gives it back. For tests and writers.
std::vector<std::uint8_t> xpress_compress(Bytes in);

}  // namespace clretw::etl::detail
