#!/bin/sh
# clretw-dump --report against TraceEvent's own analysis, on a workload not written for either:
# `workload gcbench` (tests/dotnet/workload: binary trees, string and dictionary churn, large arrays and a
# few caught exceptions on 2 threads for about 1.5 s) runs under EventPipe with no tools four times, once
# per GC flavour: workstation concurrent, workstation non-concurrent, server concurrent, server
# non-concurrent. Each trace is read by clretw-dump --report gc,jit,exceptions --format json and by
# tests/dotnet/analysis (TraceEvent 4.0.0's TraceLoadedDotNetRuntime, restored from NuGet), and
# compare_reports.py pairs GCs, JIT'd methods and exception types; every difference must be one of
# tests/dotnet/report-differences.json. Every step is bounded in time; a capture whose runtime hangs
# (seen in about 3% of runs) is tried once more.
#   report_check.sh CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
dump=$1 work=$2 src=$3
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; no real runtime was traced"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIPPED: python3 is not on the PATH; the reports were not compared"
  exit 0
fi
rm -rf "$work" && mkdir -p "$work/analysis-src"
. "$src/tests/dotnet/workload.sh"
need_workload "$work" "$src" "no real runtime was traced"
cp "$src/tests/dotnet/analysis/analysis.csproj" "$src/tests/dotnet/analysis/Program.cs" "$work/analysis-src/"
if ! timeout 300 dotnet build "$work/analysis-src/analysis.csproj" -c Release -o "$work/analysis" --nologo -v quiet \
     > "$work/analysis-build.log" 2>&1; then
  cat "$work/analysis-build.log"
  echo "FAIL: the analysis does not build (NuGet restore of Microsoft.Diagnostics.Tracing.TraceEvent 4.0.0?)"
  exit 1
fi

# What the reports read: GC (0x1: GC/Start, End, SuspendEE, RestartEE, HeapStats, PerHeapHistory,
# AllocationTick at level 5), Loader (0x8), JIT (0x10: JittingStarted, MethodLoadVerbose), Contention
# (0x4000), Exception (0x8000), Threading (0x10000: the thread pool); the rundown names the methods and
# modules loaded before and during the trace (Loader, JIT, NGen, End, the GC settings).
runtime=$(printf '0x%X' $((0x1 | 0x8 | 0x10 | 0x4000 | 0x8000 | 0x10000)))
config="Microsoft-Windows-DotNETRuntime:$runtime:5,Microsoft-Windows-DotNETRuntimeRundown:0x80020139:5"
# workload.csproj sets System.GC.Concurrent in workload.runtimeconfig.json, and the runtime takes that over
# DOTNET_gcConcurrent: the captures run with a copy that leaves it out, so that the environment decides.
python3 - "$workload/workload.runtimeconfig.json" "$work/gcbench.runtimeconfig.json" <<'EOF' || exit 1
import json, sys
config = json.load(open(sys.argv[1]))
config["runtimeOptions"].get("configProperties", {}).pop("System.GC.Concurrent", None)
json.dump(config, open(sys.argv[2], "w"), indent=2)
EOF
fail=0
# capture NAME SERVER CONCURRENT: one run of `workload gcbench` into $work/NAME.nettrace, both reports, compared.
capture() {
  name=$1 trace="$work/$1.nettrace"
  run() {
    rm -f "$trace"
    timeout -k 5 30 env DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeConfig="$config" \
        DOTNET_gcServer="$2" DOTNET_gcConcurrent="$3" \
        dotnet exec --runtimeconfig "$work/gcbench.runtimeconfig.json" "$workload/workload.dll" gcbench > "$work/$name-run.log" 2>&1
  }
  run "$@"
  status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "report_check ($name): the workload did not finish in 30 s (a runtime hang?); once more"
    run "$@"
    status=$?
  fi
  [ "$status" -eq 0 ] && [ -s "$trace" ] || { cat "$work/$name-run.log"; echo "FAIL ($name): the workload exited $status"; fail=1; return; }
  # The flavour asked for is the one that ran (GCSettings: latency Batch when concurrent GC is off).
  server=False latency=Interactive
  [ "$2" = 1 ] && server=True
  [ "$3" = 0 ] && latency=Batch
  grep -q "server GC $server, latency $latency," "$work/$name-run.log" ||
    { cat "$work/$name-run.log"; echo "FAIL ($name): not the GC asked for (server GC $server, latency $latency)"; fail=1; return; }

  timeout 60 "$dump" --report gc,jit,exceptions --format json "$trace" > "$work/$name-clretw.jsonl" 2> "$work/$name-clretw.log" ||
    { status=$?; cat "$work/$name-clretw.log"; echo "FAIL ($name): clretw-dump --report exited $status"; fail=1; return; }
  timeout 60 dotnet "$work/analysis/analysis.dll" "$trace" > "$work/$name-traceevent.jsonl" 2> "$work/$name-analysis.log" ||
    { status=$?; cat "$work/$name-analysis.log"; echo "FAIL ($name): the TraceEvent analysis exited $status"; fail=1; return; }
  echo "report_check ($name): $(tail -n 1 "$work/$name-run.log"); $(tail -n 1 "$work/$name-analysis.log")"
  timeout 60 python3 "$src/tests/dotnet/compare_reports.py" --require gc,jit,exceptions "$work/$name-clretw.jsonl" "$work/$name-traceevent.jsonl" \
          "$src/tests/dotnet/report-differences.json" > "$work/$name-compare.txt" 2>&1
  status=$?
  sed "s/^/  /" "$work/$name-compare.txt"
  [ "$status" -eq 0 ] || { echo "FAIL ($name): compare_reports.py exited $status"; fail=1; }
  # A concurrent GC may or may not start a background GC in 1.5 s; a non-concurrent one never does.
  if [ "$3" = 0 ] && grep -q '"type":"BackgroundGC"' "$work/$name-traceevent.jsonl"; then
    echo "FAIL ($name): a background GC with gcConcurrent=0"; fail=1
  fi
}
capture workstation-concurrent 0 1
capture workstation-nonconcurrent 0 0
capture server-concurrent 1 1
capture server-nonconcurrent 1 0
[ "$fail" -eq 0 ] && echo "report_check: the reports of 4 captures agree with TraceEvent's analysis"
exit $fail
