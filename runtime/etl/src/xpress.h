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
// of bytes written. The stream ends, as the spec says, at a match flag met when the input
// is exhausted. Input that would write past out.size(), a match that reaches before the
// start of the output, input that ends inside a flag word, a literal or a match, or a
// 16/32-bit match length below 22 is an Error (bad_format) whose offset is the position
// in `in` of the item concerned (the flag word, the literal byte, or the match's first byte).
// Allocates nothing unless it fails.
// For an ETL buffer: `in` is bytes [72, BufferSize) and the output is SavedOffset - 72 bytes.
Result<std::size_t> xpress_decompress(Bytes in, std::span<std::uint8_t> out);

// Compresses `in` (greedy matching, one candidate per 3-byte hash, offsets up to 8192,
// lengths up to 65538 so that decoders of the older spec without the 32-bit length read it
// too); xpress_decompress() gives it back. For tests and writers.
std::vector<std::uint8_t> xpress_compress(Bytes in);

}  // namespace clretw::etl::detail
