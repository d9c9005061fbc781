#!/bin/sh
# The cost of the passes that do more than count: clretw-dump's stack profiles (--format folded,
# speedscope, --top) and reports (--report all) against --stats.
#   bench/stacks.sh BUILD_DIR [--check]
# 1. On a 210 MB trace written by clretw-sample: CPU time (best of 3 runs) and peak RSS of each mode,
#    and its throughput as a share of --stats'.
# 2. On a 20 MB trace: instructions counted by valgrind --tool=callgrind (the same on any machine
#    and under any load) for --stats, --format folded and --report all. With --check, exits 1 when
#    folded or the report runs at less than 50% of --stats' throughput by that count, and part 1
#    (times, which a loaded machine such as CI's distorts) is left out.
set -eu
build=${1:?usage: bench/stacks.sh BUILD_DIR [--check]}
check=${2:-}
dump="$build/clretw-dump"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if [ "$check" != --check ]; then
  "$build/clretw-sample" --size-mb 210 -o "$work/big.nettrace" > /dev/null
  events=$("$dump" --stats "$work/big.nettrace" | sed -n 's/^events: \([0-9]*\) in file.*/\1/p')
  samples=$("$dump" --stats "$work/big.nettrace" | awk '/SampleProfiler\/Thread\/Sample / { print $1 }')
  echo "trace: $(wc -c < "$work/big.nettrace") bytes, $events events, $samples CPU samples"
  # best MODE...: the least CPU time (user + system) of 3 runs, and the peak RSS of the last
  best() {
    b=""
    for _ in 1 2 3; do
      # shellcheck disable=SC2068
      out=$("$build/bench/peak_rss" "$dump" --no-progress $@ "$work/big.nettrace" 2>&1 >/dev/null)
      cpu=$(printf '%s\n' "$out" | awk '/^CPU:/ { print $2 + $5 }')
      rss=$(printf '%s\n' "$out" | sed -n 's/^peak RSS: \([0-9.]*\) MB$/\1/p')
      if [ -z "$b" ] || awk -v a="$cpu" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$cpu; fi
    done
    echo "$b $rss"
  }
  set -- $(best --stats)
  stats_cpu=$1 stats_rss=$2
  printf '%-22s %8s s  %6.1f M events/s  peak RSS %5s MB\n' "--stats" "$stats_cpu" \
    "$(awk -v e="$events" -v c="$stats_cpu" 'BEGIN { print e / c / 1e6 }')" "$stats_rss"
  for mode in "--format folded" "--format speedscope" "--top 20" "--report all"; do
    # shellcheck disable=SC2086
    set -- $(best $mode)
    printf '%-22s %8s s  %6.1f M events/s  peak RSS %5s MB  (%.0f%% of --stats throughput)\n' "$mode" "$1" \
      "$(awk -v e="$events" -v c="$1" 'BEGIN { print e / c / 1e6 }')" "$2" \
      "$(awk -v s="$stats_cpu" -v c="$1" 'BEGIN { print 100 * s / c }')"
  done
fi

if ! command -v valgrind > /dev/null 2>&1; then
  echo "SKIPPED (part): valgrind is not installed; no instruction counts"
  exit 0
fi
"$build/clretw-sample" --size-mb 20 -o "$work/small.nettrace" > /dev/null
instructions() {  # instructions MODE...: the instructions clretw-dump executes on the small trace
  # shellcheck disable=SC2068
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$dump" --no-progress $@ "$work/small.nettrace" \
    > /dev/null 2> "$work/cg.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.log"
}
si=$(instructions --stats)
fi_=$(instructions --format folded)
ri=$(instructions --report all)
share=$(awk -v s="$si" -v f="$fi_" 'BEGIN { printf "%.0f", 100 * s / f }')
rshare=$(awk -v s="$si" -v r="$ri" 'BEGIN { printf "%.0f", 100 * s / r }')
echo "instructions on a 20 MB trace: --stats $si, --format folded $fi_, --report all $ri:" \
     "folded runs at $share%, the report at $rshare% of --stats' throughput"
if [ "$check" = --check ] && { [ "$share" -lt 50 ] || [ "$rshare" -lt 50 ]; }; then
  echo "FAIL: folded output or the report below 50% of --stats' throughput (by instructions)" >&2
  exit 1
fi
