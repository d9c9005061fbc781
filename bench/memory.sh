#!/bin/sh
# Peak memory of clretw-dump on a trace of at least 200 MB written by clretw-sample.
#   bench/memory.sh BUILD_DIR [LIMIT_MB]
# Prints the peak RSS of each run and fails if one exceeds LIMIT_MB (default 64). JSON and text are
# printed in time order (the sorter), as clretw-dump prints by default; --file-order as stored. The reports
# (--report all) keep every GC (about 230 bytes each): their RSS is printed beside --stats'.
set -eu
build=${1:?usage: bench/memory.sh BUILD_DIR [LIMIT_MB]}
limit=${2:-64}
trace="$build/memory-check.nettrace"
"$build/clretw-sample" --size-mb 210 -o "$trace"
size=$(wc -c < "$trace")
echo "trace: $trace, $size bytes"
fail=0
stats_rss=0
for mode in "--stats" "--format json" "--format json --file-order" "--format text" "--format folded" "--format speedscope" "--report all"; do
  # shellcheck disable=SC2086
  rss=$("$build/bench/peak_rss" "$build/clretw-dump" --no-progress $mode "$trace" 2>&1 >/dev/null | sed -n 's/^peak RSS: \([0-9.]*\) MB$/\1/p')
  [ -n "$rss" ] || { echo "FAIL: clretw-dump $mode did not run" >&2; fail=1; continue; }
  echo "clretw-dump $mode: peak RSS $rss MB"
  [ "$mode" = --stats ] && stats_rss=$rss
  [ "$mode" = "--report all" ] &&
    echo "  ($(awk -v r="$rss" -v s="$stats_rss" 'BEGIN { printf "%.1f", r / s }')x --stats'; $("$build/clretw-dump" --no-progress --report gc --format csv "$trace" | tail -n +2 | wc -l) GCs)"
  if [ "$(printf '%s\n' "$rss" | awk -v l="$limit" '{ print ($1 < l) }')" != 1 ]; then
    echo "FAIL: above $limit MB" >&2
    fail=1
  fi
done
rm -f "$trace"
exit $fail
