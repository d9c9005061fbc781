#!/bin/sh
# Reports from the command line: clretw-dump --report.
#   report_cli.sh CLRETW_DUMP CLRETW_SAMPLE WORK_DIR SHARED_DIR
# - A trace clretw-sample writes: the GC table has one row per GC/Start event, JSON lines carry the
#   keys a loader expects, CSV has its header once, the allocation --top is weighted by bytes and
#   agrees with the allocation report's total; --top's header names its unit (samples, bytes, events).
# - The summary says which figures the trace did not record, and the keyword that records each.
# - Several traces: one table with a trace column.
# - A trace with no GC events: an empty report that says so, exit 0.
# - A damaged trace (cut short): the report of what came before, the offset on stderr, exit 1.
# - The shared real traces (nettrace, NetPerf, ETL): reports without error.
# Options that do not combine are refused by name (exit 2).
set -u
dump=$1 sample=$2 work=$3 shared=$4
rm -rf "$work" && mkdir -p "$work"
fail=0
say_fail() {
  echo "FAIL: $*" >&2
  fail=1
}
"$sample" --size-mb 4 -o "$work/app.nettrace" > /dev/null || { echo "FAIL: clretw-sample"; exit 1; }
trace=$work/app.nettrace

# GCs: one JSON line per GC/Start (the sample writes every GC whole), with the keys loaders expect.
starts=$("$dump" --stats "$trace" | awk '/DotNETRuntime\/GC\/Start / { print $1 }')
"$dump" --report gc --format json "$trace" > "$work/gc.jsonl" || say_fail "--report gc --format json exited $?"
rows=$(wc -l < "$work/gc.jsonl")
[ "$rows" -gt 0 ] && [ "$rows" -eq "$starts" ] || say_fail "$rows GC rows for $starts GC/Start events"
for key in '"table":"gc"' '"trace":"app.nettrace"' '"pid":' '"gc":' '"generation":' '"type":"NonConcurrentGC"' '"reason":"AllocSmall"' \
           '"start_ms":' '"pause_ms":' '"suspend_ms":' '"heap_before_mb":' '"heap_after_mb":' '"promoted_mb":'; do
  grep -q "$key" "$work/gc.jsonl" || say_fail "the GC lines have no $key"
done
python3 - "$work/gc.jsonl" <<'EOF' || say_fail "the GC lines are not JSON objects with numbers where numbers belong"
import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    for k in ("gc", "generation", "start_ms", "pause_ms", "suspend_ms", "heap_after_mb", "promoted_mb"):
        assert isinstance(row[k], (int, float)), (k, row)
    assert row["pause_ms"] >= row["suspend_ms"] >= 0, row
EOF

# CSV: the header once, one row per GC; several traces: one table, a trace column.
cp "$trace" "$work/copy.nettrace"
"$dump" --report gc --format csv "$trace" "$work/copy.nettrace" > "$work/gc.csv" || say_fail "--report gc --format csv exited $?"
[ "$(grep -c '^trace,pid,gc,' "$work/gc.csv")" -eq 1 ] || say_fail "the CSV header is not there exactly once"
[ "$(grep -c '^app.nettrace,' "$work/gc.csv")" -eq "$starts" ] || say_fail "the CSV has not $starts rows of app.nettrace"
[ "$(grep -c '^copy.nettrace,' "$work/gc.csv")" -eq "$starts" ] || say_fail "the CSV has not $starts rows of copy.nettrace"

# Allocations: --top weighs stacks by bytes, and its total is the allocation report's.
"$dump" --report alloc --format json "$trace" > "$work/alloc.jsonl" || say_fail "--report alloc exited $?"
"$dump" --filter '*/GC/AllocationTick' --top 3 "$trace" > "$work/top.txt" 2> "$work/top.err" || say_fail "--top exited $?"
[ "$(head -n 1 "$work/top.txt")" = " exclusive bytes    inclusive bytes    method  (bytes allocated, estimated from the allocation events)" ] ||
  say_fail "--top over allocation ticks: its header does not say bytes: $(head -n 1 "$work/top.txt")"
python3 - "$work/alloc.jsonl" "$work/top.txt" <<'EOF' || say_fail "--top's allocated bytes differ from the allocation report's"
import json, sys
total = sum(json.loads(l)["mb"] for l in open(sys.argv[1])) * 1e6
top = max(int(l.split()[2]) for l in open(sys.argv[2]).readlines()[1:])  # the root's inclusive bytes
assert total > 0 and abs(top - total) <= 0.5 * 1e-6 * total + 1000, (top, total)
EOF

# The unit of --top's counts, in its header: CPU samples, an allocation's bytes (above), or one per event chosen.
# (Files of the checks below: in a private folder of their own, removed at the end.)
tmp=$(mktemp -d) || { echo "FAIL: mktemp -d"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
"$dump" --top 3 "$trace" > "$tmp/top.txt" 2> "$tmp/top.err"
status=$?
[ "$status" -eq 0 ] && [ "$(head -n 1 "$tmp/top.txt")" = " exclusive samples  inclusive samples  method" ] ||
  say_fail "--top over CPU samples: exit $status, header '$(head -n 1 "$tmp/top.txt")'"
grep -q '^clretw-dump: [0-9]* samples on [0-9]* threads' "$tmp/top.err" || say_fail "--top over CPU samples: the summary line: $(cat "$tmp/top.err")"
"$dump" --top 3 --filter Exception/Start "$trace" > "$tmp/top.txt" 2> "$tmp/top.err"
status=$?
[ "$status" -eq 0 ] && [ "$(head -n 1 "$tmp/top.txt")" = " exclusive events   inclusive events   method" ] ||
  say_fail "--top over exceptions: exit $status, header '$(head -n 1 "$tmp/top.txt")'"
grep -q '^clretw-dump: [0-9]* events on [0-9]* threads' "$tmp/top.err" || say_fail "--top over exceptions: the summary line: $(cat "$tmp/top.err")"

# The summary: a figure whose keyword no event of the trace carries is not recorded, and a line says which
# keyword records it (clretw-sample records no CompilationDiagnostic and no Threading event). A filter that
# keeps a keyword's events from the report does not make it unrecorded.
"$dump" --report summary "$trace" > "$tmp/summary.txt" 2> "$tmp/summary.err"
status=$?
[ "$status" -eq 0 ] && [ ! -s "$tmp/summary.err" ] || say_fail "--report summary: exit $status: $(cat "$tmp/summary.err")"
for line in \
  '  precompiled (R2R) methods not recorded: the trace has no event of keyword CompilationDiagnostic (0x2000000000) at level 4 (informational) or a more verbose level; record it for this figure' \
  '  thread pool not recorded: the trace has no event of keyword Threading (0x10000) at level 4 (informational) or a more verbose level; record it for this figure'; do
  grep -qxF "$line" "$tmp/summary.txt" || say_fail "--report summary has no line '$line': $(cat "$tmp/summary.txt")"
done
grep -Eqx '  JIT: [0-9,]+ methods in [0-9.,]+ ms; precompiled \(R2R\) methods used: not recorded' "$tmp/summary.txt" ||
  say_fail "--report summary: the JIT line does not say R2R methods were not recorded"
grep -Eqx '  exceptions: [1-9][0-9,]*; lock contention: [1-9][0-9,]* \([0-9.,]+ ms\); thread pool: not recorded' "$tmp/summary.txt" ||
  say_fail "--report summary: the exceptions line does not say the thread pool was not recorded"
[ "$(grep -c 'not recorded:' "$tmp/summary.txt")" -eq 2 ] || say_fail "--report summary: not 2 figures not recorded: $(cat "$tmp/summary.txt")"
"$dump" --report summary --filter 'GC/*' "$trace" > "$tmp/filtered.txt"
grep -Eqx '  exceptions: 0; lock contention: 0 \(0.0 ms\); thread pool: not recorded' "$tmp/filtered.txt" ||
  say_fail "--report summary --filter 'GC/*': exceptions and contention filtered out are 0, not unrecorded: $(cat "$tmp/filtered.txt")"
"$dump" --report summary --format json "$trace" | grep -q '"not_recorded":"r2r_methods max_workers"}$' ||
  say_fail "--report summary --format json: no not_recorded column naming r2r_methods and max_workers"
"$dump" --report threadpool "$trace" > "$tmp/pool.txt"
grep -qxF 'no thread pool events in the trace (keyword Threading (0x10000) at level 4 (informational) gives them; the trace has no event of it: it was not recorded)' \
  "$tmp/pool.txt" || say_fail "--report threadpool: the empty table does not say its keyword was not recorded: $(cat "$tmp/pool.txt")"

# Text: the summary and every table; HTML only with --report.
"$dump" --report all "$trace" > "$work/all.txt" || say_fail "--report all exited $?"
for title in 'GCs: ' 'paused: ' 'GCs (ms since the trace start' 'Allocations by type' 'JIT: methods per tier' 'Exceptions by type' \
             'Lock contention'; do
  grep -q "$title" "$work/all.txt" || say_fail "--report all has no '$title'"
done

# No GC events: an empty report that says so, exit 0.
if [ -f "$shared/traces/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace" ]; then
  "$dump" --report gc "$shared/traces/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace" > "$work/nogc.txt" 2>&1 ||
    say_fail "a trace without GCs: exit $?"
  grep -q 'no GC events in the trace' "$work/nogc.txt" || say_fail "a trace without GCs does not say so"
fi

# Damage: what came before, where the damage is, exit 1.
size=$(wc -c < "$trace")
head -c $((size * 2 / 3)) "$trace" > "$work/cut.nettrace"
"$dump" --report gc --format json "$work/cut.nettrace" > "$work/cut.jsonl" 2> "$work/cut.err"
status=$?
[ "$status" -eq 1 ] || say_fail "a cut trace: exit $status, not 1"
grep -q 'offset' "$work/cut.err" || say_fail "a cut trace: no offset in the message: $(cat "$work/cut.err")"
cut_rows=$(wc -l < "$work/cut.jsonl")
[ "$cut_rows" -gt 0 ] && [ "$cut_rows" -lt "$rows" ] || say_fail "a cut trace: $cut_rows GC rows (the whole has $rows)"
"$dump" --report summary "$work/cut.nettrace" > "$work/cut.txt" 2>/dev/null
grep -q 'damaged; the report covers what came before' "$work/cut.txt" || say_fail "a cut trace: the text report does not say it is damaged"

# The shared real traces.
for t in "$shared"/traces/*.nettrace "$shared"/traces/*.netperf "$shared"/etl/*.etl; do
  [ -f "$t" ] || continue
  "$dump" --report all --format json "$t" > "$work/shared.jsonl" 2> "$work/shared.err" || say_fail "$t: --report all exited $?: $(cat "$work/shared.err")"
done

# Options that do not combine.
refused() {  # refused WHAT ARGS...: exit 2 with a message naming --report or --format
  what=$1
  shift
  "$dump" "$@" "$trace" > /dev/null 2> "$work/refused.err"
  s=$?
  [ "$s" -eq 2 ] && grep -Eq -- '--report|--format' "$work/refused.err" || say_fail "$what: exit $s: $(cat "$work/refused.err")"
}
refused "an unknown report" --report gc,heaps
refused "CSV of two reports" --report gc,alloc --format csv
refused "html without --report" --format html
refused "--report with --stats" --report gc --stats
refused "--report with folded" --report gc --format folded

[ "$fail" -eq 0 ] && echo "report_cli: $starts GCs, JSON, CSV of two traces, weighted --top, no GC, damage at $((size * 2 / 3)) bytes: all as expected"
exit $fail
