#!/bin/sh
# Builds and runs every test, from nothing: installs what is missing, configures with
# warnings as errors, builds, runs CTest. Reads ../shared (real manifests and traces)
# when it is there; those tests are skipped, with a message, when it is not.
#   tools/test.sh [--compiler gcc|clang] [--sanitize] [--build-dir DIR]
set -eu
cd "$(dirname "$0")/.."
compiler=gcc
sanitize=OFF
build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --compiler) compiler=$2; shift 2 ;;
    --sanitize) sanitize=ON; shift ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: tools/test.sh [--compiler gcc|clang] [--sanitize] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
extra="nodejs npm chromium"
[ "$compiler" = clang ] && extra="$extra clang"
[ "$sanitize" = ON ] && [ "$compiler" = clang ] && extra="$extra libclang-rt-dev"
# shellcheck disable=SC2086
tools/deps.sh --optional $extra
if [ "$compiler" = clang ] && ! command -v clang++ >/dev/null 2>&1; then
  echo "clretw: clang++ is not available" >&2
  exit 1
fi
# The SARIF schema check uses ajv from the npm registry (versions pinned in the lock file).
if command -v npm >/dev/null 2>&1 && [ ! -d tests/validate/node_modules ]; then
  npm ci --prefix tests/validate --no-audit --no-fund --loglevel=error || echo "clretw: npm ci failed; the SARIF schema test will be skipped"
fi
[ -n "$build" ] || build="build-test-$compiler$( [ "$sanitize" = ON ] && echo -asan || true )"
cxx=g++
[ "$compiler" = clang ] && cxx=clang++
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLRETW_WERROR=ON \
      -DCLRETW_SANITIZE="$sanitize" >/dev/null
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure
