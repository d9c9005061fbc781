#!/bin/sh
# Issue 12's goals measured in one run, as Markdown tables:
#   P1  bench/ratios.sh: callgrind instruction counts per event on objver4's payloads
#       (layout view and event view against a hand-written decoder and memcpy);
#   P2  reader + Dispatcher + event views against reader + hand-written over objver4 (ratios.sh);
#       clretw-dump on a 210 MB trace written by clretw-sample: user CPU time of each mode
#       (bench/peak_rss), against a pass that only reads (--id 65535: every event is read,
#       none is described or printed); heap allocations per event of --format json in
#       steady state (valgrind, on 1 MB and 2 MB traces of the same kind); peak RSS;
#   P3  clretw-gen generate on the newest ClrEtwAll.man, and a translation unit that includes
#       one generated provider header and decodes one event at -O2 (wall time, best of 3).
#   bench/goals.sh BUILD_DIR
# A report, not a check: wall and CPU times drift with machine load (bench/ratios.sh --check
# is the check, on instruction counts).
set -eu
[ $# -eq 1 ] || { echo "usage: bench/goals.sh BUILD_DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shared="$src/../shared"
for tool in clretw-dump clretw-sample clretw-gen bench/peak_rss bench/clretw_bench_views; do
  [ -x "$build/$tool" ] || { echo "bench/goals.sh: $build/$tool not built" >&2; exit 2; }
done
[ -d "$shared/manifests" ] || { echo "SKIPPED: ../shared is absent"; exit 0; }
command -v valgrind >/dev/null || { echo "bench/goals.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "## P1: views against hand-written C++"
echo
"$src/bench/ratios.sh" "$build" >"$work/ratios.txt"
sed -n '/^Instructions per event/,/^Wall time/p' "$work/ratios.txt" | sed '$d'
echo "## P2: the library over a whole trace (objver4)"
echo
sed -n '/^The whole trace/,$p' "$work/ratios.txt"
echo

# P2 --------------------------------------------------------------------------------------
"$build/clretw-sample" --size-mb 210 -o "$work/big.nettrace" >"$work/sample.txt" 2>&1
events=$(sed -n 's/.*wrote \([0-9]*\) events.*/\1/p' "$work/sample.txt")
# Heap allocations of --format json on two traces of the same kind: what the second's extra
# events cost is the steady state (the rest is start-up: tables, buffers, the trace's metadata).
allocations() {
  "$build/clretw-sample" --size-mb "$1" -o "$work/small.nettrace" >"$work/small.txt" 2>&1
  n=$(sed -n 's/.*wrote \([0-9]*\) events.*/\1/p' "$work/small.txt")
  a=$(valgrind --tool=memcheck "$build/clretw-dump" --format json "$work/small.nettrace" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
  echo "$n $a"
}
read -r events1 allocs1 <<EOF
$(allocations 1)
EOF
read -r events2 allocs2 <<EOF
$(allocations 2)
EOF
# cpu MODE...: user CPU seconds and peak RSS (MB) of clretw-dump MODE on the big trace, best of 3.
cpu() {
  best=
  for _ in 1 2 3; do
    "$build/bench/peak_rss" "$build/clretw-dump" "$@" "$work/big.nettrace" >/dev/null 2>"$work/rss.txt" ||
      { cat "$work/rss.txt" >&2; exit 1; }
    s=$(sed -n 's/^CPU: \([0-9.]*\) s user.*/\1/p' "$work/rss.txt")
    rss=$(sed -n 's/^peak RSS: \([0-9.]*\) MB/\1/p' "$work/rss.txt")
    best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best $rss"
}
read -r reader _ <<EOF
$(cpu --id 65535)
EOF
read -r stats _ <<EOF
$(cpu --stats)
EOF
read -r json json_rss <<EOF
$(cpu --format json)
EOF
read -r text _ <<EOF
$(cpu --format text)
EOF

# P3 --------------------------------------------------------------------------------------
# best SECONDS...: the smallest.
best_of() { printf '%s\n' "$@" | sort -g | head -n 1; }
wall() { start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'; }
manifest="$shared/manifests/ClrEtwAll.runtime-main.man"
gen=$(best_of "$(wall "$build/clretw-gen" generate "$manifest" -o "$work/gen")" \
              "$(wall "$build/clretw-gen" generate "$manifest" -o "$work/gen")" \
              "$(wall "$build/clretw-gen" generate "$manifest" -o "$work/gen")")
cat >"$work/one_event.cpp" <<'CPP'
#include "clretw/dotnet_runtime.h"
namespace rt = clretw::dotnet_runtime;
// One event read through its layout view.
unsigned long allocated(clretw::Bytes payload) {
  auto tick = rt::payload::GCAllocationTick_V3::View<8>::verify(payload);
  return tick ? tick->AllocationAmount64() : 0;
}
CPP
cxx=${CXX:-c++}
compile() { wall "$cxx" -std=c++20 -O2 -c "$work/one_event.cpp" -I"$src/runtime/core/include" -I"$src/generated" -o "$work/one_event.o"; }
tu=$(best_of "$(compile)" "$(compile)" "$(compile)")
"$cxx" -std=c++20 -O2 -c "$work/one_event.cpp" -I"$src/runtime/core/include" -I"$src/generated" -o "$work/one_event.o" ||
  { echo "bench/goals.sh: the one-event translation unit does not compile" >&2; exit 1; }

echo "## P2: the tools (clretw-dump, $events events, 210 MB; user CPU, best of 3)"
echo
awk -v events="$events" -v reader="$reader" -v stats="$stats" -v json="$json" -v text="$text" -v rss="$json_rss" \
    -v events1="$events1" -v allocs1="$allocs1" -v events2="$events2" -v allocs2="$allocs2" '
  function verdict(ok) { return ok ? "met" : "MISSED" }
  BEGIN {
    print "| goal | measured | |"
    print "|---|---|---|"
    printf "| reading alone (`--id 65535`) | %.1f M events/s | |\n", events / reader / 1e6
    printf "| `--stats` >= 0.7x reading alone | %.1f M events/s (%.2fx) | %s |\n", events / stats / 1e6, reader / stats, verdict(reader / stats >= 0.7)
    printf "| `--format json` >= 5 M events/s | %.2f M events/s | %s |\n", events / json / 1e6, verdict(events / json >= 5e6)
    printf "| `--format text` | %.2f M events/s | |\n", events / text / 1e6
    steady = (allocs2 - allocs1) / (events2 - events1)
    printf "| `--format json`: 0 heap allocations per event in steady state | %d for %d events, %d for %d (%.4f per extra event) | %s |\n", allocs1, events1, allocs2, events2, steady, verdict(steady < 0.001)
    printf "| peak RSS as before (`--format json`; under 5 MB when the issue was written) | %.1f MB | %s |\n", rss, verdict(rss < 5)
  }'
echo
echo "## P3: generation and compile time (wall, best of 3)"
echo
awk -v gen="$gen" -v tu="$tu" -v cxx="$cxx" '
  function verdict(ok) { return ok ? "met" : "MISSED" }
  BEGIN {
    print "| goal | measured | |"
    print "|---|---|---|"
    printf "| `clretw-gen generate` on ClrEtwAll.runtime-main.man <= 100 ms | %.0f ms | %s |\n", gen * 1000, verdict(gen <= 0.1)
    printf "| one provider header + one event at -O2 (%s) <= 1 s | %.2f s | %s |\n", cxx, tu, verdict(tu <= 1)
  }'
echo
echo "### Embedding the headers: one GC event through its task's header, events.h and the provider header, against a <map> + <string> TU (bench/compile_cost.sh; goal: one GC event within 1.5x)"
echo
"$src/bench/compile_cost.sh" "$cxx" 5
