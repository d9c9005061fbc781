#!/bin/sh
# Builds and runs every test, from nothing: installs what is missing, configures with warnings as
# errors, builds, runs CTest. Reads ../shared (real manifests and traces) when it is there; the
# tests that need it are reported as skipped when it is not, and so are those that need `dotnet`.
#   tools/test.sh [--compiler gcc|clang] [--sanitize] [--core] [--build-dir DIR]
#                 [--build-only [--target TARGET]... | --test-only] [-- CTEST_ARGUMENTS...]
# The plain build is -O2 (as the benchmarks measure) without debug information, which would more
# than double the compile time of the generated decoders; test programs compile at -O0 in every build.
# --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer, at -O0 (the libraries at -O1): the tests of untrusted input
#              (ctest -L untrusted; the others are disabled and not built); with clang also the
#              libFuzzer harnesses (fuzz/run.sh runs them). The decoders of the real ClrEtwAll.man
#              files and the benchmarks are left to the plain build.
# --core       without the generator (CLRETW_GENERATOR=OFF, pugixml out of reach), compiled as the plain
#              build is: the runtime, the built-in decoders and the tools stand alone.
# --build-only configure and build, run nothing.
# --target     with --build-only: build TARGET (and what it needs) only; repeatable.
# --test-only  run the tests of a build --build-only made, without configuring or building it again.
# With ccache on the PATH the compiler runs through it: a build whose files compile as another
# build's did (--core after the plain build) takes their objects from the cache.
set -eu
cd "$(dirname "$0")/.."
compiler=gcc
sanitize=OFF
core=OFF
build=""
run_tests=1
build_it=1
targets=""
while [ $# -gt 0 ]; do
  case "$1" in
    --compiler) [ $# -ge 2 ] || set -- --usage; compiler=$2; shift 2 ;;
    --sanitize) sanitize=ON; shift ;;
    --core) core=ON; shift ;;
    --build-dir) [ $# -ge 2 ] || set -- --usage; build=$2; shift 2 ;;
    --build-only) run_tests=0; shift ;;
    --test-only) build_it=0; shift ;;
    --target) [ $# -ge 2 ] || set -- --usage; targets="$targets $2"; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: tools/test.sh [--compiler gcc|clang] [--sanitize] [--core] [--build-dir DIR] [--build-only [--target TARGET]... | --test-only] [-- CTEST_ARGUMENTS...]" >&2
       exit 2 ;;
  esac
done
if [ -n "$targets" ] && [ "$run_tests" = 1 ]; then
  echo "tools/test.sh: --target goes with --build-only" >&2
  exit 2
fi
if [ "$run_tests" = 0 ] && [ "$build_it" = 0 ]; then
  echo "tools/test.sh: --build-only and --test-only together do nothing" >&2
  exit 2
fi
case "$compiler" in
  gcc) cxx=g++ ;;
  clang) cxx=clang++ ;;
  *) echo "tools/test.sh: --compiler is gcc or clang, not '$compiler'" >&2; exit 2 ;;
esac
extra="nodejs npm chromium ccache"
[ "$compiler" = clang ] && extra="$extra clang"
[ "$sanitize" = ON ] && [ "$compiler" = clang ] && extra="$extra libclang-rt-dev"
# shellcheck disable=SC2086
tools/deps.sh --optional $extra
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "tools/test.sh: $cxx is not available" >&2
  exit 1
fi
# The SARIF schema check uses ajv from the npm registry (versions pinned in the lock file).
if [ "$core" = OFF ] && command -v npm >/dev/null 2>&1 && [ ! -d tests/validate/node_modules ]; then
  npm ci --prefix tests/validate --no-audit --no-fund --loglevel=error || echo "clretw: npm ci failed; the SARIF schema test will be skipped"
fi
suffix="$compiler$( [ "$sanitize" = ON ] && echo -asan || true)$( [ "$core" = ON ] && echo -core || true)"
[ -n "$build" ] || build="build-test-$suffix"
options="-DCMAKE_CXX_COMPILER=$cxx -DCLRETW_WERROR=ON -DCMAKE_BUILD_TYPE=Release"
if [ "$sanitize" = ON ]; then
  flags="-O0"  # clang with ASan + UBSan compiles in half the time of -O1; tests and fuzzers are bounded by time, not speed
  [ "$compiler" = clang ] && flags="$flags -gline-tables-only" || flags="$flags -g1"
  options="$options -DCLRETW_SANITIZE=ON -DCLRETW_UNTRUSTED_TESTS_ONLY=ON -DCLRETW_BUILD_BENCH=OFF -DCLRETW_TEST_REAL_MANIFESTS=OFF"
  [ "$compiler" = clang ] && options="$options -DCLRETW_FUZZ=ON"
else
  flags="-O2"
fi
[ "$core" = ON ] && options="$options -DCLRETW_GENERATOR=OFF -DCMAKE_DISABLE_FIND_PACKAGE_pugixml=ON"
command -v ccache >/dev/null 2>&1 && options="$options -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
generator=""
command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ] && generator="-G Ninja"
if [ "$build_it" = 1 ]; then
  # shellcheck disable=SC2086
  cmake -S . -B "$build" $generator $options "-DCMAKE_CXX_FLAGS_RELEASE=$flags -DNDEBUG" >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$build" -j "$(nproc)" ${targets:+--target $targets}
elif [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "tools/test.sh: --test-only: $build has not been built (tools/test.sh --build-only first)" >&2
  exit 2
fi
[ "$run_tests" = 1 ] || exit 0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure "$@"
