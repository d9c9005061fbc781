#!/bin/sh
# clretw-dump and clretw-sample from the command line, in three parts, each a CTest test of its own:
#   cli     (dump_cli) formats, filters, statistics, time order, a damaged trace, what cannot be read, a
#           manifest given at run time, bad usage, on traces clretw-sample writes;
#   traces  (dump_cli_traces) the real traces of SHARED_DIR/traces;
#   etl     (dump_cli_etl) the ETL files of SHARED_DIR/etl.
# A part whose files are absent says so ("SKIPPED: ...") and exits 77, which CTest reports as skipped.
#   dump_cli.sh cli|traces|etl CLRETW_DUMP CLRETW_SAMPLE WORK_DIR MANIFEST_DIR [SHARED_DIR [GENERATOR]]
set -u
if [ $# -lt 5 ]; then
  echo "usage: dump_cli.sh cli|traces|etl CLRETW_DUMP CLRETW_SAMPLE WORK_DIR MANIFEST_DIR [SHARED_DIR [GENERATOR]]" >&2
  exit 2
fi
part=$1
shift
dump=$1 sample=$2 work=$3 manifests=$4 shared=${5:-} generator=${6:-yes}
mkdir -p "$work"
fail=0
skip() {  # skip WHY: this part cannot run here
  echo "SKIPPED: $*"
  exit 77
}
check() {  # check DESCRIPTION COMMAND...: the command must succeed
  desc=$1
  shift
  if ! "$@"; then
    echo "FAIL: $desc" >&2
    fail=1
  fi
}
# FIFOs and files without read permission go in a private folder of their own, removed at the end.
tmp=$(mktemp -d) || { echo "FAIL: mktemp -d" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
# says DESCRIPTION STATUS MESSAGE COMMAND...: the command exits with STATUS, its stderr exactly MESSAGE
says() {
  desc=$1 want_status=$2 want=$3
  shift 3
  "$@" > "$tmp/out" 2> "$tmp/err"
  got_status=$?
  got=$(cat "$tmp/err")
  if [ "$got_status" -ne "$want_status" ] || [ "$got" != "$want" ]; then
    printf 'FAIL: %s: exit %s (expected %s); stderr:\n%s\nexpected:\n%s\n' "$desc" "$got_status" "$want_status" "$got" "$want" >&2
    fail=1
  fi
}
# in_time_order FILE: in time order by default, the timestamps of clretw-dump's lines never go back, and
# every event is printed (as many lines as --file-order prints, and as text prints).
in_time_order() {
  t=$1
  "$dump" --format json "$t" 2>/dev/null | awk 'match($0, /"timestamp":-?[0-9]+/) { v = substr($0, RSTART + 12, RLENGTH - 12) + 0; if (NR > 1 && v < prev) back++; prev = v } END { print NR, back + 0 }' > "$work/order.out"
  read -r printed back < "$work/order.out"
  check "$(basename "$t"): timestamps never go back ($back steps back in $printed lines)" test "$back" -eq 0
  stored=$("$dump" --file-order "$t" 2>/dev/null | wc -l)
  check "$(basename "$t"): every event printed in time order ($printed of $stored)" test "$printed" -eq "$stored"
  lines=$("$dump" "$t" 2>/dev/null | wc -l)
  check "$(basename "$t"): text as many lines as JSON ($lines, $printed)" test "$lines" -eq "$printed"
}
# leaves_out_unrecorded FILE: text leaves out what the source did not record (EventPipe's unknown processor,
# the kernel's events of no process).
leaves_out_unrecorded() {
  n=$("$dump" "$1" 2>/dev/null | grep -Ec '(pid|tid|cpu)=4294967295')
  check "$(basename "$1"): no pid, tid or cpu 4294967295 in text ($n)" test "$n" -eq 0
}

# --- cli: traces clretw-sample writes ---------------------------------------------------------
cli_part() {
  trace="$work/sample.nettrace"
  check "sample writes a trace" "$sample" -o "$trace" >/dev/null
  check "sample V6, pointer size 4, uncompressed" "$sample" -o "$work/v6.nettrace" --format 6 --pointer-size 4 --uncompressed >/dev/null

  stats=$("$dump" --stats "$trace")
  check "stats reconcile with 0 unknown and 0 malformed" sh -c "printf '%s' \"\$1\" | grep -q '1005 counted = 1005 decoded + 0 unknown + 0 malformed'" _ "$stats"
  stats6=$("$dump" --stats "$work/v6.nettrace")
  check "V6 stats reconcile" sh -c "printf '%s' \"\$1\" | grep -q '1005 counted = 1005 decoded + 0 unknown + 0 malformed'" _ "$stats6"
  # Every format the sample writes reads back whole: NetPerf (3), and 4, whose metadata cannot declare arrays.
  for f in 3 4; do
    check "sample V$f" "$sample" -o "$work/v$f.trace" --format "$f" --pointer-size 4 >/dev/null
    st=$("$dump" --stats "$work/v$f.trace")
    check "V$f stats reconcile" sh -c "printf '%s' \"\$1\" | grep -q '1005 counted = 1005 decoded + 0 unknown + 0 malformed'" _ "$st"
  done

  # Standard input, a pipe and a FIFO are read once, as they come, to the same output as the file.
  "$dump" --format json "$trace" > "$work/all.json"
  "$dump" --format json - < "$trace" > "$work/stdin.json"
  check "standard input (-) reads as the file" cmp -s "$work/all.json" "$work/stdin.json"
  cat "$trace" | "$dump" --format json - > "$work/pipe.json"
  check "a pipe reads as the file" cmp -s "$work/all.json" "$work/pipe.json"


  # What cannot be read says why, exactly, with exit status 2: a missing file, a directory, a file without read
  # permission, an empty file, empty standard input, a FIFO whose writer writes nothing (and one that writes a
  # trace, which reads); FIFOs and such files in $tmp.
  says "a missing file" 2 "clretw-dump: $tmp/nosuch.nettrace: cannot open: No such file or directory" "$dump" "$tmp/nosuch.nettrace"
  says "a directory" 2 "clretw-dump: $tmp: cannot open: is a directory; name a file in it" "$dump" "$tmp"
  : > "$tmp/empty.nettrace"
  says "an empty file" 2 "clretw-dump: $tmp/empty.nettrace: cannot open: the file is empty (0 bytes)" "$dump" "$tmp/empty.nettrace"
  says "empty standard input" 2 "clretw-dump: -: cannot open: standard input ended before its first byte" \
    sh -c '"$1" --stats - < /dev/null' _ "$dump"
  # Without read permission. Root reads any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), as CI does: there the
  # tool runs with those capabilities out of its bounding set. The file must then be unreadable, or the case
  # proves nothing and fails.
  cp "$trace" "$tmp/secret.nettrace"
  chmod 000 "$tmp/secret.nettrace"
  unprivileged=""
  if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv > /dev/null 2>&1; then
      unprivileged="setpriv --bounding-set=-dac_override,-dac_read_search --"
    else
      echo "FAIL: running as root without setpriv (util-linux): a file without read permission cannot be checked" >&2
      fail=1
    fi
  fi
  if $unprivileged head -c 1 "$tmp/secret.nettrace" > /dev/null 2>&1; then
    echo "FAIL: $tmp/secret.nettrace (mode 000) is readable all the same: the permission case is not checked" >&2
    fail=1
  else
    says "a file without read permission" 2 "clretw-dump: $tmp/secret.nettrace: cannot open: Permission denied" \
      $unprivileged "$dump" "$tmp/secret.nettrace"
  fi
  if mkfifo "$tmp/fifo"; then
    # A writer that writes a trace: it reads as the file.
    timeout 60 sh -c 'cat "$1" > "$2"' _ "$trace" "$tmp/fifo" &
    says "a FIFO with a trace" 0 "" timeout 60 "$dump" --format json "$tmp/fifo"
    wait
    check "a FIFO reads as the file" cmp -s "$work/all.json" "$tmp/out"
    # A writer that opens it and writes nothing.
    timeout 60 sh -c ': > "$1"' _ "$tmp/fifo" &
    says "a FIFO whose writer writes nothing" 2 \
      "clretw-dump: $tmp/fifo: cannot open: the pipe was closed before its first byte (did the command that writes to it fail?)" \
      timeout 60 "$dump" "$tmp/fifo"
    wait
  else
    echo "FAIL: mkfifo $tmp/fifo" >&2
    fail=1
  fi
  "$dump" --resolve --format json - < "$trace" > "$work/resolved_stdin.json"
  check "--resolve on standard input: one pass, every event" test "$(wc -l < "$work/resolved_stdin.json")" -eq 1005
  head -c 1000 "$trace" | "$dump" --stats - > /dev/null 2> "$work/cut.err"
  status=$?
  check "a cut stream: exit 1 ($status) and the offset" sh -c "test $status -eq 1 && grep -q 'offset [0-9]' '$work/cut.err'"
  lines=$(wc -l < "$work/all.json")
  check "json: one line per event ($lines)" test "$lines" -eq 1005
  bad=$(grep -vc '^{"provider":.*"id":.*"version":.*"name":.*"symbol":.*"ms":.*"timestamp":.*"pid":.*"tid":.*"cpu":.*"fields":{' "$work/all.json")
  check "json: every line is an object with the required keys ($bad are not)" test "$bad" -eq 0
  check "json: stacks are arrays" grep -q '"stack":\[[0-9]' "$work/all.json"

  gc=$("$dump" --filter '*/GC/Start' "$trace" | wc -l)
  check "filter by glob ($gc GC/Start)" test "$gc" -eq 25
  ids=$("$dump" --id 1 --id 2 "$trace" | wc -l)
  check "filter by ids ($ids: GC/Start, GC/Stop and the app's event 1)" test "$ids" -eq 150
  early=$("$dump" --to 0.1 "$trace" | wc -l)
  check "filter by time ($early before 0.1 ms)" test "$early" -eq 8
  check "--stats counts the same events before 0.1 ms" sh -c "\"\$1\" --stats --to 0.1 \"\$2\" | grep -q '8 counted = 8 decoded'" _ "$dump" "$trace"
  late=$("$dump" --from 0.1 "$trace" | wc -l)
  check "--stats counts the $late events from 0.1 ms on" sh -c "\"\$1\" --stats --from 0.1 \"\$2\" | grep -q \"\$3 counted = \$3 decoded\"" _ "$dump" "$trace" "$late"
  limited=$("$dump" --limit 5 --format csv "$trace" | wc -l)
  check "csv with header, limit 5" test "$limited" -eq 6
  check "level filter keeps errors only" sh -c "\"\$1\" --level 2 \"\$2\" | grep -q 'Exception/Start'" _ "$dump" "$trace"
  sorted=$("$dump" --sorted --format csv "$trace" | tail -n +2 | cut -d, -f1 | sort -c -n 2>&1 && echo ordered)
  check "sorted output is in time order" test "$sorted" = ordered
  check "--sorted (the default) and --file-order do not combine" sh -c "\"\$1\" --sorted --file-order \"\$2\" >/dev/null 2>&1; test \$? -eq 2" _ "$dump" "$trace"

  # A damaged trace: the events before the damage, then exit 1 with the block and byte offset.
  size=$(wc -c < "$trace")
  head -c $((size / 2)) "$trace" > "$work/cut.nettrace"
  "$dump" --stats "$work/cut.nettrace" > "$work/cut.out" 2> "$work/cut.err"
  status=$?
  check "damaged trace: exit 1 (got $status)" test "$status" -eq 1
  check "damaged trace: error names the block and byte" grep -q 'Block #[0-9]* at byte [0-9]*' "$work/cut.err"
  check "damaged trace: events before the damage are counted" grep -q 'in file (before the damage)' "$work/cut.out"

  # Decoding with a manifest at run time (the built-in ones, loaded from XML); a build without the
  # generator refuses it: exit 2, saying why.
  if [ "$generator" = yes ]; then
    check "--manifest decodes the same" sh -c "\"\$1\" --stats --manifest \"\$2/ClrEtwBuiltin.man\" \"\$3\" | grep -q '1005 decoded'" _ "$dump" "$manifests" "$trace"
  else
    "$dump" --stats --manifest "$manifests/ClrEtwBuiltin.man" "$trace" > /dev/null 2> "$work/nogen.err"
    check "--manifest without the generator: exit 2" test $? -eq 2
    check "--manifest without the generator: says it needs it" grep -q -- "--manifest .*needs clretw's generator" "$work/nogen.err"
  fi

  "$dump" /nonexistent.nettrace 2>/dev/null
  check "missing trace: exit 2" test $? -eq 2
  "$dump" --format xml "$trace" 2>/dev/null
  check "bad option: exit 2" test $? -eq 2
  check "--help explains" sh -c "\"\$1\" --help | grep -q -- '--manifest'" _ "$dump"
  # A file that is no trace of any format: exit 2 and a message saying which formats were looked for; an empty one too.
  printf 'hello, this is not a trace at all, not even close to one; just text.\n%.0s' 1 2 > "$work/text.etl"
  "$dump" --stats "$work/text.etl" > /dev/null 2> "$work/text.err"
  check "not a trace: exit 2" test $? -eq 2
  check "not a trace: says what was looked for" grep -q 'not a trace clretw reads: no nettrace, NetPerf or ETL header' "$work/text.err"
}

# --- traces: the real traces of ../shared/traces ---------------------------------------------
# With no flags, every event of every provider decodes with the built-in decoders (0 unknown, 0 malformed),
# and none has bytes beyond its version's layout; with the newest ClrEtwAll.man loaded at run time as well,
# the same.
traces_part() {
  [ -n "$shared" ] && [ -d "$shared/traces" ] ||
    skip "$shared/traces is absent (../shared): clretw-dump was not run on the real traces"
  for t in "$shared"/traces/*.nettrace "$shared"/traces/*.netperf; do
    [ -f "$t" ] || continue
    out=$("$dump" --stats "$t")
    check "$(basename "$t"): built-in decoders decode every event" sh -c "printf '%s' \"\$1\" | grep -Eq 'events: ([0-9]+) in file, \\1 counted = \\1 decoded \\+ 0 unknown \\+ 0 malformed'" _ "$out"
    check "$(basename "$t"): no event decoded with trailing bytes" sh -c "printf '%s' \"\$1\" | grep -q 'decoded with trailing bytes (newer versions): 0;'" _ "$out"
    [ "$generator" = yes ] || continue
    all=$("$dump" --stats --manifest "$shared/manifests/ClrEtwAll.runtime-main.man" "$t")
    check "$(basename "$t") with runtime-main: all decoded" sh -c "printf '%s' \"\$1\" | grep -Eq 'events: ([0-9]+) in file, \\1 counted = \\1 decoded \\+ 0 unknown \\+ 0 malformed'" _ "$all"
  done
  # Time order by default on every shared trace, nettrace and NetPerf (the ETL files: the etl part);
  # --file-order prints them as stored, which goes back in the .NET Core 3.0 trace (its threads' buffers
  # interleave).
  for t in "$shared"/traces/*.nettrace "$shared"/traces/*.netperf; do
    [ -f "$t" ] || continue
    in_time_order "$t"
  done
  objver4="$shared/traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"
  if [ -f "$objver4" ]; then
    back=$("$dump" --file-order --format json "$objver4" | awk 'match($0, /"timestamp":-?[0-9]+/) { v = substr($0, RSTART + 12, RLENGTH - 12) + 0; if (NR > 1 && v < prev) back++; prev = v } END { print back + 0 }')
    check "--file-order: the .NET Core 3.0 trace as stored goes back in time ($back steps)" test "$back" -gt 0
  fi
  if [ -f "$objver4" ]; then
    # --filter reads names as clretw-gen config does: the display name, a symbol with or without its
    # version, a provider qualifier (full or short name), any case, and the old PROVIDER/NAME glob.
    for f in GC/Start gc/start GCStart GCStart_V2 'DotNETRuntime:GC/Start' 'Microsoft-Windows-DotNETRuntime/GC/Start' \
             'DotNETRuntime/GC/Start' '*/GC/Start' '*Runtime/GC/St*rt'; do
      n=$("$dump" --filter "$f" "$objver4" 2> "$work/filter.err" | wc -l)
      check "--filter '$f': the 478 GC/Start events ($n)" test "$n" -eq 478
      check "--filter '$f': no warning" test ! -s "$work/filter.err"
    done
    "$dump" --stats --filter GC "$objver4" > "$work/keyword.out"
    check "--filter GC: the keyword's events (GC/Start)" grep -q ' 478  Microsoft-Windows-DotNETRuntime/GC/Start (1 v2)' "$work/keyword.out"
    check "--filter GC: not the samples" test "$(grep -c 'Thread/Sample' "$work/keyword.out")" -eq 0
    n=$("$dump" --filter 'DotNETRuntimeRundown:GC/Start' "$objver4" 2>/dev/null | wc -l)
    check "--filter with another provider's qualifier: none ($n)" test "$n" -eq 0
    # A name that chooses nothing says so, with the nearest names; the exit status is unchanged.
    n=$("$dump" --filter GC/Strat "$objver4" 2> "$work/typo.err" | wc -l)
    status=$?
    check "--filter GC/Strat: nothing printed ($n), exit 0 ($status)" test "$n" -eq 0 -a "$status" -eq 0
    check "--filter GC/Strat: a warning naming GC/Start" grep -q "filter 'GC/Strat' matches no event.*nearest: .*GC/Start" "$work/typo.err"
    # Method/Load was three events (141, 159, 160); 159 is now Method/R2RGetEntryPoint, as TraceEvent names
    # it: its own line in --stats, chosen by its name or symbol, not by Method/Load.
    "$dump" --stats "$objver4" > "$work/stats4.out"
    check "--stats: 1547 Method/R2RGetEntryPoint" grep -q ' 1547  Microsoft-Windows-DotNETRuntime/Method/R2RGetEntryPoint (159 v0)$' "$work/stats4.out"
    check "--stats: no Method/Load in this trace" test "$(grep -c '/Method/Load ' "$work/stats4.out")" -eq 0
    n=$("$dump" --filter R2RGetEntryPoint "$objver4" | grep -c 'Method/R2RGetEntryPoint (159 v0)')
    check "--filter R2RGetEntryPoint (a symbol): its 1547 events ($n)" test "$n" -eq 1547
    n=$("$dump" --filter '*/Method/Load' "$objver4" 2> "$work/load.err" | wc -l)
    check "--filter '*/Method/Load': not R2RGetEntryPoint ($n), no warning (MethodLoad is known)" sh -c "test $n -eq 0 && test ! -s '$work/load.err'"
    # Text: sizes and counts in decimal, addresses in hex.
    line=$("$dump" --filter GC/AllocationTick --limit 1 "$objver4")
    check "text: AllocationAmount in decimal, TypeID and Address in hex" sh -c "printf '%s' \"\$1\" | grep -q 'AllocationAmount=104096 .*AllocationAmount64=104096 TypeID=0x7ffea911ea28 .*Address=0x19a00017fe8'" _ "$line"
    line=$("$dump" --filter GC/HeapStats --limit 1 "$objver4")
    check "text: GC/HeapStats' sizes in decimal" sh -c "printf '%s' \"\$1\" | grep -q 'GenerationSize0=24 TotalPromotedSize0=175504 GenerationSize1=209352'" _ "$line"
  fi
  # Hints never repeat the option given: --top with an allocation filter on a trace without allocations.
  checkpoints="$shared/traces/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace"
  if [ -f "$checkpoints" ]; then
    "$dump" --top 5 --filter GC/AllocationTick "$checkpoints" > /dev/null 2> "$work/hint.err"
    check "--top --filter GC/AllocationTick: says the filter chose nothing" grep -q 'no event of the trace is one --filter or --id chose' "$work/hint.err"
    check "--top --filter GC/AllocationTick: suggests no filter" test "$(grep -c 'e.g. --filter' "$work/hint.err")" -eq 0
    "$dump" --top 5 "$checkpoints" > /dev/null 2> "$work/hint.err"
    check "--top without a filter: suggests one" grep -q 'e.g. --filter GC/AllocationTick' "$work/hint.err"
  fi
  # Text leaves out what the source did not record: EventPipe's unknown processor.
  for t in "$shared"/traces/*.nettrace "$shared"/traces/*.netperf; do
    [ -f "$t" ] || continue
    leaves_out_unrecorded "$t"
  done
  arraytypes="$shared/traces/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace"
  if [ -f "$arraytypes" ]; then
    check "arraytypes (no processors recorded): 'tid=N  fields'" sh -c "\"\$1\" --limit 1 \"\$2\" | grep -q 'pid=26240 tid=23560  arg0='" _ "$dump" "$arraytypes"
    check "JSON leaves out the processor it does not know, as text does" sh -c "\"\$1\" --format json --limit 1 \"\$2\" | grep -q '\"tid\":23560,\"level\"'" _ "$dump" "$arraytypes"
    check "CSV leaves its cpu cell empty" sh -c "\"\$1\" --format csv --limit 1 \"\$2\" | sed -n 2p | grep -q ',26240,23560,,'" _ "$dump" "$arraytypes"
  fi
  # The NetPerf file of .NET Core 2.1 (format 3), read by content: every event, each with its stack.
  netperf="$shared/traces/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf"
  if [ -f "$netperf" ]; then
    np=$("$dump" --stats "$netperf")
    check "NetPerf: 26146 events, all decoded" sh -c "printf '%s' \"\$1\" | grep -q 'events: 26146 in file, 26146 counted = 26146 decoded + 0 unknown + 0 malformed'" _ "$np"
    check "NetPerf: 26146 stacks" sh -c "printf '%s' \"\$1\" | grep -q 'events with a stack: 26146;'" _ "$np"
  fi
}

# --- etl: the ETL files of ../shared/etl -----------------------------------------------------
# Read by content: EventSource providers decode with the manifests they wrote into the trace (ManifestData
# events), kernel events with manifest/WindowsKernel.man, process names from the kernel's Process events;
# --filter and JSON work as for nettrace.
etl_part() {
  etl="$shared/etl/net.4.5.2.x64.etl"
  [ -n "$shared" ] && [ -f "$etl" ] || skip "$etl is absent (../shared): clretw-dump was not run on the ETL files"
  # An ETL file is not read from standard input: exit 2, saying a file on disk is needed.
  "$dump" --stats - < "$etl" > /dev/null 2> "$work/etl.err"
  status=$?
  check "ETL on standard input: exit 2 ($status), a file on disk needed" sh -c "test $status -eq 2 && grep -q 'file on disk' '$work/etl.err'"
  says "ETL on standard input: the message" 2 \
    "clretw-dump: -: cannot open: an ETL file is read from a file on disk, not from a pipe or standard input (save it to a file first)" \
    sh -c '"$1" --stats - < "$2"' _ "$dump" "$etl"
  # Time order by default on every shared ETL file; text leaves out the kernel's events of no process.
  for t in "$shared"/etl/*.etl; do
    [ -f "$t" ] || continue
    in_time_order "$t"
    leaves_out_unrecorded "$t"
  done
  st=$("$dump" --stats "$etl" 2> "$work/etl-stats.err")
  check "ETL: the summary line" sh -c "printf '%s' \"\$1\" | grep -q 'etl, pointer size 8, 8 processors, 360 buffers (359 compressed)'" _ "$st"
  check "ETL: 0 malformed" sh -c "printf '%s' \"\$1\" | grep -Eq 'events: 179474 in file, 179474 counted = [0-9]+ decoded \+ [0-9]+ unknown \+ 0 malformed'" _ "$st"
  if [ "$generator" = yes ]; then
    check "ETL: TplEventSource decoded from its manifest in the trace" sh -c "printf '%s' \"\$1\" | grep -q ' 3  System.Threading.Tasks.TplEventSource/TaskExecute/Start (8 v0)\$'" _ "$st"
    check "ETL: PerfView's own events decoded from its manifest in the trace" sh -c "printf '%s' \"\$1\" | grep -q ' 53  PerfView/PerfViewLog (22 v0)\$'" _ "$st"
    check "ETL: nothing said of the manifests in the trace" test ! -s "$work/etl-stats.err"
  else  # their events stay unknown, counted all the same; each manifest is named once, as needing the generator
    check "ETL without the generator: TplEventSource's manifest needs it" sh -c "test \$(grep -c \"System.Threading.Tasks.TplEventSource (.*) in the trace needs clretw's generator\" '$work/etl-stats.err') -eq 1"
    check "ETL without the generator: PerfView's manifest needs it" sh -c "test \$(grep -c \"provider PerfView (.*) in the trace needs clretw's generator\" '$work/etl-stats.err') -eq 1"
    check "ETL without the generator: PerfView's events stay unknown" sh -c "printf '%s' \"\$1\" | grep -q ' 53  a8a71ac1-040f-54a2-07ca-00a89b5ab761/EventID(22) (22 v0 unknown)\$'" _ "$st"
  fi
  check "ETL: kernel samples decoded" sh -c "printf '%s' \"\$1\" | grep -q ' 79528  Windows Kernel/PerfInfo/Sample (3886 v2)\$'" _ "$st"
  js=$("$dump" --format json --filter 'Windows Kernel/Process/DCStart' --limit 2 "$etl")
  check "ETL: process names in JSON" sh -c "printf '%s' \"\$1\" | grep -q '\"pid\":4,\"process\":\"System\"'" _ "$js"
}

case $part in
  cli) cli_part ;;
  traces) traces_part ;;
  etl) etl_part ;;
  *) echo "dump_cli.sh: no part '$part' (cli, traces or etl)" >&2; exit 2 ;;
esac
exit $fail
