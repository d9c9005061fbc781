#!/bin/sh
# The in-process source against a real .NET 10 process: examples/inproc-profiler loaded with
# CORECLR_ENABLE_PROFILING, beside a file session of the same providers (DOTNET_EnableEventPipe).
#   inproc_check.sh PROFILER.so CLRETW_DUMP WORK_DIR SOURCE_DIR
# 1. tests/dotnet/workload (one round of every kind of event): the profiler's JSON lines equal
#    clretw-dump --format json of the file event for event (compare_inproc.py), for every event
#    type both were given; the program's exit status and output are those of a run without it.
# 2. `workload stress 30` (8 threads throwing, allocating and compiling for 30 s, about two million
#    events): no crash, no delivery rejected, no event lost by the file session, and the profiler's
#    summary (events by provider, GCs by generation) equals the file's counts. (The profiler writes
#    no JSON here: 1.5 GB of it compared line by line would take minutes; step 1 compares lines.)
# 3. A providers string the profiler cannot use: it says why, and the program runs unchanged.
# --round-only: step 1 alone (tools/check-package.sh runs it on the profiler built from the package).
# Skipped (exit 0, "SKIPPED: dotnet ...") without dotnet on the PATH.
set -u
round_only=0
[ "${1:-}" = --round-only ] && { round_only=1; shift; }
[ $# -eq 4 ] || { echo "usage: inproc_check.sh [--round-only] PROFILER.so CLRETW_DUMP WORK_DIR SOURCE_DIR" >&2; exit 2; }
profiler=$1 dump=$2 work=$3 src=$4
. "$src/tests/dotnet/workload.sh"
need_workload "$work" "$src" "the in-process profiler was not run"
failures=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$work/run" && mkdir -p "$work/run"
cd "$work/run" || exit 1

# run NAME PROVIDERS OUTPUT ARGS...: the workload with the profiler (CLRETW_PROVIDERS=PROVIDERS,
# CLRETW_OUTPUT=OUTPUT) and a file session of the same providers; NAME.out/.err/.nettrace, status in
# NAME.status.
run() {
  name=$1 providers=$2 output=$3
  shift 3
  start=$(date +%s)
  CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}' CORECLR_PROFILER_PATH="$profiler" \
  CLRETW_PROVIDERS="$providers" CLRETW_OUTPUT="$output" \
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$name.nettrace" DOTNET_EventPipeConfig="$providers" \
  DOTNET_EventPipeRundown=0 DOTNET_EventPipeCircularMB=1024 \
    timeout 300 dotnet "$workload/workload.dll" "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.status"
  echo "   ($name: $(($(date +%s) - start)) s; $(tail -n 1 "$name.err"))"
}

# --- 1. one round of every kind of event --------------------------------------------------------
timeout 300 dotnet "$workload/workload.dll" > plain.out 2> plain.err
plain=$?
providers='Microsoft-Windows-DotNETRuntime:0x4c14fccbd:5,Clretw-Workload:0xffffffffffffffff:5,Clretw-Workload-SelfDescribing:0xffffffffffffffff:5'
run round "$providers" round.jsonl
if [ "$(cat round.status)" = "$plain" ] && cmp -s plain.out round.out; then
  ok "the program's exit status ($plain) and output are unchanged by the profiler"
else
  bad "with the profiler the program exited $(cat round.status) (without: $plain), output: $(head -c 300 round.out)"
fi
grep -q '^clretw-inproc: [0-9]* events' round.err && ok "summary: $(grep '^clretw-inproc:' round.err | head -c 400)" \
  || bad "no summary on stderr: $(head -c 500 round.err)"
if grep -q 'rejected' round.err; then bad "deliveries rejected: $(grep rejected round.err | head -3)"; fi
"$dump" --format json --file-order round.nettrace > round.file.jsonl 2> round.dump.err \
  || bad "clretw-dump cannot read the file session: $(head -c 300 round.dump.err)"
since() { sed -n 's/.*; session from \([0-9]*\) ns.*/\1/p' "$1" | tail -n 1; }
if python3 "$src/tests/dotnet/compare_inproc.py" round.jsonl round.file.jsonl --since "$(since round.err)" \
     --per-session Microsoft-DotNETCore-EventPipe > round.compare 2>&1; then
  ok "$(tr '\n' ' ' < round.compare)"
else
  bad "the in-process events differ from the file's: $(head -c 3000 round.compare)"
fi

if [ "$round_only" = 1 ]; then
  [ "$failures" -eq 0 ] && { echo "inproc_check: step 1 passed"; exit 0; }
  echo "inproc_check: $failures failure(s)"
  exit 1
fi

# --- 2. 30 s of stress -------------------------------------------------------------------------
stress_providers='Microsoft-Windows-DotNETRuntime:0x8011:5'
run stress "$stress_providers" "" stress 30
[ "$(cat stress.status)" = 0 ] && grep -q '^workload: stress' stress.out \
  && ok "30 s of stress on 8 threads with the profiler: exit 0" || bad "stress: exit $(cat stress.status): $(tail -c 500 stress.err)"
if grep -q 'rejected' stress.err; then bad "stress: deliveries rejected: $(grep rejected stress.err | head -3)"; fi
"$dump" --stats stress.nettrace > stress.stats 2>&1
lost=$(sed -n 's/^lost events: \([0-9]*\).*/\1/p' stress.stats)
[ "${lost:-x}" = 0 ] && ok "stress: the file session lost no events" || bad "stress: the file session lost ${lost:-?} events"
cat > summary_check.py <<'PY'
# The summary's events by provider and GCs by generation against the file's, from when the
# profiler's session began; EventPipe's own events are about sessions (one per session) and left out.
import collections, json, re, sys
summary = [l for l in open(sys.argv[1], encoding="utf-8") if l.startswith("clretw-inproc:")]
if not summary: sys.exit("no summary")
s = summary[-1].strip()
since = int(re.search(r"; session from (\d+) ns", s).group(1))
said = dict((p, int(n)) for p, n in re.findall(r"([A-Za-z][\w.-]+) (\d+)", s[s.index("(") + 1:s.index(")")]))
said.pop("Microsoft-DotNETCore-EventPipe", None)
said_gcs = [int(n) for n in re.search(r"GCs gen0 (\d+) gen1 (\d+) gen2 (\d+)", s).groups()]
by_provider, gcs = collections.Counter(), [0, 0, 0]
head = re.compile(r'\{"provider":"([^"]*)","id":(\d+),.*?"timestamp":(\d+),')
for line in sys.stdin:  # about two million lines: only GC/Start is parsed whole
    m = head.match(line)
    if not m: sys.exit("not clretw-dump's JSON: " + line[:200])
    provider, id, timestamp = m.group(1), int(m.group(2)), int(m.group(3))
    if provider == "Microsoft-DotNETCore-EventPipe" or timestamp < since: continue
    by_provider[provider] += 1
    if provider == "Microsoft-Windows-DotNETRuntime" and id == 1:
        depth = json.loads(line)["fields"].get("Depth", 0)
        if depth < 3: gcs[depth] += 1
if said != dict(by_provider) or said_gcs != gcs:
    sys.exit(f"the summary says {said}, GCs {said_gcs}; the file says {dict(by_provider)}, GCs {gcs}")
print(f"{dict(by_provider)}, GCs {gcs}")
PY
if "$dump" --format json --file-order stress.nettrace 2> stress.dump.err | python3 summary_check.py stress.err; then
  ok "stress: the summary equals the file's counts"
else
  bad "stress: the summary differs from the file $(head -c 300 stress.dump.err)"
fi
# --- 3. providers the profiler cannot use --------------------------------------------------------
CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}' CORECLR_PROFILER_PATH="$profiler" \
CLRETW_PROVIDERS='Microsoft-Windows-DotNETRuntime:0xZZ:4' \
  timeout 120 dotnet "$workload/workload.dll" > badspec.out 2> badspec.err
status=$?
if [ "$status" = "$plain" ] && cmp -s plain.out badspec.out && grep -q 'clretw-inproc: CLRETW_PROVIDERS' badspec.err; then
  ok "a bad CLRETW_PROVIDERS is explained ($(grep -m1 'clretw-inproc' badspec.err | head -c 200)) and the program runs unchanged"
else
  bad "a bad CLRETW_PROVIDERS: exit $status, stderr: $(head -c 400 badspec.err)"
fi

[ "$failures" -eq 0 ] && { rm -f stress.nettrace; echo "inproc_check: all passed"; exit 0; }
echo "inproc_check: $failures failure(s)"
exit 1
