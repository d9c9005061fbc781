#!/bin/sh
# The real .NET runtime as the test bench: builds tests/dotnet/workload, runs it under EventPipe
# with no tools (DOTNET_EnableEventPipe, every keyword at level 5 of the runtime, rundown and
# private providers, the sample profiler and the workload's EventSource), and checks that the
# built-in decoders decode every event of the capture: 0 unknown, 0 malformed, 0 with bytes left
# over, and the kinds of events the workload provokes are there. Then TraceEvent 4.0.0, the reference
# decoder (tests/dotnet/oracle, restored from NuGet), reads the same file, and compare.py checks event
# by event that both decoders agree, every difference being one of tests/dotnet/known-differences.json.
#   capture_check.sh CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
dump=$1 work=$2 src=$3
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; no real runtime was traced"
  exit 0
fi
rm -rf "$work" && mkdir -p "$work/src"
cp "$src/tests/dotnet/workload/workload.csproj" "$src/tests/dotnet/workload/Program.cs" "$work/src/"
if ! timeout 300 dotnet build "$work/src/workload.csproj" -c Release -o "$work/bin" --nologo -v quiet > "$work/build.log" 2>&1; then
  cat "$work/build.log"
  echo "FAIL: the workload does not build"
  exit 1
fi
trace="$work/workload.nettrace"
all=0xFFFFFFFFFFFFFFFF
DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" \
DOTNET_EventPipeConfig="Microsoft-Windows-DotNETRuntime:$all:5,Microsoft-Windows-DotNETRuntimeRundown:$all:5,Microsoft-Windows-DotNETRuntimePrivate:$all:5,Microsoft-DotNETCore-SampleProfiler:0:5,Clretw-Workload:$all:5" \
  timeout 120 dotnet "$work/bin/workload.dll" 2 > "$work/run.log" 2>&1 || { cat "$work/run.log"; echo "FAIL: the workload did not run"; exit 1; }
"$dump" --stats "$trace" > "$work/stats.txt" 2>&1
status=$?
fail=0
check() {  # check DESCRIPTION PATTERN
  if ! grep -Eq -- "$2" "$work/stats.txt"; then echo "FAIL: $1"; fail=1; fi
}
[ "$status" -eq 0 ] || { echo "FAIL: clretw-dump --stats exited $status"; fail=1; }
check "every event decodes with the built-in decoders" 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed'
check "no event has bytes its layout does not account for" 'decoded with trailing bytes \(newer versions\): 0;'
check "lost events: 0" 'lost events: 0;'
for event in 'DotNETRuntime/GC/Start ' 'DotNETRuntime/GC/HeapStats ' 'DotNETRuntime/GC/GCSampledObjectAllocation ' \
             'DotNETRuntime/AllocationSampled ' 'DotNETRuntime/Method/LoadVerbose ' 'DotNETRuntime/Method/MethodILToNativeMap ' \
             'DotNETRuntime/Loader/AssemblyLoad ' 'DotNETRuntime/Loader/AssemblyUnload ' 'DotNETRuntime/Exception/Start ' \
             'DotNETRuntime/ExceptionFilter/Start ' 'DotNETRuntime/Contention/Start ' 'DotNETRuntime/WaitHandleWait/Start ' \
             'DotNETRuntime/ThreadPoolWorkerThread/Start ' 'DotNETRuntimeRundown/Method/DCStopVerbose ' \
             'SampleProfiler/Thread/Sample ' 'Clretw-Workload/RoundStart'; do
  check "the capture has $event" "$event"
done
events=$(sed -n 's/^events: \([0-9]*\) in file.*/\1/p' "$work/stats.txt")
kinds=$(grep -Ec '^ +[0-9]+  ' "$work/stats.txt")
[ "$fail" -eq 0 ] || { cat "$work/stats.txt"; exit 1; }
echo "capture_check: $events events of $kinds kinds from a .NET $(dotnet --version) process, all decoded by the built-in decoders"

# Side by side with TraceEvent.
mkdir -p "$work/oracle-src"
cp "$src/tests/dotnet/oracle/oracle.csproj" "$src/tests/dotnet/oracle/Program.cs" "$work/oracle-src/"
if ! timeout 300 dotnet build "$work/oracle-src/oracle.csproj" -c Release -o "$work/oracle" --nologo -v quiet > "$work/oracle-build.log" 2>&1; then
  cat "$work/oracle-build.log"
  echo "FAIL: the TraceEvent oracle does not build (NuGet restore of Microsoft.Diagnostics.Tracing.TraceEvent 4.0.0?)"
  exit 1
fi
timeout 300 dotnet "$work/oracle/oracle.dll" "$trace" > "$work/traceevent.jsonl" 2> "$work/oracle.log" || { cat "$work/oracle.log"; echo "FAIL: the oracle did not run"; exit 1; }
"$dump" --sorted --format json "$trace" > "$work/clretw.jsonl" || { echo "FAIL: clretw-dump --format json"; exit 1; }
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIPPED (part): python3 is not on the PATH; the comparison with TraceEvent did not run"
  exit 0
fi
python3 "$src/tests/dotnet/compare.py" "$work/clretw.jsonl" "$work/traceevent.jsonl" "$src/tests/dotnet/known-differences.json"
