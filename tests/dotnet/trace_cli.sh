#!/bin/sh
# clretw-trace on dotnet-trace 10's conventions, against real .NET 10 processes (tests/dotnet/workload):
#   1. a command that does not exist, and one that is not .NET, fail at once, naming the cause, with no file;
#   2. a child's exit status is clretw-trace's: `workload exit 134` (a complete trace) and `workload crash`
#      (SIGABRT); --show-child-io shows its output, which is hidden without it;
#   3. -p PID --profile dotnet-common,gc-verbose --duration 00:00:00:05 writes <app>_<yyyyMMdd>_<HHmmss>.nettrace
#      that clretw-dump reads with 0 malformed, after the table of providers (the profiles' union) on stderr;
#   4. -n NAME, --dport PATH (the runtime connects) and --dport PATH,connect find the process;
#   5. keyword names in --providers, --clrevents, --rundown false, a misspelled provider named with the
#      nearest known one, --buffering-mode Block refused by .NET 10 with the reason;
#   6. the stopping event ends the session at the first GC/Start with Reason Induced;
#   7. events the runtime lost (a 1 MB buffer) are counted and reported;
#   8. --format Speedscope and Chromium write their files beside the trace; convert and report topN;
# Those are the part "cli" (the CTest test dotnet_trace_cli). The part "reference" (dotnet_trace_cli_reference)
# runs no workload:
#   9. list-profiles lists every profile dotnet-trace 10 lists, and every option of dotnet-trace collect
#      --help is an option of clretw-trace collect or listed in the README with its reason (dotnet-trace
#      installed as a dotnet tool from NuGet; skipped, "SKIPPED: ..." and exit 0, when it cannot be installed).
#   trace_cli.sh cli|reference CLRETW_TRACE CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
if [ $# -lt 5 ]; then
  echo "usage: trace_cli.sh cli|reference CLRETW_TRACE CLRETW_DUMP WORK_DIR SOURCE_DIR" >&2
  exit 2
fi
part=$1 ttool=$2 dump=$3 work=$4 src=$5
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# A directory of its own per case: what it holds afterwards is what clretw-trace left.
fresh() { rm -rf "$work/$1" && mkdir -p "$work/$1" && cd "$work/$1"; }

# 9. against dotnet-trace's own list of profiles and options
reference_part() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIPPED: dotnet is not on the PATH; clretw-trace was not held to dotnet-trace's profiles and options"
    exit 0
  fi
  rm -rf "$work"
  fresh reference
  if ! timeout 300 dotnet tool install --tool-path "$work/tools" dotnet-trace > tool.log 2>&1; then
    echo "SKIPPED: dotnet-trace could not be installed as a dotnet tool; clretw-trace was not held to its profiles and options: $(tail -n 1 tool.log)"
    exit 0
  fi
  dt="$work/tools/dotnet-trace"
  "$ttool" list-profiles > ours.txt
  for p in $("$dt" list-profiles | sed -n 's/^\t\([a-z-]*\).*/\1/p'); do
    grep -q "^  $p" ours.txt || bad "list-profiles lacks dotnet-trace's profile $p"
  done
  [ "$fail" -eq 0 ] && ok "list-profiles lists every profile dotnet-trace lists"
  "$ttool" collect --help > help.txt
  missing=
  for opt in $("$dt" collect --help | grep -oE '^  (-[a-zA-Z?], )?--[a-z-]+(, --[a-z-]+)?' | grep -oE -- '--[a-z-]+'); do
    if ! grep -qE -- "(^| |,)$opt([ ,=]|$)" help.txt && ! grep -qF -- "\`$opt\`" "$src/README.md"; then missing="$missing $opt"; fi
  done
  [ -z "$missing" ] && ok "every option of $("$dt" --version | cut -d+ -f1)'s collect is clretw-trace's or in the README" ||
    bad "dotnet-trace collect options neither in clretw-trace collect --help nor in the README:$missing"
}

case $part in
  reference) reference_part; exit $fail ;;
  cli) ;;
  *) echo "trace_cli.sh: no part '$part' (cli or reference)" >&2; exit 2 ;;
esac
. "$src/tests/dotnet/workload.sh"
rm -rf "$work"
need_workload "$work" "$src" "clretw-trace's command line was not tried on real processes"
wl="$workload/workload.dll"
complete() {  # complete FILE: clretw-dump reads it to its end with 0 malformed
  "$dump" --stats "$1" > "$1.stats" 2>&1 && grep -Eq 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed' "$1.stats"
}

# 1. programs that cannot be traced
fresh missing
start=$(ms)
"$ttool" collect -- clretw-no-such-program > out.txt 2> err.txt
rc=$? took=$(( $(ms) - start ))
if [ "$rc" -ne 0 ] && grep -q "cannot run 'clretw-no-such-program': No such file or directory" err.txt && ! ls ./*.nettrace > /dev/null 2>&1; then
  ok "a command that does not exist: exit $rc in $took ms, the cause named, no file left"
else
  cat err.txt; ls; bad "collect -- clretw-no-such-program: exit $rc after $took ms"
fi
[ "$took" -lt 5000 ] || bad "collect -- clretw-no-such-program took $took ms: it waited for a runtime"
fresh notdotnet
start=$(ms)
"$ttool" collect -- sh -c 'exit 3' > out.txt 2> err.txt
rc=$? took=$(( $(ms) - start ))
if [ "$rc" -eq 1 ] && grep -q "'sh' ended (exit code 3) before its runtime connected" err.txt && ! ls ./*.nettrace > /dev/null 2>&1; then
  ok "a program that is not .NET: exit 1 in $took ms, named, no file left"
else
  cat err.txt; ls; bad "collect -- sh -c 'exit 3': exit $rc after $took ms"
fi

fresh existing
echo "an older trace" > old.nettrace
"$ttool" collect -p 999999 -o old.nettrace > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 1 ] && grep -q "no such process" err.txt && [ "$(cat old.nettrace)" = "an older trace" ] && [ "$(ls | wc -l)" -eq 3 ]; then
  ok "a session that never started leaves an existing -o file as it was, and creates none"
else
  cat err.txt; ls; bad "-p 999999 -o old.nettrace: exit $rc, or the file was changed"
fi

# 2. the child's exit status
fresh exit134
"$ttool" collect --profile gc-verbose -o t.nettrace -- dotnet "$wl" exit 134 > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 134 ] && complete t.nettrace; then
  ok "a child that exits 134: clretw-trace exits 134, the trace complete ($(grep '^events:' t.nettrace.stats | cut -d, -f1))"
else
  cat err.txt t.nettrace.stats; bad "workload exit 134: clretw-trace exited $rc, or the trace is not complete"
fi
grep -q "workload: exiting with 134" out.txt err.txt && bad "the child's output showed without --show-child-io"
fresh crash
"$ttool" collect --profile gc-verbose --show-child-io -o t.nettrace -- dotnet "$wl" crash > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 134 ] && grep -q "workload: crashing on purpose" err.txt && grep -q "the trace ends where the program ended" err.txt; then
  ok "a child that crashes (SIGABRT): exit 134, its stderr shown with --show-child-io, the cut trace said"
else
  cat err.txt; bad "workload crash: clretw-trace exited $rc"
fi

# A workload that runs until killed, for the cases that attach.
cd "$work"
dotnet "$wl" wait > "$work/wait.log" 2>&1 &
wpid=$!
trap 'kill $wpid 2>/dev/null' EXIT
for _ in $(seq 1 100); do "$ttool" ps 2>/dev/null | grep -Eq "^ *$wpid .*workload.dll wait" && break; sleep 0.1; done

fresh limit
timeout 120 "$ttool" collect --limit 5 --print json --profile gc-verbose -o t.nettrace -- dotnet "$wl" 1 > out.jsonl 2> err.txt
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l < out.jsonl)" -eq 5 ] && complete t.nettrace; then
  ok "--limit 5 live: 5 lines printed, the session stopped, the file complete ($(grep '^events:' t.nettrace.stats | cut -d, -f1))"
else
  cat err.txt; bad "--limit 5 live: exit $rc"
fi

# 3. -p with two profiles and dotnet-trace's duration; the default output name
fresh profiles
"$ttool" collect -p "$wpid" --profile dotnet-common,gc-verbose --duration 00:00:00:05 > out.txt 2> err.txt
rc=$?
file=$(ls | grep -E '^workload_[0-9]{8}_[0-9]{6}\.nettrace$')
if [ "$rc" -eq 0 ] && [ -n "$file" ] && complete "$file" &&
   grep -Eq '^Microsoft-Windows-DotNETRuntime +0x000000100003801F +Verbose\(5\) +--profile$' err.txt; then
  ok "-p --profile dotnet-common,gc-verbose --duration 00:00:00:05: $file, $(grep '^events:' "$file.stats" | cut -d, -f1), the union in the table"
else
  cat err.txt; ls; bad "-p --profile dotnet-common,gc-verbose: exit $rc, file '$file'"
fi

# 4. finding the process: -n, --dport PATH, --dport PATH,connect
fresh byname
"$ttool" collect -n workload --clrevents gc --duration 1s -o t.nettrace > out.txt 2> err.txt
if grep -q "^Process        : $wpid (workload)" err.txt && complete t.nettrace; then ok "-n workload traced pid $wpid"; else cat err.txt; bad "-n workload"; fi
# Sockets live in a short private folder: a Unix socket's path is limited (107 bytes on Linux), and the
# build tree may be anywhere.
ports=$(mktemp -d "${TMPDIR:-/tmp}/clretw-ports-XXXXXX")
trap 'kill $wpid 2>/dev/null; rm -rf "$ports"' EXIT
fresh dport
"$ttool" collect --dport "$ports/port.sock" --profile gc-collect -o t.nettrace > out.txt 2> err.txt &
tpid=$!
for _ in $(seq 1 100); do [ -S "$ports/port.sock" ] && break; sleep 0.05; done
DOTNET_DiagnosticPorts="$ports/port.sock" dotnet "$wl" exit 0 > /dev/null 2>&1
wait "$tpid"
rc=$?
if [ "$rc" -eq 0 ] && complete t.nettrace && grep -q "GC/Start" t.nettrace.stats; then
  ok "--dport PATH: the runtime connected, was traced from its start and resumed"
else
  cat err.txt; bad "--dport PATH: exit $rc"
fi
fresh connect
sock=$(ls /tmp/dotnet-diagnostic-"$wpid"-*-socket "${TMPDIR:-/tmp}"/dotnet-diagnostic-"$wpid"-*-socket 2>/dev/null | head -n 1)
"$ttool" collect --dport "$sock,connect" --clrevents gc --duration 1s -o t.nettrace > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 0 ] && complete t.nettrace; then ok "--dport PATH,connect: the process's own socket"; else cat err.txt; bad "--dport $sock,connect: exit $rc"; fi
# Paths over 107 bytes are reached on Linux (docs/tools/clretw-trace.md): clretw-trace listens at one (the
# runtime comes in by a short link to it) and connects to one (a long link to the process's socket).
long="$ports/$(printf 'l%.0s' $(seq 1 120)) ü"
mkdir "$long"
fresh dport_long
"$ttool" collect --dport "$long/port.sock" --profile gc-collect -o t.nettrace > out.txt 2> err.txt &
tpid=$!
for _ in $(seq 1 100); do [ -S "$long/port.sock" ] && break; sleep 0.05; done
ln -s "$long/port.sock" "$ports/l.sock"
DOTNET_DiagnosticPorts="$ports/l.sock" dotnet "$wl" exit 0 > /dev/null 2>&1
wait "$tpid"
rc=$?
if [ "$rc" -eq 0 ] && complete t.nettrace && grep -q "GC/Start" t.nettrace.stats && [ ! -e "$long/port.sock" ]; then
  ok "--dport PATH of $(printf %s "$long/port.sock" | wc -c) bytes: listened there, the runtime traced, the socket removed"
else
  cat err.txt; bad "--dport of a long path: exit $rc"
fi
fresh connect_long
ln -s "$sock" "$long/dotnet-diagnostic-socket"
"$ttool" collect --dport "$long/dotnet-diagnostic-socket,connect" --clrevents gc --duration 1s -o t.nettrace > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 0 ] && complete t.nettrace; then
  ok "--dport PATH,connect of $(printf %s "$long/dotnet-diagnostic-socket" | wc -c) bytes: reached"
else
  cat err.txt; bad "--dport LONG,connect: exit $rc"
fi

# 5. what is enabled
fresh keywords
"$ttool" collect -p "$wpid" --providers "Microsoft-Windows-DotNETRuntime:GC+Exception:5,Microsoft-Windows-DotNETRuntme:0x1" \
  --rundown false --duration 2s -o t.nettrace > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 0 ] && grep -Eq '^Microsoft-Windows-DotNETRuntime +0x0000000000008001 +Verbose\(5\) +--providers$' err.txt &&
   grep -q "did you mean Microsoft-Windows-DotNETRuntime" err.txt && complete t.nettrace && grep -q "Exception/Start" t.nettrace.stats &&
   ! grep -q "Microsoft-Windows-DotNETRuntimeRundown" t.nettrace.stats; then
  ok "keyword names (GC+Exception = 0x8001), the misspelled provider named, --rundown false: no rundown"
else
  cat err.txt t.nettrace.stats; bad "keyword names, provider warning or --rundown false"
fi
fresh clrevents
"$ttool" collect -p "$wpid" --clrevents gc+jit --clreventlevel verbose --duration 1s -o t.nettrace > out.txt 2> err.txt
grep -Eq '^Microsoft-Windows-DotNETRuntime +0x0000000000000011 +Verbose\(5\) +--clrevents$' err.txt &&
  ok "--clrevents gc+jit --clreventlevel verbose" || { cat err.txt; bad "--clrevents"; }
fresh block
"$ttool" collect -p "$wpid" --buffering-mode Block --duration 1s > out.txt 2> err.txt
rc=$?
if [ "$rc" -eq 1 ] && grep -q "Block buffering mode needs .NET 11" err.txt && [ -z "$(ls ./*.nettrace 2>/dev/null)" ]; then
  ok "--buffering-mode Block: .NET 10 refuses CollectTracing6, said, no file left"
else
  cat err.txt; ls; bad "--buffering-mode Block on .NET 10: exit $rc"
fi

# 6. the stopping event
fresh stopping
start=$(ms)
"$ttool" collect -p "$wpid" --clrevents gc --stopping-event-provider-name Microsoft-Windows-DotNETRuntime \
  --stopping-event-event-name GC/Start --stopping-event-payload-filter Reason:Induced --duration 60s -o t.nettrace > out.txt 2> err.txt
rc=$? took=$(( $(ms) - start ))
if [ "$rc" -eq 0 ] && grep -q "the stopping event Microsoft-Windows-DotNETRuntime/GC/Start came" err.txt && [ "$took" -lt 50000 ] &&
   complete t.nettrace && "$dump" --filter GC/Start t.nettrace | grep -q "Reason=Induced "; then
  ok "the stopping event GC/Start Reason:Induced ended the session after $took ms"
else
  cat err.txt; bad "the stopping event: exit $rc after $took ms"
fi

# 7. lost events
fresh lost
"$ttool" collect --buffersize 1 --providers "Microsoft-Windows-DotNETRuntime:0xFFFFFFFFFFFFFFFF:5,Clretw-Workload:0xFFFFFFFFFFFFFFFF:5" \
  -o t.nettrace -- dotnet "$wl" 2 > out.txt 2> err.txt
rc=$?
lost=$("$dump" --stats t.nettrace 2>/dev/null | sed -n 's/^lost events: \([0-9]*\);.*/\1/p')
if [ "$rc" -eq 0 ] && [ "${lost:-0}" -gt 0 ] && grep -q "the runtime lost $lost events" err.txt; then
  ok "a 1 MB buffer: the runtime lost $lost events, reported when the session ended (exit 0: a lossy session was asked for)"
elif [ "$rc" -eq 0 ] && [ "${lost:-0}" -eq 0 ] && ! grep -q "lost" err.txt; then
  ok "a 1 MB buffer lost nothing this time, and nothing was reported"
else
  cat err.txt; bad "lost events: exit $rc, $lost lost in the file"
fi

# 8. Speedscope and Chromium beside the trace; convert; report topN
fresh formats
"$ttool" collect --format Speedscope -o cpu.nettrace -- dotnet "$wl" cpu > out.txt 2> err.txt
rc=$?
"$ttool" convert cpu.nettrace --format chromium > conv.txt 2>&1
"$ttool" report cpu.nettrace topN -n 3 > top.txt 2> top.err
"$dump" --top 3 cpu.nettrace > dumptop.txt 2> /dev/null
if [ "$rc" -eq 0 ] && python3 - cpu.speedscope.json cpu.chromium.json <<'EOF'
import json, sys
speedscope = json.load(open(sys.argv[1]))
assert speedscope["profiles"] and any(f["name"].startswith("workload!Cpu.") for f in speedscope["shared"]["frames"]), "speedscope"
events = json.load(open(sys.argv[2]))["traceEvents"]
open_frames, last, leafs = {}, {}, set()
for e in events:
    if e["ph"] == "M":
        continue
    key = (e["pid"], e["tid"])
    assert e["ts"] >= last.get(key, 0), "time goes back"
    last[key] = e["ts"]
    stack = open_frames.setdefault(key, [])
    if e["ph"] == "B":
        stack.append(e["name"])
        leafs.add(e["name"])
    else:
        assert stack and stack.pop() == e["name"], "unbalanced"
assert all(not s for s in open_frames.values()), "frames left open"
assert any(n.startswith("workload!Cpu.Leaf") for n in leafs), "no Cpu.Leaf frames"
print(f"speedscope: {len(speedscope['profiles'])} threads; chromium: {len(events)} events, balanced, in time order")
EOF
then
  ok "--format Speedscope and convert --format chromium: valid files"
else
  cat err.txt conv.txt; bad "--format Speedscope / convert --format chromium"
fi
if diff top.txt dumptop.txt > /dev/null && [ "$(wc -l < top.txt)" -eq 4 ]; then
  ok "report topN -n 3: the table of clretw-dump --top 3 ($(sed -n 2p top.txt | awk '{print $NF}'))"
else
  cat top.txt top.err; bad "report topN"
fi

exit $fail
