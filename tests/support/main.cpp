// doctest's main, with one addition: a run in which a test case was skipped (clretw::test::skip(),
// shared_cases.h) and nothing failed exits with status 77, which CTest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "shared_cases.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  return clretw::test::skip_flag() ? 77 : 0;
}
