#!/bin/sh
# Stacks from the command line: clretw-dump --format folded|speedscope, --top and --resolve, in four parts,
# each a CTest test of its own:
# - sample (stacks_cli): on traces clretw-sample writes (every nettrace format, both pointer sizes), the
#   folded output equals what the writer says it simulated (--expect-folded), so every sample is accounted
#   for and every frame is named as the simulated method events say;
# - traces (stacks_cli_traces): on the shared real traces, every sample is in the output (folded counts =
#   Thread/Sample events), and --top and --resolve are pinned by golden files (CLRETW_UPDATE_GOLDEN=1
#   rewrites them), with the share of frames named;
# - etl (stacks_cli_etl): on the shared ETL file, the kernel's CPU samples: the folded counts sum to the
#   samples a StackWalk event names (counted apart, from the JSON), with at least 90% of the frames named,
#   and --resolve names frames on exactly those samples' lines;
# - eventsource (stacks_cli_eventsource): the ETL file's EventSource events, which the manifests it carries
#   name (they need the generator), profiled by --top against a golden file.
# A part that cannot run here (its files absent, or a build without the generator) says so ("SKIPPED: ...")
# and exits 77, which CTest reports as skipped. Options that do not combine are refused by name in
# bad_options.sh.
#   stacks_cli.sh sample|traces|etl|eventsource CLRETW_DUMP CLRETW_SAMPLE WORK_DIR GOLDEN_DIR [SHARED_DIR [GENERATOR]]
set -u
if [ $# -lt 5 ]; then
  echo "usage: stacks_cli.sh sample|traces|etl|eventsource CLRETW_DUMP CLRETW_SAMPLE WORK_DIR GOLDEN_DIR [SHARED_DIR [GENERATOR]]" >&2
  exit 2
fi
part=$1
shift
dump=$1 sample=$2 work=$3 golden=$4 shared=${5:-} generator=${6:-yes}
rm -rf "$work" && mkdir -p "$work"
fail=0
skip() {  # skip WHY: this part cannot run here
  echo "SKIPPED: $*"
  exit 77
}
say_fail() {
  echo "FAIL: $*" >&2
  fail=1
}
# golden NAME FILE: FILE must equal GOLDEN_DIR/NAME
golden() {
  if [ -n "${CLRETW_UPDATE_GOLDEN:-}" ]; then
    cp "$2" "$golden/$1"
    echo "updated $golden/$1"
  elif ! diff -u "$golden/$1" "$2" > "$work/$1.diff" 2>&1; then
    head -n 40 "$work/$1.diff" >&2
    say_fail "$1 differs from its golden file"
  fi
}
# sum_folded FILE: the samples a folded file accounts for
sum_folded() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
etl="$shared/etl/net.4.5.2.x64.etl"

# --- sample: clretw-sample, the writer's own account of its samples ----------------------------
sample_part() {
  for variant in "5 8" "6 8" "4 8" "3 8" "5 4" "3 4"; do
    set -- $variant
    name="sample-v$1-p$2"
    if ! "$sample" --format "$1" --pointer-size "$2" -o "$work/$name.nettrace" --expect-folded "$work/$name.expected" \
         > "$work/$name.log" 2>&1; then
      cat "$work/$name.log" >&2
      say_fail "$name: clretw-sample"
      continue
    fi
    "$dump" --format folded "$work/$name.nettrace" > "$work/$name.folded" 2> "$work/$name.summary" ||
      say_fail "$name: clretw-dump --format folded exited $?"
    if ! diff -u "$work/$name.expected" "$work/$name.folded" > "$work/$name.diff"; then
      head -n 30 "$work/$name.diff" >&2
      say_fail "$name: the folded stacks differ from what clretw-sample simulated"
    fi
    samples=$("$dump" --stats "$work/$name.nettrace" | awk '/SampleProfiler\/Thread\/Sample / { print $1 }')
    [ "$(sum_folded "$work/$name.folded")" = "${samples:-none}" ] ||
      say_fail "$name: folded accounts for $(sum_folded "$work/$name.folded") samples, the trace has ${samples:-none}"
    echo "ok: $name: $samples samples; $(sed -n 's/.*distinct stacks; //p' "$work/$name.summary")"
  done
  # The default sample trace is pinned too (the writer is deterministic).
  golden sample.folded "$work/sample-v5-p8.folded"
  "$dump" --top 12 "$work/sample-v5-p8.nettrace" > "$work/sample.top" 2>&1
  golden sample.top "$work/sample.top"
  # speedscope: one profile per thread, samples = weights at 1 ms each.
  "$dump" --format speedscope "$work/sample-v5-p8.nettrace" > "$work/sample.speedscope.json" 2>/dev/null ||
    say_fail "speedscope exited $?"
  # weight_sum FILE: the sum of every profile's weights
  weight_sum() { grep -o '"weights":\[[^]]*\]' "$1" | sed 's/"weights":\[//; s/\]//' | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }'; }
  weights=$(weight_sum "$work/sample.speedscope.json")
  expected=$(sum_folded "$work/sample-v5-p8.folded")
  [ "$weights" = "$expected" ] || say_fail "speedscope weights sum to $weights ms, expected $expected samples of 1 ms"
  "$dump" --format speedscope --sample-interval 0.5 "$work/sample-v5-p8.nettrace" > "$work/half.json" 2>/dev/null
  weights2=$(awk -v w="$(weight_sum "$work/half.json")" 'BEGIN { print w * 2 }')
  [ "$weights2" = "$expected" ] || say_fail "--sample-interval 0.5: weights sum to $weights2 half-ms, expected $expected"
  # --resolve names the stacks of other events as the profile does.
  "$dump" --resolve --format json --filter '*/GC/AllocationTick' --limit 3 "$work/sample-v5-p8.nettrace" > "$work/sample.resolve.json"
  golden sample.resolve.json "$work/sample.resolve.json"
}

# --- traces: the shared real traces ----------------------------------------------------------
traces_part() {
  [ -n "$shared" ] && [ -d "$shared/traces" ] || skip "$shared/traces is absent (../shared): the real traces were not profiled"
  o4="$shared/traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"
  "$dump" --format folded "$o4" > "$work/objver4.folded" 2> "$work/objver4.summary"
  samples=$("$dump" --stats "$o4" | awk '/SampleProfiler\/Thread\/Sample / { print $1 }')
  [ "$(sum_folded "$work/objver4.folded")" = "$samples" ] ||
    say_fail "objver4: folded accounts for $(sum_folded "$work/objver4.folded") samples, the trace has $samples"
  echo "ok: objver4: $samples samples; $(sed -n 's/.*distinct stacks; //p' "$work/objver4.summary")"
  "$dump" --top 25 "$o4" > "$work/objver4.top" 2>&1
  golden objver4.top "$work/objver4.top"
  "$dump" --resolve --filter '*/GC/AllocationTick' --limit 5 "$o4" > "$work/objver4.resolve.txt"
  golden objver4.resolve.txt "$work/objver4.resolve.txt"
  # Traces without CPU samples: every event with a stack, named by rundown at the end.
  for t in eventpipe-dotnetcore2.1-linux-x64-objver3.netperf eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace; do
    "$dump" --top 15 --filter '*' "$shared/traces/$t" > "$work/$t.top" 2>&1
    golden "$t.top" "$work/$t.top"
  done
}

# --- etl: the kernel's CPU samples of the shared ETL file ------------------------------------
etl_part() {
  [ -n "$shared" ] && [ -f "$etl" ] || skip "$etl is absent (../shared): the ETL file's kernel samples were not profiled"
  # The kernel's CPU samples, their stacks joined from StackWalk events. Counted apart, from the
  # JSON of the raw events: a sample has a stack when a Stack event or a stack key reference names
  # its thread and timestamp. The folded counts must sum to that, and 90% of the frames they count
  # must be named (a method or a module; an unnamed frame is a bare 0x address).
  "$dump" --format folded "$etl" > "$work/etl.folded" 2> "$work/etl.folded.err"
  "$dump" --format json --id 3886 --id 6176 --id 6181 --id 6182 "$etl" > "$work/etl.kernel.json"
  with_stack=$(awk '
    function num(key) { return match($0, "\"" key "\":[0-9]+") ? substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3) : "" }
    /"id":3886,/ { sample[num("tid") " " num("timestamp")] = 1; next }
    { k = num("StackThread") " " num("EventTimeStamp"); if (k in sample) named[k] = 1 }
    END { n = 0; for (k in named) { n++; print k > "/dev/stderr" } print n }' "$work/etl.kernel.json" 2> "$work/etl.named.keys")
  samples=$(grep -c '"id":3886,' "$work/etl.kernel.json")
  folded_sum=$(sum_folded "$work/etl.folded")
  [ "$samples" -eq 79528 ] || say_fail "net.4.5.2.x64.etl: $samples kernel samples in the JSON, expected 79528"
  [ "$with_stack" -eq 6318 ] || say_fail "net.4.5.2.x64.etl: $with_stack samples named by a stack event, expected 6318"
  [ "$folded_sum" -eq "$with_stack" ] || say_fail "net.4.5.2.x64.etl: folded counts sum to $folded_sum, not the $with_stack samples with a stack"
  named=$(awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); for (i = 2; i <= k; i++) { all += n; if (f[i] !~ /^0x[0-9a-f]+$/) named += n } }
               END { printf "%d %d", named, all }' "$work/etl.folded")
  set -- $named
  [ "$2" -gt 0 ] && [ $(($1 * 10)) -ge $(($2 * 9)) ] || say_fail "net.4.5.2.x64.etl: $1 of $2 frames named, less than 90%"
  grep -q 'sample interval 1 ms (as the trace states)' "$work/etl.folded.err" ||
    say_fail "net.4.5.2.x64.etl: the summary does not give the trace's 1 ms interval: $(cat "$work/etl.folded.err")"
  # --resolve: each sample's line names the frames of its joined stack: the lines with frames are exactly the
  # samples a stack event names (by thread and timestamp, from the raw JSON above).
  "$dump" --resolve --format json --id 3886 "$etl" > "$work/etl.resolved.json"
  awk 'function num(key) { return match($0, "\"" key "\":[0-9]+") ? substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3) : "" }
       /"frames":\["[^"]/ { print num("tid") " " num("timestamp") }' "$work/etl.resolved.json" | sort > "$work/etl.resolved.keys"
  sort "$work/etl.named.keys" | cmp -s - "$work/etl.resolved.keys" ||
    say_fail "net.4.5.2.x64.etl: --resolve names frames on $(wc -l < "$work/etl.resolved.keys") sample lines, not on the $with_stack samples a stack event names"
  echo "net.4.5.2.x64.etl: $samples kernel samples, $with_stack with a stack (folded sum $folded_sum); $1 of $2 frames named;" \
       "--resolve names frames on $(wc -l < "$work/etl.resolved.keys") sample lines"
}

# --- eventsource: the EventSource events of the shared ETL file ------------------------------
# (The EventSource providers are named by the manifests the ETL file carries, which need the generator.)
eventsource_part() {
  [ "$generator" = yes ] ||
    skip "a build without the generator: the ETL file's EventSource events, named by the manifests it carries, were not profiled"
  [ -n "$shared" ] && [ -f "$etl" ] || skip "$etl is absent (../shared): the ETL file's EventSource events were not profiled"
  # EventSource events of a 32-bit .NET Framework process: managed frames (rundown) among WOW64 and ntdll images.
  "$dump" --top 15 --filter 'System.*' "$etl" > "$work/etl.top" 2>&1
  golden net.4.5.2.x64.etl.top "$work/etl.top"
}

case $part in
  sample) sample_part ;;
  traces) traces_part ;;
  etl) etl_part ;;
  eventsource) eventsource_part ;;
  *) echo "stacks_cli.sh: no part '$part' (sample, traces, etl or eventsource)" >&2; exit 2 ;;
esac
exit $fail
