#!/bin/sh
# What decoding costs inside the process (issue 27's costs; a report, not a check):
#   bench/inproc.sh BUILD_DIR
# 1. Records what examples/inproc-profiler's EventPipeEventDelivered receives in one round of
#    tests/dotnet/workload (every runtime keyword, both of its EventSources: CLRETW_RECORD), then
#    counts with callgrind the instructions per delivery of bench/inproc_replay over that
#    recording: decoding it into a record, then also describing it (payload checked, fields
#    walked), then also writing its JSON line, each less the replay's own walk of the recording.
# 2. Times the workload with the profiler decoding every event (no output) against the profiler
#    receiving them only (CLRETW_DECODE=0), side by side with farm-bench --vs (when it is on the
#    PATH), medians of 5 pairs.
# Needs dotnet and valgrind; BUILD_DIR must hold tests/libinproc_profiler.so and bench/inproc_replay.
set -eu
[ $# -eq 1 ] || { echo "usage: bench/inproc.sh BUILD_DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
profiler=$build/tests/libinproc_profiler.so replay=$build/bench/inproc_replay
for f in "$profiler" "$replay"; do [ -e "$f" ] || { echo "bench/inproc.sh: $f is not built" >&2; exit 2; }; done
command -v valgrind >/dev/null || { echo "bench/inproc.sh: needs valgrind" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$src/tests/dotnet/workload.sh"
need_workload "$work" "$src" "nothing was measured"
providers='Microsoft-Windows-DotNETRuntime:0x4c14fccbd:5,Clretw-Workload:0xffffffffffffffff:5,Clretw-Workload-SelfDescribing:0xffffffffffffffff:5'
export CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}' CORECLR_PROFILER_PATH="$profiler"
CLRETW_PROVIDERS=$providers CLRETW_RECORD="$work/deliveries.bin" dotnet "$workload/workload.dll" >/dev/null 2>"$work/record.err"
grep '^clretw-inproc:' "$work/record.err" | cut -d';' -f1

# instructions MODE REPEAT: callgrind's total for the replay.
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$replay" "$work/deliveries.bin" "$1" "$2" >"$work/replay.out" 2>/dev/null
  sed -n 's/^summary: *//p' "$work/cg"
}
n=$("$replay" "$work/deliveries.bin" read 1 | sed -n 's/^\([0-9]*\) deliveries.*/\1/p')
echo "deliveries recorded: $n"
# Per delivery: (instructions of 3 replays - of 1) / (2 n), less the same for `read`.
per() { a=$(instructions "$1" 1); b=$(instructions "$1" 3); echo $(( (b - a) / (2 * n) )); }
base=$(per read)
printf '%-40s %s\n' "instructions per delivery (callgrind)" "less the replay's own walk ($base)"
for mode in decode describe json; do
  printf '  %-38s %s\n' "$mode" "$(( $(per "$mode") - base ))"
done

if command -v farm-bench >/dev/null; then
  echo "the workload (one round), the profiler decoding every event against receiving only:"
  CLRETW_PROVIDERS=$providers farm-bench -n 5 --timeout 600 \
    --vs "env CLRETW_DECODE=0 dotnet $workload/workload.dll" -- dotnet "$workload/workload.dll"
fi
