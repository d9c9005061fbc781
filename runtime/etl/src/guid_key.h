// Internal to the ETL reader: a GUID as 16 bytes, to order or hash it by (its fields' in-memory bytes; a Guid
// has no padding), for the reader's tables of provider names, TraceLogging schemas and MetaData descriptions.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "clretw/guid.h"

namespace clretw::etl::detail {

using GuidKey = std::array<std::uint8_t, 16>;
inline GuidKey guid_key(const Guid& g) noexcept { return std::bit_cast<GuidKey>(g); }

}  // namespace clretw::etl::detail
