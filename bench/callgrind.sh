#!/bin/sh
# Instructions per iteration of every decode benchmark, counted by callgrind
# with a fixed iteration count (no calibration runs), for one or more builds
# side by side - e.g. a build of an older commit and the current one:
#   bench/callgrind.sh build-old/bench/clretw_bench build/bench/clretw_bench
# Instruction counts do not drift with machine load as wall time does.
set -eu
[ $# -ge 1 ] || { echo "usage: bench/callgrind.sh CLRETW_BENCH..." >&2; exit 2; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "bench/callgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
iterations=2000
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=$("$1" --benchmark_list_tests | grep -v '^Reader_')
printf '%-32s' benchmark
for bin in "$@"; do printf ' %14s' "$(basename "$(dirname "$(dirname "$bin")")")"; done
echo
for name in $names; do
  printf '%-32s' "$name"
  for bin in "$@"; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" --iterations=$iterations \
      --benchmark_filter="^$name(/|\$)" >/dev/null 2>&1
    total=$(callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null |
            grep -F "::$name(benchmark::State" | head -1 | awk '{gsub(",", "", $1); print $1}')
    printf ' %14s' "$(( ${total:-0} / iterations ))"
  done
  echo
done
