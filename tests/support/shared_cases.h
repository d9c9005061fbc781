// Test cases that read ../shared (the real manifests, traces and ETL files) belong to the doctest
// suite "shared". CTest runs them as a test of their own (NAME_shared, see tests/CMakeLists.txt),
// which reports "skipped" rather than "passed" when a case found what it reads absent: such a case
// calls skip(), and the test program then exits with status 77 (CTest's SKIP_RETURN_CODE) if
// nothing failed.
#pragma once

#include <doctest/doctest.h>

#include <string>

namespace clretw::test {

inline bool& skip_flag() noexcept {
  static bool skipped = false;
  return skipped;
}

// Says why the calling test case does not run (the caller then returns) and marks the run skipped.
inline void skip(const std::string& why) {
  MESSAGE("SKIPPED: " << why);
  skip_flag() = true;
}

}  // namespace clretw::test

#define CLRETW_SHARED_CASE(name) TEST_CASE(name * doctest::test_suite("shared"))
