#!/bin/sh
# clretw beside TraceEvent 4.0.0 on one large real trace, in one run (a benchmark, not a test).
#   bench/vs_traceevent/run.sh BUILD_DIR [WORK_DIR] [SIZE_MB]
# BUILD_DIR is a Release build of clretw (clretw-dump, bench/vs_traceevent_read_all, bench/peak_rss).
# Captures tests/dotnet/workload looped until its trace has at least SIZE_MB (default 1024) megabytes,
# with the configuration of tests/dotnet/capture_check.sh (stacks on), then measures over that file:
#   TraceEvent reading every field of every event (PayloadValue), TraceEvent only counting events,
#   clretw's reader + Dispatcher + views reading every field of every event (read_all.cpp),
#   clretw-dump --stats, clretw-dump --format json, and the TraceEvent oracle's JSON writer.
# Prints a Markdown table: events/s, the ratio to TraceEvent reading every field, peak RSS.
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR [WORK_DIR] [SIZE_MB]}" && pwd)
work=${2:-/tmp/clretw-vs-traceevent}
size_mb=${3:-1024}
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v dotnet >/dev/null || { echo "run.sh: needs dotnet (the .NET SDK)" >&2; exit 2; }
cmake --build "$build" --target vs_traceevent_read_all >/dev/null
for f in clretw-dump bench/vs_traceevent_read_all bench/peak_rss; do
  [ -x "$build/$f" ] || { echo "run.sh: $build/$f is missing: build the Release tree first" >&2; exit 2; }
done
mkdir -p "$work"
build_cs() {  # build_cs NAME SOURCE_DIR
  mkdir -p "$work/$1-src"
  cp "$2"/*.csproj "$2"/Program.cs "$work/$1-src/"
  dotnet build "$work/$1-src" -c Release -o "$work/$1" --nologo -v quiet > "$work/$1-build.log" 2>&1 ||
    { cat "$work/$1-build.log"; exit 1; }
}
build_cs workload "$src/tests/dotnet/workload"
build_cs oracle "$src/tests/dotnet/oracle"
build_cs traceevent "$src/bench/vs_traceevent"

all=0xFFFFFFFFFFFFFFFF
config="Microsoft-Windows-DotNETRuntime:$all:5,Microsoft-Windows-DotNETRuntimeRundown:$all:5"
config="$config,Microsoft-Windows-DotNETRuntimePrivate:$all:5,Microsoft-DotNETCore-SampleProfiler:0:5"
config="$config,Clretw-Workload:$all:5,Clretw-Workload-SelfDescribing:$all:5,System.Threading.Tasks.TplEventSource:0x80:5"
trace="$work/large.nettrace"
capture() {  # capture ROUNDS
  rm -f "$trace"
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeConfig="$config" \
    dotnet "$work/workload/workload.dll" "$1" > "$work/workload.log"
}
if [ ! -f "$trace" ] || [ "$(wc -c < "$trace")" -lt $((size_mb * 1048576)) ]; then
  capture 4
  per_round=$(( $(wc -c < "$trace") / 4 ))
  rounds=$(( size_mb * 1048576 * 5 / 4 / per_round + 1 ))
  echo "capturing $rounds rounds of the workload (about $((per_round / 1048576)) MB each)..." >&2
  capture "$rounds"
fi
bytes=$(wc -c < "$trace")

# measure NAME COMMAND...: wall seconds, peak RSS (MB) and the command's own output.
measure() {
  name=$1
  shift
  t0=$(date +%s.%N)
  "$build/bench/peak_rss" "$@" > "$work/$name.out" 2> "$work/$name.err"
  t1=$(date +%s.%N)
  seconds=$(echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }')
  rss=$(sed -n 's/^peak RSS: \([0-9.]*\) MB$/\1/p' "$work/$name.err")
  echo "$name $seconds $rss" >> "$work/results.txt"
  echo "  $name: $seconds s, peak RSS $rss MB" >&2
}
: > "$work/results.txt"
echo "measuring on $trace ($bytes bytes)..." >&2
measure traceevent-fields dotnet "$work/traceevent/vs_traceevent.dll" fields "$trace"
measure traceevent-count dotnet "$work/traceevent/vs_traceevent.dll" count "$trace"
measure clretw-read-all "$build/bench/vs_traceevent_read_all" "$trace"
measure clretw-dump-stats "$build/clretw-dump" --no-progress --stats "$trace"
measure clretw-dump-json sh -c '"$1" --no-progress --format json "$2" > /dev/null' sh "$build/clretw-dump" "$trace"
measure traceevent-json sh -c 'dotnet "$1" "$2" > /dev/null' sh "$work/oracle/oracle.dll" "$trace"

events=$(sed -n 's/^events \([0-9]*\) .*/\1/p' "$work/clretw-read-all.out")
echo
echo "Trace: $(( bytes / 1000000 )) MB ($(( bytes / 1048576 )) MiB), $events events, tests/dotnet/workload ($(dotnet --version)), $(nproc) cores."
echo "Every figure is wall time of the whole process over the same file, in one run of bench/vs_traceevent/run.sh."
echo
echo "| reader | events/s | vs TraceEvent reading every field | peak RSS |"
echo "|---|---:|---:|---:|"
base=$(awk '$1 == "traceevent-fields" { print $2 }' "$work/results.txt")
while read -r name seconds rss; do
  case $name in
    traceevent-fields) label="TraceEvent, every field (PayloadValue)" ;;
    traceevent-count) label="TraceEvent, counting events only" ;;
    clretw-read-all) label="clretw reader + Dispatcher + views, every field" ;;
    clretw-dump-stats) label="clretw-dump --stats" ;;
    clretw-dump-json) label="clretw-dump --format json" ;;
    traceevent-json) label="TraceEvent + the oracle's JSON writer" ;;
  esac
  echo "$label $seconds $rss $base" | awk -v events="$events" -v label="$label" \
    '{ printf "| %s | %.2f M | %.1fx | %.0f MB |\n", label, events / $(NF-2) / 1e6, $(NF) / $(NF-2), $(NF-1) }'
done < "$work/results.txt"
