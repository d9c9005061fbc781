// Reading test files and comparing with golden files.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace clretw::test {

// The whole file, bytes as they are ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `actual` must equal the golden file; with CLRETW_UPDATE_GOLDEN set, the golden file is rewritten.
inline void check_golden(const std::filesystem::path& expected, const std::string& actual) {
  if (std::getenv("CLRETW_UPDATE_GOLDEN")) std::ofstream(expected, std::ios::binary) << actual;
  CHECK_MESSAGE(slurp(expected) == actual, "output differs from " << expected.string()
                                                                  << "; run with CLRETW_UPDATE_GOLDEN=1 to accept it:\n"
                                                                  << actual);
}

}  // namespace clretw::test
