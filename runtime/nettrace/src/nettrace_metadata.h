// Internal: metadata encodings shared by the nettrace reader and writer.
#pragma once

#include <string>
#include <vector>

#include "clretw/nettrace.h"
#include "nettrace_format.h"

namespace clretw::nettrace::detail {

// V4/V5: the payload of a metadata event blob. V6: a metadata row (after its size).
// On failure the error says what is wrong with the record, and where in it
// (offset: the byte of the record; detail: the same in words).
Status parse_metadata_v5(Bytes payload, Metadata& m);
Status parse_metadata_v6(Bytes row, Metadata& m);
std::vector<std::uint8_t> encode_metadata_v5(const Metadata& m, unsigned format);
std::vector<std::uint8_t> encode_metadata_v6(const Metadata& m);

}  // namespace clretw::nettrace::detail
