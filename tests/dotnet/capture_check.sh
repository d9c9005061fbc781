#!/bin/sh
# The real .NET runtime as the test bench, in two parts, each a CTest test of its own:
# - capture (dotnet_capture): runs tests/dotnet/workload (workload.sh) twice under EventPipe with no tools
#   (DOTNET_EnableEventPipe, every keyword at level 5 of the runtime, rundown and private providers, the
#   sample profiler, the workload's two EventSources and TPL's activity ids), once with stacks and once
#   without (DOTNET_EventPipeEnableStackwalk=0). For each capture it checks that the built-in decoders
#   decode every event: 0 unknown, 0 malformed, 0 with bytes left over, and the kinds of events the
#   workload provokes are there; and which events carry stacks. It leaves in WORK_DIR each trace and its
#   events as clretw-dump --sorted --format json writes them (NAME-clretw.jsonl) for the reference part.
# - reference (dotnet_capture_reference): TraceEvent 4.0.0, the reference decoder (tests/dotnet/oracle,
#   restored from NuGet), reads each trace the capture part left, and compare.py checks event by event that
#   both decoders agree, every difference being one of tests/dotnet/known-differences.json. Skipped
#   ("SKIPPED: ...", exit 0) without python3.
#   capture_check.sh capture|reference CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
if [ $# -lt 4 ]; then
  echo "usage: capture_check.sh capture|reference CLRETW_DUMP WORK_DIR SOURCE_DIR" >&2
  exit 2
fi
part=$1 dump=$2 work=$3 src=$4
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; no real runtime was traced"
  exit 0
fi
fail=0

capture_part() {
  rm -rf "$work" && mkdir -p "$work"
  . "$src/tests/dotnet/workload.sh"
  need_workload "$work" "$src" "no real runtime was traced"
  all=0xFFFFFFFFFFFFFFFF
  config="Microsoft-Windows-DotNETRuntime:$all:5,Microsoft-Windows-DotNETRuntimeRundown:$all:5"
  config="$config,Microsoft-Windows-DotNETRuntimePrivate:$all:5,Microsoft-DotNETCore-SampleProfiler:0:5"
  config="$config,Clretw-Workload:$all:5,Clretw-Workload-SelfDescribing:$all:5,System.Threading.Tasks.TplEventSource:0x80:5"
  capture stacks 1
  capture nostacks 0
}
# capture NAME STACKWALK: runs the workload (2 rounds) into $work/NAME.nettrace and checks it.
capture() {
  name=$1 trace="$work/$1.nettrace" stats="$work/$1-stats.txt"
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeConfig="$config" \
  DOTNET_EventPipeEnableStackwalk=$2 timeout 120 dotnet "$workload/workload.dll" 2 > "$work/$name-run.log" 2>&1 ||
    { cat "$work/$name-run.log"; echo "FAIL: the workload did not run"; exit 1; }
  "$dump" --stats "$trace" > "$stats" 2>&1
  status=$?
  bad=0
  check() {  # check DESCRIPTION PATTERN
    if ! grep -Eq -- "$2" "$stats"; then echo "FAIL ($name): $1"; bad=1; fi
  }
  [ "$status" -eq 0 ] || { echo "FAIL ($name): clretw-dump --stats exited $status"; bad=1; }
  check "every event decodes with the built-in decoders" 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed'
  check "no event has bytes its layout does not account for" 'decoded with trailing bytes \(newer versions\): 0;'
  # The runtime writes no field list for Blob (a byte[] parameter): its 2 payloads are all that is undescribed.
  check "only Blob's payloads are undescribed by the trace's metadata" "lists no fields for: 2;"
  check "lost events: 0" 'lost events: 0;'
  for event in 'DotNETRuntime/GC/Start ' 'DotNETRuntime/GC/HeapStats ' 'DotNETRuntime/GC/GCSampledObjectAllocation ' \
               'DotNETRuntime/GC/GCBulkNode ' 'DotNETRuntime/GC/GCBulkEdge ' 'DotNETRuntime/GC/GCBulkRootEdge ' \
               'DotNETRuntime/Type/BulkType ' 'DotNETRuntime/AllocationSampled ' 'DotNETRuntime/Method/LoadVerbose ' \
               'DotNETRuntime/Method/MethodILToNativeMap ' 'DotNETRuntime/Method/R2RGetEntryPoint \(159 v0' \
               'DotNETRuntime/Loader/AssemblyLoad ' 'DotNETRuntime/Loader/AssemblyUnload ' 'DotNETRuntime/Exception/Start ' \
               'DotNETRuntime/ExceptionFilter/Start ' 'DotNETRuntime/ExceptionFinally/Start ' 'DotNETRuntime/Contention/Start ' \
               'DotNETRuntime/WaitHandleWait/Start ' 'DotNETRuntime/ThreadPoolWorkerThread/Start ' \
               'DotNETRuntime/TypeLoad/Start ' 'DotNETRuntime/Thread/Creating ' 'DotNETRuntimeRundown/Method/DCStopVerbose ' \
               'SampleProfiler/Thread/Sample ' 'Clretw-Workload/RoundStart' 'Clretw-Workload/Primitives ' \
               'Clretw-Workload/Values ' 'Clretw-Workload/InnerStart' 'Clretw-Workload-SelfDescribing/Arrays ' \
               'Clretw-Workload-SelfDescribing/Located ' 'Clretw-Workload-SelfDescribing/Measured '; do
    check "the capture has $event" "$event"
  done
  events=$(sed -n 's/^events: \([0-9]*\) in file.*/\1/p' "$stats")
  kinds=$(grep -Ec '^ +[0-9]+  ' "$stats")
  [ "$bad" -eq 0 ] || { cat "$stats"; fail=1; return; }
  echo "capture_check ($name): $events events of $kinds kinds from a .NET $(dotnet --version) process, all decoded by the built-in decoders"

  # Every event as JSON: read here for its stacks, and by the reference part beside TraceEvent's.
  "$dump" --sorted --format json "$trace" > "$work/$name-clretw.jsonl" || { echo "FAIL ($name): clretw-dump --format json"; fail=1; return; }
  # Stacks: on most events with stackwalk, on none but the sample profiler's without (a sample is a stack).
  stacked=$(grep '"stack":' "$work/$name-clretw.jsonl" | grep -vc '"provider":"Microsoft-DotNETCore-SampleProfiler"')
  if [ "$2" = 1 ] && [ "$stacked" -lt $((events / 2)) ]; then echo "FAIL ($name): only $stacked events have stacks"; fail=1; fi
  if [ "$2" = 0 ] && [ "$stacked" -ne 0 ]; then echo "FAIL ($name): $stacked events have stacks"; fail=1; fi
  echo "capture_check ($name): $stacked events other than samples carry a stack"
}

reference_part() {
  if ! command -v python3 >/dev/null 2>&1; then
    rm -f "$work/stacks-clretw.jsonl" "$work/nostacks-clretw.jsonl"  # hundreds of MB; the traces stay
    echo "SKIPPED: python3 is not on the PATH; the comparison with TraceEvent did not run"
    exit 0
  fi
  for name in stacks nostacks; do
    for f in "$work/$name.nettrace" "$work/$name-clretw.jsonl"; do
      [ -s "$f" ] || { echo "FAIL: $f is missing: the test dotnet_capture (capture_check.sh capture) did not leave it"; exit 1; }
    done
  done
  rm -rf "$work/oracle-src" "$work/oracle" && mkdir -p "$work/oracle-src"
  cp "$src/tests/dotnet/oracle/oracle.csproj" "$src/tests/dotnet/oracle/Program.cs" "$work/oracle-src/"
  if ! timeout 300 dotnet build "$work/oracle-src/oracle.csproj" -c Release -o "$work/oracle" --nologo -v quiet \
       > "$work/oracle-build.log" 2>&1; then
    cat "$work/oracle-build.log"
    echo "FAIL: the oracle does not build (NuGet restore of Microsoft.Diagnostics.Tracing.TraceEvent 4.0.0?)"
    exit 1
  fi
  for name in stacks nostacks; do
    # Side by side with TraceEvent.
    if ! timeout 300 dotnet "$work/oracle/oracle.dll" "$work/$name.nettrace" > "$work/$name-traceevent.jsonl" 2> "$work/$name-oracle.log"; then
      cat "$work/$name-oracle.log"; echo "FAIL ($name): the oracle did not run"; fail=1; continue
    fi
    echo "compare ($name):"
    python3 "$src/tests/dotnet/compare.py" "$work/$name-clretw.jsonl" "$work/$name-traceevent.jsonl" \
            "$src/tests/dotnet/known-differences.json" || fail=1
    rm -f "$work/$name-clretw.jsonl" "$work/$name-traceevent.jsonl"  # hundreds of MB; the trace stays
  done
}

case $part in
  capture) capture_part ;;
  reference) reference_part ;;
  *) echo "capture_check.sh: no part '$part' (capture or reference)" >&2; exit 2 ;;
esac
exit $fail
