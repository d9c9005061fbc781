#!/bin/sh
# The report's CSV and JSON lines as data: `clretw-dump --report gc --format csv`, `--report alloc
# --format json` and `--report summary --format json` of two traces (one run each, the traces one after
# the other) are read by DuckDB (read_csv_auto, read_json_auto; duckdb_check.mjs with npm's
# @duckdb/node-api, installed into WORK_DIR/node_modules when it is not there yet), and
#   - its totals per trace - rows and sum(pause_ms) of the GC table, rows and sum(mb) of the allocation
#     table - must equal those of a plain awk pass over the same files (quoted CSV fields and JSON
#     strings included);
#   - they must agree with the summary's own totals: its GC count, pause time and MB allocated (summed
#     over the processes; the summary rounds to 0.001);
#   - the trace column must name both traces.
# The columns summed can be renamed with PAUSE_COLUMN and MB_COLUMN. Skipped when node or npm is
# missing, or when npm cannot install the package.
#   duckdb_check.sh CLRETW_DUMP TRACE1 TRACE2 WORK_DIR
set -u
if [ $# -ne 4 ]; then
  echo "usage: duckdb_check.sh CLRETW_DUMP TRACE1 TRACE2 WORK_DIR" >&2
  exit 2
fi
dump=$1 trace1=$2 trace2=$3 work=$4
for t in "$trace1" "$trace2"; do [ -f "$t" ] || { echo "SKIPPED: $t is absent (../shared)"; exit 0; }; done
here=$(cd "$(dirname "$0")" && pwd)
pause=${PAUSE_COLUMN:-pause_ms} mb=${MB_COLUMN:-mb}
for tool in node npm; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed; the DuckDB check did not run (apt-get install nodejs npm)"
    exit 0
  fi
done
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 1
if [ ! -f "$work/node_modules/@duckdb/node-api/package.json" ]; then
  if ! timeout 300 npm install --no-save --prefix "$work" --no-audit --no-fund --loglevel=error @duckdb/node-api \
       > "$work/npm.log" 2>&1; then
    tail -5 "$work/npm.log"
    echo "SKIPPED: npm could not install @duckdb/node-api (no registry?); the DuckDB check did not run"
    exit 0
  fi
fi

# report KIND FORMAT OUT: both traces' table, one run.
report() {
  timeout 300 "$dump" --report "$1" --format "$2" "$trace1" "$trace2" > "$3" 2> "$3.err"
  status=$?
  [ "$status" -le 1 ] || { cat "$3.err"; echo "FAIL: clretw-dump --report $1 --format $2 exited $status"; exit 1; }
  [ -s "$3" ] || { cat "$3.err"; echo "FAIL: clretw-dump --report $1 --format $2 wrote nothing"; exit 1; }
}
report gc csv "$work/gc.csv"
report alloc json "$work/alloc.jsonl"
report summary json "$work/summary.jsonl"
echo "duckdb_check: $(($(wc -l < "$work/gc.csv") - 1)) GC rows, $(wc -l < "$work/alloc.jsonl") allocation lines"

# DuckDB's totals.
if ! timeout 120 node "$here/duckdb_check.mjs" "$work/node_modules" "$work/gc.csv" "$work/alloc.jsonl" \
     "$work/summary.jsonl" "$pause" "$mb" \
     > "$work/duckdb.tsv" 2> "$work/duckdb.err"; then
  cat "$work/duckdb.err"
  echo "FAIL: DuckDB could not read the report"
  exit 1
fi
# The same totals by hand: kind, trace, rows, sum.
{
  tr -d '\r' < "$work/gc.csv" | awk -v col="$pause" '
    function split_csv(line,   i, c, f, q, n) {  # RFC 4180 fields of one line into F
      n = 0; f = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) { if (c != "\"") f = f c; else if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 }
        else if (c == "\"") q = 1
        else if (c == ",") { F[++n] = f; f = "" }
        else f = f c
      }
      F[++n] = f
      return n
    }
    NR == 1 { for (i = split_csv($0); i > 0; i--) { if (F[i] == "trace") t = i; if (F[i] == col) p = i }; next }
    t && p && NF { split_csv($0); rows[F[t]]++; sum[F[t]] += F[p] }
    END { for (k in rows) printf "gc\t%s\t%d\t%.17g\n", k, rows[k], sum[k] }'
  tr -d '\r' < "$work/alloc.jsonl" | awk -v col="$mb" '
    function string_after(line, key,   i, c, v) {  # the JSON string value of "key"
      if (!match(line, "\"" key "\"[ ]*:[ ]*\"")) return ""
      v = ""
      for (i = RSTART + RLENGTH; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") break
        if (c == "\\") { i++; c = substr(line, i, 1); if (c == "n") c = "\n"; else if (c == "t") c = "\t" }
        v = v c
      }
      return v
    }
    function number_after(line, key) {
      if (!match(line, "\"" key "\"[ ]*:[ ]*")) return 0
      line = substr(line, RSTART + RLENGTH)
      return match(line, /^-?[0-9][0-9.eE+-]*/) ? substr(line, 1, RLENGTH) + 0 : 0
    }
    string_after($0, "table") == "alloc" { k = string_after($0, "trace"); rows[k]++; sum[k] += number_after($0, col) }
    END { for (k in rows) printf "alloc\t%s\t%d\t%.17g\n", k, rows[k], sum[k] }'
} > "$work/files.tsv"

sed 's/^/  DuckDB: /' "$work/duckdb.tsv"
failed=0
awk -F '\t' '
  NR == FNR { n[$1 FS $2] = $3; s[$1 FS $2] = $4; next }
  $1 == "summary" { next }
  { k = $1 FS $2; seen[k] = 1
    if (!(k in n)) { print "FAIL: only DuckDB has " $1 " rows of trace " $2; bad = 1; next }
    d = $4 - s[k]; if (d < 0) d = -d; m = $4 < 0 ? -$4 : $4; if (m < 1) m = 1
    if ($3 != n[k] || d > 1e-9 * m) {
      print "FAIL: " $1 " of trace " $2 ": DuckDB " $3 " rows summing to " $4 ", the file " n[k] " rows summing to " s[k]
      bad = 1
    } }
  END { for (k in n) if (!(k in seen)) { split(k, p, FS); print "FAIL: DuckDB has no " p[1] " rows of trace " p[2]; bad = 1 }
        exit bad }' "$work/files.tsv" "$work/duckdb.tsv" || failed=1
# The summary against the tables, in DuckDB: the same GCs, pause and allocation totals.
awk -F '\t' '
  function off(a, b, tolerance) { return (a > b ? a - b : b - a) > tolerance }
  $1 == "gc" { gcs[$2] = $3; pause[$2] = $4 }
  $1 == "alloc" { rows[$2] = $3; mb[$2] = $4 }
  $1 == "summary" {
    if ($3 != gcs[$2] + 0 || off($4, pause[$2], 0.001 + 0.0001 * gcs[$2]) || off($5, mb[$2], 0.001 + 0.00001 * rows[$2])) {
      print "FAIL: the summary of trace " $2 " says " $3 " GCs pausing " $4 " ms and " $5 " MB allocated; " \
            "the tables " gcs[$2] + 0 " GCs pausing " pause[$2] + 0 " ms and " mb[$2] + 0 " MB"
      bad = 1
    } }
  END { exit bad }' "$work/duckdb.tsv" || failed=1
for kind in gc alloc summary; do
  traces=$(awk -F '\t' -v k="$kind" '$1 == k' "$work/duckdb.tsv" | wc -l)
  [ "$traces" -eq 2 ] || { echo "FAIL: the $kind table names $traces traces, not 2 (both traces need $kind rows)"; failed=1; }
done
[ "$failed" -ne 0 ] || echo "duckdb_check: DuckDB's rows and sums per trace equal the files' own and the summary's"
exit $failed
