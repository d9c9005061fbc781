// The main() of every clretw command-line tool: nothing escapes - an
// unexpected exception is reported with the tool's name, never an abort.
#pragma once

#include <cstdio>
#include <exception>

namespace clretw::tools {

inline int guarded_main(const char* tool, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 1;
  }
}

}  // namespace clretw::tools
