// What the benchmark programs' main() functions share: --iterations=N, which
// runs each benchmark exactly N times with no calibration runs, so that
// instruction counts taken with callgrind divide evenly (bench/callgrind.sh,
// bench/ratios.sh); and running what was registered.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace clretw_bench {

// Takes --iterations=N out of argv (0 when absent). False, with a message naming
// `program`, when N is not a positive count.
inline bool take_iterations(const char* program, int& argc, char** argv, std::int64_t& iterations) {
  iterations = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--iterations=", 0) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    char* end = nullptr;
    iterations = std::strtoll(arg.c_str() + 13, &end, 10);
    if (*end != '\0' || iterations <= 0) {
      std::fprintf(stderr, "%s: --iterations needs a positive count, not '%s'\n", program, arg.c_str() + 13);
      return false;
    }
  }
  argc = kept;
  return true;
}

// Google Benchmark's own options, then the benchmarks registered; main()'s exit status.
inline int run_registered(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace clretw_bench
