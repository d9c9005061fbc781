#!/bin/sh
# Issue 12's figures: generated views against a hand-written decoder.
#   bench/ratios.sh BUILD_DIR [--check]
# Runs BUILD_DIR/bench/clretw_bench_views (bench/bench_views.cpp) once under
# callgrind with a fixed iteration count and prints instructions per event of
# every contender and event group as a Markdown table, with the P1 goals and the
# whole-trace figures (reader, + hand-written, + Dispatcher and event views; reported,
# not checked):
#   layout view / hand-written <= 1.1, layout view / memcpy <= 2.5, owning decode / view <= 3
# (the layout view is a payload struct's View<8>, one version's layout, as the hand-written
# decoder reads one; the event view merges every version of the event; owning decode() is
# reported against both, and checked against the event view).
# Then a normal run (3 repetitions, medians) gives wall-time events/s.
# --check: exit 1 when a checked P1 goal is missed for any group (instruction counts only:
# they do not drift with machine load as wall time does).
set -eu
usage() { echo "usage: bench/ratios.sh BUILD_DIR [--check]" >&2; exit 2; }
[ $# -ge 1 ] || usage
build=$1
shift
check=0
for arg in "$@"; do
  case $arg in
    --check) check=1 ;;
    *) usage ;;
  esac
done
bin=$build/bench/clretw_bench_views
[ -x "$bin" ] || { echo "bench/ratios.sh: $bin not built (cmake --build $build --target clretw_bench_views)" >&2; exit 2; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "bench/ratios.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }

groups=$("$bin" --groups)
case $groups in SKIPPED*) echo "$groups"; exit 0 ;; esac

iterations=5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions: every benchmark in one callgrind run, each its own function.
valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" --iterations=$iterations >"$out/cg.stdout" 2>"$out/cg.stderr" ||
  { cat "$out/cg.stderr" >&2; echo "bench/ratios.sh: clretw_bench_views failed under callgrind" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$out/cg" 2>/dev/null |
  sed -n 's/^ *\([0-9,]*\) .*::\([A-Za-z]*_[A-Za-z0-9]*\)(benchmark::State&).*/\2 \1/p' | tr -d , >"$out/instructions"

# Wall time: medians of 3 repetitions.
"$bin" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_format=csv >"$out/wall.csv" 2>"$out/wall.stderr" ||
  { cat "$out/wall.stderr" >&2; echo "bench/ratios.sh: clretw_bench_views failed" >&2; exit 1; }

# A group, its row label, and its event count.
printf '%s\n' "$groups" | awk -v OFS='|' '
  $1 == "All" { print $1, "all chosen events (n = " $2 ")", $2 }
  $1 == "Fixed2" { print $1, "2-byte fixed events (n = " $2 ")", $2 }
  $1 == "AllocationTick" { print $1, "GC/AllocationTick v3 (n = " $2 ")", $2 }
  $1 == "BulkMovedObjectRanges" { print $1, "struct array: GC/GCBulkMovedObjectRanges (n = " $2 ")", $2 }
' >"$out/groups"

trace_events=$(printf '%s\n' "$groups" | awk '$1 == "Trace" { print $2 }')
awk -F'|' -v iterations=$iterations -v check=$check -v out="$out" -v trace_events="${trace_events:-0}" '
  BEGIN {
    # (a function is listed again where it is called from elsewhere: its own total is the largest)
    while ((getline line < (out "/instructions")) > 0) { split(line, f, " "); if (f[2] + 0 > instr[f[1]] + 0) instr[f[1]] = f[2] }
    while ((getline line < (out "/wall.csv")) > 0) {
      # name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,...
      split(line, f, ",")
      gsub(/"/, "", f[1])
      if (f[1] ~ /_median$/) { sub(/_median$/, "", f[1]); rate[f[1]] = f[7] }
    }
    n = split("Memcpy Hand Layout View Owning Dynamic", contenders, " ")
  }
  { group[++groups] = $1; label[groups] = $2; events[groups] = $3 }
  function per_event(c, g,   total) {
    total = instr[c "_" group[g]]
    if (total == "") { missing = missing " " c "_" group[g]; return 0 }
    return total / iterations / events[g]
  }
  function verdict(ratio, goal) { return ratio <= goal ? "met" : "MISSED" }
  END {
    print "Instructions per event (callgrind, " iterations " iterations; lower is better):"
    print ""
    print "| events | memcpy | hand-written | layout view (x hand) | event view (x hand) | owning decode (x layout view) | dynamic |"
    print "|---|--:|--:|--:|--:|--:|--:|"
    for (g = 1; g <= groups; ++g) {
      m = per_event("Memcpy", g); h = per_event("Hand", g); l = per_event("Layout", g); v = per_event("View", g)
      o = per_event("Owning", g); d = per_event("Dynamic", g)
      lh[g] = h ? l / h : 0; lm[g] = m ? l / m : 0; ol[g] = l ? o / l : 0; vh[g] = h ? v / h : 0; ov[g] = v ? o / v : 0
      printf "| %s | %.0f | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | %.0f |\n", label[g], m, h, l, lh[g], v, vh[g], o, ol[g], d
    }
    print ""
    print "P1 goals: layout view/hand <= 1.1, layout view/memcpy <= 2.5 (checked by --check); owning/view <= 3,"
    print "reported against both views (checked against the event view, which merges versions as decode() does not):"
    print ""
    print "| events | layout view/hand | layout view/memcpy | owning/layout view | owning/event view |"
    print "|---|--:|--:|--:|--:|"
    for (g = 1; g <= groups; ++g) {
      a = verdict(lh[g], 1.1); b = verdict(lm[g], 2.5); c = verdict(ol[g], 3); e = verdict(ov[g], 3)
      printf "| %s | %.2f %s | %.2f %s | %.2f %s | %.2f %s |\n", label[g], lh[g], a, lm[g], b, ol[g], c, ov[g], e
      if (a == "MISSED") failures = failures "\n  " group[g] ": layout view/hand " sprintf("%.2f", lh[g]) " > 1.1"
      if (b == "MISSED") failures = failures "\n  " group[g] ": layout view/memcpy " sprintf("%.2f", lm[g]) " > 2.5"
      if (e == "MISSED") failures = failures "\n  " group[g] ": owning/event view " sprintf("%.2f", ov[g]) " > 3"
    }
    print ""
    print "Wall time, million events/s (median of 3 runs; higher is better; noisy on a loaded machine):"
    print ""
    print "| events | memcpy | hand-written | layout view | event view | owning decode | dynamic |"
    print "|---|--:|--:|--:|--:|--:|--:|"
    for (g = 1; g <= groups; ++g) {
      for (i = 1; i <= n; ++i) r[i] = rate[contenders[i] "_" group[g]] / 1e6
      printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", label[g], r[1], r[2], r[3], r[4], r[5], r[6]
    }
    # The whole trace: the reader alone, with Hand, with a Dispatcher handing out event views.
    if (trace_events > 0) {
      tr = instr["Trace_Reader"] / iterations / trace_events
      th = instr["Trace_Hand"] / iterations / trace_events
      td = instr["Trace_Dispatcher"] / iterations / trace_events
      if (instr["Trace_Reader"] == "" || instr["Trace_Hand"] == "" || instr["Trace_Dispatcher"] == "") missing = missing " Trace_*"
      print ""
      print "The whole trace (" trace_events " events read, " events[1] " of them decoded; P2: reader + Dispatcher + views at >= 0.9x the"
      print "throughput of reader + hand-written), instructions per event read and wall-time million events/s:"
      print ""
      print "| | reader alone | reader + hand-written | reader + Dispatcher + event views | throughput ratio |"
      print "|---|--:|--:|--:|--:|"
      printf "| instructions | %.0f | %.0f | %.0f | %.2f %s |\n", tr, th, td, th / td, (th / td >= 0.9 ? "met" : "MISSED")
      wr = rate["Trace_Reader"] / 1e6; wh = rate["Trace_Hand"] / 1e6; wd = rate["Trace_Dispatcher"] / 1e6
      printf "| wall time | %.1f | %.1f | %.1f | %.2f |\n", wr, wh, wd, (wh ? wd / wh : 0)
    }
    if (missing != "") { print "bench/ratios.sh: no callgrind count for" missing > "/dev/stderr"; exit 2 }
    if (check && failures != "") { print "\nP1 goals missed:" failures > "/dev/stderr"; exit 1 }
  }
' "$out/groups"
