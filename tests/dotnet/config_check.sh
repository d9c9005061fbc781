#!/bin/sh
# clretw-gen config against the real .NET runtime: for a handful of events tests/dotnet/workload provokes
# (GC, allocation ticks, exceptions, contention, the thread pool, JIT, type loads, waits, the runtime's
# keyword-less start event, the rundown, the sample profiler), `clretw-gen config --format eventpipe` prints a
# DOTNET_EventPipeConfig; one round of the workload runs under it, and clretw-dump --stats must count every
# event asked for. A second run asks for GC/Start and AllocationSampled alone: those are recorded, and events
# of keywords not asked for, or more verbose than asked for, are not (the setting is no wider than it says).
#   config_check.sh CLRETW_GEN CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
gen=$1 dump=$2 work=$3 src=$4
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; no real runtime was traced"
  exit 0
fi
mkdir -p "$work"
. "$src/tests/dotnet/workload.sh"
need_workload "$work" "$src" "no real runtime was traced"

fail=0
# run NAME EVENT...: the config for the events, one round of the workload under it, its stats in $work/NAME-stats.txt.
run() {
  name=$1
  shift
  config=$("$gen" config --format eventpipe "$@" 2> "$work/$name-notes.txt")
  status=$?
  if [ "$status" -ne 0 ] || [ -z "$config" ]; then
    cat "$work/$name-notes.txt"
    echo "FAIL ($name): clretw-gen config exited $status"
    exit 1
  fi
  echo "config_check ($name): $* -> DOTNET_EventPipeConfig=$config"
  trace="$work/$name.nettrace"
  rm -f "$trace"
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeConfig="$config" \
    timeout 120 dotnet "$workload/workload.dll" 1 > "$work/$name-run.log" 2>&1 ||
    { cat "$work/$name-run.log"; echo "FAIL ($name): the workload did not run"; exit 1; }
  "$dump" --stats "$trace" > "$work/$name-stats.txt" 2>&1 ||
    { cat "$work/$name-stats.txt"; echo "FAIL ($name): clretw-dump --stats"; exit 1; }
}
# look NAME present|absent PROVIDER/EVENT...: each is counted (present) or not (absent), as clretw-dump --stats
# prints events: "  COUNT  PROVIDER/EVENT (ID vN)".
look() {
  name=$1 want=$2
  shift 2
  for event in "$@"; do
    line=$(grep -F "  $event (" "$work/$name-stats.txt" | sed 's/^ *//')
    if [ "$want" = present ] && [ -n "$line" ]; then
      echo "  recorded: $line"
    elif [ "$want" = present ]; then
      echo "FAIL ($name): $event is not in the trace"
      fail=1
    elif [ -n "$line" ]; then
      echo "FAIL ($name): $event is in the trace though not asked for: $line"
      fail=1
    fi
  done
}

rt=Microsoft-Windows-DotNETRuntime
run events GC/Start GC/AllocationTick Exception/Start Contention/Start ThreadPoolWorkerThread/Start Method/LoadVerbose \
    TypeLoad/Start WaitHandleWait/Start Loader/AssemblyLoad RuntimeInformationStart MethodDCEndVerbose Thread/Sample
look events present "$rt/GC/Start" "$rt/GC/AllocationTick" "$rt/Exception/Start" "$rt/Contention/Start" \
       "$rt/ThreadPoolWorkerThread/Start" "$rt/Method/LoadVerbose" "$rt/TypeLoad/Start" "$rt/WaitHandleWait/Start" \
       "$rt/Loader/AssemblyLoad" "$rt/Runtime/Start" "${rt}Rundown/Method/DCStopVerbose" \
       "Microsoft-DotNETCore-SampleProfiler/Thread/Sample"

# GC/Start is informational (GCKeyword), AllocationSampled verbose (AllocationSamplingKeyword).
run narrow GC/Start AllocationSampled
look narrow present "$rt/GC/Start" "$rt/AllocationSampled"
look narrow absent "$rt/GC/GCSampledObjectAllocation" "$rt/Method/LoadVerbose" "$rt/Exception/Start" "$rt/TypeLoad/Start" \
       "$rt/Contention/Start" "Microsoft-DotNETCore-SampleProfiler/Thread/Sample"
# GC/Start alone: level 4, so GC/AllocationTick (GCKeyword, verbose) is not recorded.
run level GC/Start
look level present "$rt/GC/Start"
look level absent "$rt/GC/AllocationTick" "$rt/AllocationSampled"

[ "$fail" -eq 0 ] || exit 1
echo "config_check: every event asked for was recorded by a .NET $(dotnet --version) process under the setting clretw-gen config printed"
