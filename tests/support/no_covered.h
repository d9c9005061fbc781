// For the round trips that compile every event of their decoders (tests/support/covered.h).
#pragma once
#include <array>

#include "covered.h"

namespace clretw::test {
inline constexpr std::array<CoveredEvent, 0> kCoveredByBuiltin{};
}  // namespace clretw::test
