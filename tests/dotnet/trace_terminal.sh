#!/bin/sh
# clretw-trace collect at a terminal: a pseudo-terminal that tests/dotnet/pty_session.py types at, as a person
# would, against real .NET 10 processes (tests/dotnet/workload):
#   1. -p PID: "Press <Enter> or <Ctrl+C> to exit..." under the Process and Output File lines, no protocol
#      words; Enter stops the session as Ctrl-C does: clretw-trace exits 0 within seconds, the trace complete
#      with its rundown;
#   2. -v --duration 60s: the session's id and CollectTracing command too; Enter typed before the session is on
#      is discarded, and Enter then stops it long before the 60 s;
#   3. -- COMMAND: Enter, and then Ctrl-C, each stop the session of a program started for it, the trace
#      complete with its rundown (the program's standard input is /dev/null and Ctrl-C does not reach it:
#      clretw-trace interrupts it once the session has ended);
#   4. standard input not a terminal: "Ctrl-C stops the session", Enter is not read, Ctrl-C stops it;
#   5. --show-child-io: the program has the terminal, and Enter is left to it.
#   trace_terminal.sh CLRETW_TRACE CLRETW_DUMP WORK_DIR SOURCE_DIR
set -u
ttool=$1 dump=$2 work=$3 src=$4
. "$src/tests/dotnet/workload.sh"
rm -rf "$work"
need_workload "$work" "$src" "clretw-trace was not tried at a terminal"
if ! python3 -c 'import pty' 2>/dev/null; then
  echo "SKIPPED: no python3 with its pty module; clretw-trace was not tried at a terminal"
  exit 0
fi
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
wl="$workload/workload.dll"
driver="$src/tests/dotnet/pty_session.py"
# The processes' diagnostic sockets and clretw-trace's reverse ports go to a short private folder: a Unix
# socket's path is limited (107 bytes on Linux), and the build tree may be anywhere.
private=$(mktemp -d "${TMPDIR:-/tmp}/clretw-tty-XXXXXX")
TMPDIR=$private
export TMPDIR
# A directory of its own per case: what it holds afterwards is what clretw-trace left.
fresh() { rm -rf "$work/$1" && mkdir -p "$work/$1" && cd "$work/$1"; }
complete() {  # complete FILE: clretw-dump reads it to its end with 0 malformed
  "$dump" --stats "$1" > "$1.stats" 2>&1 && grep -Eq 'events: ([0-9]+) in file, \1 counted = \1 decoded \+ 0 unknown \+ 0 malformed' "$1.stats"
}
rundown() {  # rundown FILE: the stats of complete() hold the method rundown, to its end
  grep -q ' Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose ' "$1.stats" &&
    grep -q ' Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopComplete ' "$1.stats"
}
# at_terminal STEP... -- COMMAND...: runs the command on a terminal of its own (pty_session.py), which
# leaves what the terminal showed in tty.txt; sets rc (its exit status) and took (ms from the last key typed
# to its end). Returns 1, with the reason and the terminal, when a step failed.
at_terminal() {
  python3 "$driver" tty.txt "$@" > driver.txt 2>&1
  driven=$?
  rc=$(sed -n 's/^status //p' driver.txt) took=$(sed -n 's/^ms //p' driver.txt)
  [ "$driven" -eq 0 ] && return 0
  cat driver.txt tty.txt
  return 1
}
# lines_after FIRST N: the N lines the terminal showed after the line FIRST (exactly), FIRST included.
lines_after() { grep -xF -A "$2" -- "$1" tty.txt; }
press='Press <Enter> or <Ctrl+C> to exit...'

# A workload that runs until killed, for the cases that attach.
cd "$work"
dotnet "$wl" wait > "$work/wait.log" 2>&1 &
wpid=$!
trap 'kill $wpid 2>/dev/null; rm -rf "$private"' EXIT
for _ in $(seq 1 100); do "$ttool" ps 2>/dev/null | grep -Eq "^ *$wpid .*workload.dll wait" && break; sleep 0.1; done

# 1. -p PID, Enter
fresh enter
if at_terminal "wait:$press" 'send:\r' -- "$ttool" collect -p "$wpid" -o t.nettrace; then
  expected=$(printf 'Process        : %s (workload)\nOutput File    : %s/t.nettrace\n%s' "$wpid" "$(pwd -P)" "$press")
  if [ "$rc" -eq 0 ] && [ "$took" -lt 15000 ] && [ "$(lines_after "Process        : $wpid (workload)" 2)" = "$expected" ] &&
     grep -Eqx 'Trace completed: [0-9]+ bytes written to t\.nettrace' tty.txt && ! grep -q 'CollectTracing\|session [0-9]' tty.txt &&
     complete t.nettrace && rundown t.nettrace; then
    ok "-p PID at a terminal: '$press'; Enter stopped the session, exit 0 $took ms later, the trace complete with its rundown ($(grep '^events:' t.nettrace.stats | cut -d, -f1))"
  else
    cat tty.txt t.nettrace.stats; bad "-p PID, Enter: exit $rc $took ms after Enter, or the lines or the trace are not as they should be"
  fi
else
  bad "-p PID, Enter"
fi

# 2. -v; Enter typed too early is discarded; Enter before --duration's end
fresh verbose
if at_terminal 'send:\r' "wait:$press" 'hold:2' 'send:\r' -- "$ttool" collect -p "$wpid" -v --duration 60s --clrevents gc -o t.nettrace; then
  if [ "$rc" -eq 0 ] && [ "$took" -lt 15000 ] &&
     [ "$(lines_after "Trace Duration : 60s" 2 | sed 's/session [0-9][0-9]*,/session ID,/')" = "$(printf 'Trace Duration : 60s\nclretw-trace: session ID, started with CollectTracing2\n%s' "$press")" ] &&
     complete t.nettrace && rundown t.nettrace; then
    ok "-v: $(grep -o 'session [0-9]*, started with CollectTracing2' tty.txt); Enter typed before it was on was discarded; Enter stopped a --duration 60s session, exit 0 $took ms later, with its rundown"
  else
    cat tty.txt t.nettrace.stats; bad "-v --duration 60s, Enter: exit $rc $took ms after Enter, or the lines or the trace are not as they should be"
  fi
else
  bad "-v --duration 60s: Enter typed before the session was on stopped it, or Enter did not"
fi

# 3. -- COMMAND: Enter, then Ctrl-C
for key in Enter Ctrl-C; do
  [ "$key" = Enter ] && keys='\r' || keys='\x03'
  fresh "child_$key"
  if at_terminal "wait:$press" 'hold:1' "send:$keys" -- "$ttool" collect --clrevents gc -o t.nettrace -- dotnet "$wl" wait; then
    cpid=$(sed -n 's/^Process        : \([0-9]*\) (workload)$/\1/p' tty.txt)
    if [ "$rc" -eq 0 ] && [ "$took" -lt 15000 ] && [ -n "$cpid" ] && [ "$(lines_after "Process        : $cpid (workload)" 2 | tail -n 1)" = "$press" ] &&
       ! kill -0 "$cpid" 2>/dev/null && complete t.nettrace && rundown t.nettrace; then
      ok "-- COMMAND at a terminal: $key stopped the session, exit 0 $took ms later, the trace complete with its rundown, the program ended"
    else
      cat tty.txt t.nettrace.stats; bad "-- COMMAND, $key: exit $rc $took ms after it, or the program still runs, or the trace is not complete"
    fi
  else
    bad "-- COMMAND, $key"
  fi
done

# 4. standard input not a terminal: Enter is not read; Ctrl-C
fresh notty
if at_terminal --stdin-null 'wait:Ctrl-C stops the session' 'send:\r' 'hold:2' 'send:\x03' -- "$ttool" collect -p "$wpid" -o t.nettrace; then
  if [ "$rc" -eq 0 ] && [ "$(lines_after "Output File    : $(pwd -P)/t.nettrace" 1 | tail -n 1)" = "Ctrl-C stops the session" ] &&
     ! grep -qF "$press" tty.txt && complete t.nettrace && rundown t.nettrace; then
    ok "standard input not a terminal: 'Ctrl-C stops the session'; Enter was not read, Ctrl-C stopped it with its rundown"
  else
    cat tty.txt; bad "standard input not a terminal: exit $rc, or the lines or the trace are not as they should be"
  fi
else
  bad "standard input not a terminal: clretw-trace did not run until Ctrl-C"
fi

# 5. --show-child-io: the terminal is the program's
fresh showio
line='Ctrl-C stops the session and the program; Enter goes to the program (--show-child-io)'
if at_terminal "wait:$line" 'send:\r' 'hold:3' 'send:\x03' -- "$ttool" collect --show-child-io --clrevents gc -o t.nettrace -- dotnet "$wl" wait; then
  ! grep -qF "$press" tty.txt && ok "--show-child-io: '$line'; Enter was left to the program, Ctrl-C ended both" ||
    { cat tty.txt; bad "--show-child-io: the line for Enter was shown"; }
else
  bad "--show-child-io: Enter stopped the session, or Ctrl-C did not"
fi
exit $fail
