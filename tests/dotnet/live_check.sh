#!/bin/sh
# Live sessions with real .NET 10 processes (tests/dotnet/workload), through clretw-trace, in three parts,
# each a CTest test of its own and each with a workload process of its own:
# - sessions (dotnet_live):
#   1. ps finds the workload, with its pid and command line;
#   2. collect --profile gc-verbose --duration 5s writes a file that clretw-dump reconciles with 0
#      malformed, and the same session decoded live to JSON is, line for line, the file's JSON;
#      A session with --report gc gives, at its end, the GC table clretw-dump makes of the file it wrote;
#   4. Ctrl-C stops a session cleanly: exit 0 and a complete file;
#   5. a process that exits mid-session ends it cleanly;
#   6. startup tracing (-- dotnet workload.dll) sees the runtime's first events, loader and JIT;
# - latency (dotnet_live_latency):
#   3. events arrive while the process runs: the median delay from a workload event's own wall-clock
#      time to its line on stdout is under 1 s (measured by python3: skipped without it);
# - reference (dotnet_live_reference):
#   7. side by side with dotnet-trace (installed as a dotnet tool from NuGet), both collecting
#      gc-verbose from the workload at the same time: the same event types, similar counts (compared by
#      python3; skipped without it, or when dotnet-trace cannot be installed).
# A part that cannot run says so ("SKIPPED: ...") and exits 0.
#   live_check.sh sessions|latency|reference CLRETW_TRACE CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
if [ $# -lt 5 ]; then
  echo "usage: live_check.sh sessions|latency|reference CLRETW_TRACE CLRETW_DUMP WORK_DIR SOURCE_DIR" >&2
  exit 2
fi
part=$1 trace=$2 dump=$3 work=$4 src=$5
case $part in
  sessions|latency|reference) ;;
  *) echo "live_check.sh: no part '$part' (sessions, latency or reference)" >&2; exit 2 ;;
esac
. "$src/tests/dotnet/workload.sh"
rm -rf "$work"
need_workload "$work" "$src" "no live process was traced"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
skip() { echo "SKIPPED: $*"; exit 0; }

# What a part needs beyond dotnet, before anything starts.
if [ "$part" != sessions ] && ! command -v python3 >/dev/null 2>&1; then
  [ "$part" = latency ] && skip "python3 is not on the PATH; the delay was not measured"
  skip "python3 is not on the PATH; the sessions beside dotnet-trace were not compared"
fi
if [ "$part" = reference ] && ! timeout 300 dotnet tool install --tool-path "$work/tools" dotnet-trace > "$work/tool.log" 2>&1; then
  skip "dotnet-trace could not be installed as a dotnet tool; no session beside it: $(tail -n 1 "$work/tool.log")"
fi

# A workload that runs for minutes; killed at the end.
dotnet "$workload/workload.dll" 600 > "$work/workload.log" 2>&1 &
wpid=$!
trap 'kill $wpid 2>/dev/null' EXIT
# Early in its start the runtime reports the host alone as the command line: wait for the whole of it.
found=
for _ in $(seq 1 100); do
  if "$trace" ps > "$work/ps.txt" 2>&1 && grep -Eq "^ *$wpid .*workload.dll" "$work/ps.txt"; then found=1; break; fi
  sleep 0.1
done

sessions_part() {
  # 1. ps
  if [ -n "$found" ] && grep -Eq "^ *$wpid +workload +10\.[0-9.]+ +.*dotnet $workload/workload.dll 600\$" "$work/ps.txt"; then
    ok "ps lists pid $wpid with its name, runtime version and command line"
  else
    cat "$work/ps.txt"; bad "ps does not list the workload (pid $wpid)"
  fi

  # 2. a file and the same session live
  "$trace" collect -p "$wpid" --profile gc-verbose --duration 5s -o "$work/gc.nettrace" --print json --no-progress \
    > "$work/gc-live.jsonl" 2> "$work/gc.err" || { cat "$work/gc.err"; bad "collect --profile gc-verbose exited $?"; }
  "$dump" --stats "$work/gc.nettrace" > "$work/gc-stats.txt" 2>&1 || bad "clretw-dump --stats of the collected file"
  if grep -Eq 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed' "$work/gc-stats.txt"; then
    ok "the collected file reconciles: $(grep '^events:' "$work/gc-stats.txt")"
  else
    cat "$work/gc-stats.txt"; bad "the collected file does not reconcile"
  fi
  "$dump" --file-order --format json "$work/gc.nettrace" > "$work/gc-file.jsonl"
  if cmp -s "$work/gc-file.jsonl" "$work/gc-live.jsonl" && [ -s "$work/gc-live.jsonl" ]; then
    ok "decoded live: the same $(wc -l < "$work/gc-live.jsonl") events, line for line, as the file"
  else
    bad "the live JSON ($(wc -l < "$work/gc-live.jsonl") lines) differs from the file's ($(wc -l < "$work/gc-file.jsonl"))"
  fi
  # 2b. A report live: the GC table at the session's end is the one clretw-dump makes of the file it wrote.
  "$trace" collect -p "$wpid" --profile gc-verbose --duration 3s -o "$work/report.nettrace" --report gc --print json --no-progress \
    > "$work/report-live.jsonl" 2> "$work/report.err" || { cat "$work/report.err"; bad "collect --report gc exited $?"; }
  "$dump" --report gc --format json "$work/report.nettrace" | sed 's/"trace":"report.nettrace"/"trace":"pid '"$wpid"'"/' \
    > "$work/report-file.jsonl"
  if [ -s "$work/report-live.jsonl" ] && cmp -s "$work/report-live.jsonl" "$work/report-file.jsonl"; then
    ok "reported live: the same $(wc -l < "$work/report-live.jsonl") GCs as the report of the file"
  else
    diff "$work/report-live.jsonl" "$work/report-file.jsonl" | head -5
    bad "the live GC report ($(wc -l < "$work/report-live.jsonl") lines) differs from the file's ($(wc -l < "$work/report-file.jsonl"))"
  fi

  # 4. Ctrl-C
  "$trace" collect -p "$wpid" --profile gc-collect -o "$work/ctrlc.nettrace" --no-progress 2> "$work/ctrlc.err" &
  cpid=$!
  sleep 2
  kill -INT "$cpid"
  wait "$cpid"
  rc=$?
  if [ "$rc" -eq 0 ] && "$dump" --stats "$work/ctrlc.nettrace" > "$work/ctrlc-stats.txt" 2>&1 &&
     grep -q ' + 0 malformed' "$work/ctrlc-stats.txt"; then
    ok "Ctrl-C stopped the session; the file is complete ($(grep '^events:' "$work/ctrlc-stats.txt" | cut -d, -f1))"
  else
    cat "$work/ctrlc.err" "$work/ctrlc-stats.txt" 2>/dev/null; bad "Ctrl-C: exit $rc, or the file is damaged"
  fi

  # 5. the process exits mid-session
  dotnet "$workload/workload.dll" 4 > /dev/null 2>&1 &
  spid=$!
  for _ in $(seq 1 100); do "$trace" ps 2>/dev/null | grep -Eq "^ *$spid " && break; sleep 0.05; done
  "$trace" collect -p "$spid" --profile gc-verbose -o "$work/exit.nettrace" --no-progress 2> "$work/exit.err"
  rc=$?
  if [ "$rc" -eq 0 ] && "$dump" --stats "$work/exit.nettrace" > "$work/exit-stats.txt" 2>&1; then
    ok "the process exited mid-session: the session ended cleanly ($(grep '^events:' "$work/exit-stats.txt" | cut -d, -f1))"
  else
    cat "$work/exit.err"; bad "the process exited mid-session: exit $rc, or the file is damaged"
  fi

  # 6. startup tracing
  "$trace" collect --providers Microsoft-Windows-DotNETRuntime:0x18:5 --print json --no-progress -o "$work/startup.nettrace" \
    -- dotnet "$workload/workload.dll" 1 > "$work/startup.jsonl" 2> "$work/startup.err" || { cat "$work/startup.err"; bad "startup tracing exited $?"; }
  first=$(head -n 1 "$work/startup.jsonl" | sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
  if grep -q '"name":"Loader/AssemblyLoad".*System.Private.CoreLib' "$work/startup.jsonl" &&
     grep -q '"name":"Method/LoadVerbose"' "$work/startup.jsonl" && [ "$first" = "Runtime/Start" ]; then
    ok "startup tracing: $(wc -l < "$work/startup.jsonl") events from Runtime/Start on, System.Private.CoreLib's load and the JIT included"
  else
    head -n 3 "$work/startup.jsonl"; bad "startup tracing missed the runtime's first events (first: $first)"
  fi
}

# 3. latency: RoundStart carries DateTime.UtcNow.Ticks
latency_part() {
  python3 - "$trace" "$wpid" <<'PY' || fail=1
import json, subprocess, sys, time, statistics
trace, pid = sys.argv[1], sys.argv[2]
p = subprocess.Popen([trace, "collect", "-p", pid, "--providers", "Clretw-Workload:0xFFFFFFFFFFFFFFFF:5", "--duration", "6s",
                      "--print", "json", "--no-progress", "-o", "/dev/null"], stdout=subprocess.PIPE, text=True)
delays = []
for line in p.stdout:
    arrived = time.time()
    e = json.loads(line)
    if e["name"] == "RoundStart/Start":
        sent = (e["fields"]["UtcTicks"] - 621355968000000000) / 1e7
        delays.append(arrived - sent)
p.wait()
if len(delays) < 3:
    print(f"FAIL: only {len(delays)} RoundStart events arrived in 6 s")
    sys.exit(1)
median = statistics.median(delays)
print(f"{'ok' if median < 1.0 else 'FAIL'}: {len(delays)} events, delay from the event to its line: median {median*1000:.0f} ms, max {max(delays)*1000:.0f} ms")
sys.exit(0 if median < 1.0 else 1)
PY
}

# 7. side by side with dotnet-trace
reference_part() {
  "$work/tools/dotnet-trace" collect -p "$wpid" --profile gc-verbose --duration 00:00:00:05 -o "$work/dotnet-trace.nettrace" \
    > "$work/dotnet-trace.log" 2>&1 &
  dpid=$!
  "$trace" collect -p "$wpid" --profile gc-verbose --duration 5s -o "$work/ours.nettrace" --no-progress
  wait "$dpid"
  "$dump" --stats "$work/dotnet-trace.nettrace" > "$work/dt-stats.txt" 2>&1
  "$dump" --stats "$work/ours.nettrace" > "$work/ours-stats.txt" 2>&1
  python3 - "$work/dt-stats.txt" "$work/ours-stats.txt" <<'PY' || fail=1
import re, sys
def counts(path):
    out = {}
    for line in open(path):
        m = re.match(r"\s+(\d+)  (\S.*) \(", line)
        if m:
            out[m.group(2)] = int(m.group(1))
    return out
theirs, ours = counts(sys.argv[1]), counts(sys.argv[2])
# Types seen more than a few times in one file must be in the other, at a similar count (the two
# sessions start and stop a few milliseconds apart).
bad = [t for t in set(theirs) | set(ours) if max(theirs.get(t, 0), ours.get(t, 0)) >= 5 and
       not (0.5 <= (ours.get(t, 0) + 1) / (theirs.get(t, 0) + 1) <= 2.0)]
for t in sorted(bad):
    print(f"  {t}: dotnet-trace {theirs.get(t, 0)}, clretw-trace {ours.get(t, 0)}")
print(f"{'FAIL' if bad else 'ok'}: side by side with dotnet-trace: {len(theirs)} event types there, {len(ours)} here, "
      f"{sum(theirs.values())} and {sum(ours.values())} events, {len(bad)} types apart")
sys.exit(1 if bad else 0)
PY
}

case $part in
  sessions) sessions_part ;;
  latency) latency_part ;;
  reference) reference_part ;;
esac
kill "$wpid" 2>/dev/null
exit $fail
