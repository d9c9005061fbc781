#!/bin/sh
# tools/demo.sh as a newcomer meets it: its first line within a second, never 30 s without a line, no
# warning, every tool built, and the line that puts them on the PATH at its end.
#   demo_check.sh BUILD_DIR    (a new folder: the whole build; a built one: the demo's stages on it)
set -u
cd "$(dirname "$0")/../.."
build=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
now() { date +%s%N | cut -c1-13; }  # milliseconds
start=$(now)
# Each line with the milliseconds since the start at which it came.
tools/demo.sh "$build" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(($(now) - start))" "$line"; done > "$out"
fail=0
bad() { echo "FAIL: $1"; fail=1; }
sed 's/^[0-9]* //' "$out"
echo "--"
first=$(head -n 1 "$out" | cut -d' ' -f1)
[ -n "$first" ] && [ "$first" -le 1000 ] || bad "the first line came after ${first:-no} ms"
gap=$(awk '{ if (NR > 1 && $1 - last > max) max = $1 - last; last = $1 } END { print max + 0 }' "$out")
[ "$gap" -le 30000 ] || bad "$gap ms passed without a line"
grep -Ei 'warning(\[|:)' "$out" && bad "the demo printed a warning"
grep -q 'demo: FAILED' "$out" && bad "a stage failed"
for t in clretw-gen clretw-dump clretw-trace clretw-sample; do [ -x "$build/$t" ] || bad "$build/$t was not built"; done
tail -n 2 "$out" | grep -q 'export PATH="' || bad "the PATH line is not among the last lines"
total=$(tail -n 1 "$out" | cut -d' ' -f1)
[ "$fail" -eq 0 ] && echo "ci: tools/demo.sh: first line after $first ms, at most $gap ms between lines, $((total / 1000)) s in all, no warning"
exit "$fail"
