#!/bin/sh
# Sampled stacks against the reference, in two parts, each a CTest test of its own:
# - capture (dotnet_stacks): runs `workload cpu` of tests/dotnet/workload (2 threads spinning for 2 s in
#   Cpu.Outer -> Cpu.Middle -> Cpu.LeafA/LeafB and Cpu.Sort -> Array.Sort) under EventPipe with no tools: the
#   sample profiler and the runtime's loader and JIT events (rundown is on by default and names every method
#   still loaded at the end). The capture must decode completely, with samples and rundown; clretw-dump
#   --format speedscope converts it. With CLRETW_TRACE, the same workload is also sampled live: clretw-trace
#   starts it, reads the session as it comes and writes the folded stacks when it ends; the workload's
#   methods must be named in them.
# - reference (dotnet_stacks_reference), on what the capture part left in WORK_DIR (the trace, its sample
#   instants and clretw-dump's conversion): dotnet-trace, installed as a dotnet tool from NuGet, converts
#   the trace to speedscope (TraceEvent's SpeedScopeStackSourceWriter); compare_speedscope.py reads both
#   conversions at each sample instant of the trace and requires the same samples per thread with the same
#   leaf method for at least 99% of them. Skipped ("SKIPPED: ...", exit 0) without python3 or when
#   dotnet-trace cannot be installed.
# The GC keyword stays off: TraceEvent counts GC/AllocationTick events as CPU samples of their own.
#   stacks_check.sh capture|reference CLRETW_DUMP WORK_DIR SOURCE_DIR [CLRETW_TRACE]
set -u
if [ $# -lt 4 ]; then
  echo "usage: stacks_check.sh capture|reference CLRETW_DUMP WORK_DIR SOURCE_DIR [CLRETW_TRACE]" >&2
  exit 2
fi
part=$1 dump=$2 work=$3 src=$4 ttool=${5:-}
. "$src/tests/dotnet/workload.sh"
trace="$work/cpu.nettrace"
fail=0
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

capture_part() {
  rm -rf "$work"
  need_workload "$work" "$src" "no real runtime was sampled"
  # The capture: the sample profiler, and Loader (0x8), Jit (0x10) and NGen (0x20) of the runtime provider.
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" \
  DOTNET_EventPipeConfig="Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:0x38:5" \
    timeout 120 dotnet "$workload/workload.dll" cpu > "$work/run.log" 2>&1 ||
    { cat "$work/run.log"; echo "FAIL: the workload did not run"; exit 1; }
  "$dump" --stats "$trace" > "$work/stats.txt" 2>&1
  status=$?
  [ "$status" -eq 0 ] || { cat "$work/stats.txt"; echo "FAIL: clretw-dump --stats exited $status"; exit 1; }
  samples=$(sed -n 's/^ *\([0-9]*\)  Microsoft-DotNETCore-SampleProfiler\/Thread\/Sample .*/\1/p' "$work/stats.txt")
  if [ -z "$samples" ] || ! grep -q 'DotNETRuntimeRundown/Method/DCStopVerbose ' "$work/stats.txt" ||
     ! grep -Eq 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed' "$work/stats.txt"; then
    cat "$work/stats.txt"
    echo "FAIL: the capture lacks samples or rundown, or does not decode completely"
    exit 1
  fi
  echo "stacks_check: $samples samples from a .NET $(dotnet --version) process ($(wc -c < "$trace") bytes)"
  # The instants at which the reference part reads both conversions.
  "$dump" --format json --filter 'Microsoft-DotNETCore-SampleProfiler/*' "$trace" > "$work/samples.jsonl" ||
    { echo "FAIL: clretw-dump --format json of the samples"; exit 1; }

  # Ours.
  start=$(date +%s.%N)
  "$dump" --format speedscope "$trace" > "$work/ours.speedscope.json" 2> "$work/ours.err"
  status=$?
  [ "$status" -eq 0 ] || { cat "$work/ours.err"; echo "FAIL: clretw-dump --format speedscope exited $status"; exit 1; }
  cat "$work/ours.err"  # its summary: samples, threads, how frames were named
  echo "stacks_check: clretw-dump converted it in $(elapsed "$start") s"

  # Live: the symbolizer on a session's stream, rundown arriving after the stop.
  if [ -n "$ttool" ]; then
    timeout 120 "$ttool" collect --providers "Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:0x38:5" \
      --print folded --no-progress -o "$work/live.nettrace" -- dotnet "$workload/workload.dll" cpu > "$work/live.folded" 2> "$work/live.err"
    status=$?
    live=$(awk '{ s += $NF } END { print s + 0 }' "$work/live.folded")
    if [ "$status" -ne 0 ] || [ "$live" -eq 0 ]; then
      cat "$work/live.err"
      echo "FAIL: clretw-trace collect --print folded exited $status with $live samples"
      fail=1
    else
      for method in 'workload!Cpu.LeafA(int32)' 'workload!Cpu.LeafB(int32)' 'workload!Cpu.Middle(int32)'; do
        grep -qF ";$method" "$work/live.folded" || { echo "FAIL: the live folded stacks name no $method"; fail=1; }
      done
      echo "stacks_check: live, clretw-trace: $live samples; $(sed -n 's/.*distinct stacks; //p' "$work/live.err")"
    fi
  fi
}

reference_part() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIPPED: dotnet is not on the PATH; no real runtime was sampled"
    exit 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: python3 is not on the PATH; the conversions were not compared"
    exit 0
  fi
  for f in "$trace" "$work/samples.jsonl" "$work/ours.speedscope.json"; do
    [ -s "$f" ] || { echo "FAIL: $f is missing: the test dotnet_stacks (stacks_check.sh capture) did not leave it"; exit 1; }
  done
  # The reference: dotnet-trace convert.
  rm -rf "$work/tools" "$work/theirs.speedscope.json"
  if ! timeout 300 dotnet tool install --tool-path "$work/tools" dotnet-trace > "$work/tool.log" 2>&1; then
    echo "SKIPPED: dotnet-trace could not be installed as a dotnet tool; the conversions were not compared: $(tail -n 1 "$work/tool.log")"
    exit 0
  fi
  version=$("$work/tools/dotnet-trace" --version 2>/dev/null | head -n 1)
  start=$(date +%s.%N)
  if ! timeout 300 "$work/tools/dotnet-trace" convert --format Speedscope "$trace" -o "$work/theirs" > "$work/convert.log" 2>&1 ||
     [ ! -s "$work/theirs.speedscope.json" ]; then
    cat "$work/convert.log"
    echo "FAIL: dotnet-trace $version convert --format Speedscope"
    exit 1
  fi
  echo "stacks_check: dotnet-trace $version converted it in $(elapsed "$start") s"
  # The bench is worth comparing only if the reference sees the workload's methods.
  for method in 'workload!Cpu.LeafA(int32)' 'workload!Cpu.LeafB(int32)' 'workload!Cpu.Middle(int32)' 'CPU_TIME'; do
    grep -qF "\"$method\"" "$work/theirs.speedscope.json" || { echo "FAIL: dotnet-trace's conversion has no frame $method"; fail=1; }
  done
  [ "$fail" -eq 0 ] || exit 1
  python3 "$src/tests/dotnet/compare_speedscope.py" "$work/theirs.speedscope.json" "$work/ours.speedscope.json" \
          "$work/samples.jsonl" || fail=1
}

case $part in
  capture) capture_part ;;
  reference) reference_part ;;
  *) echo "stacks_check.sh: no part '$part' (capture or reference)" >&2; exit 2 ;;
esac
exit $fail
