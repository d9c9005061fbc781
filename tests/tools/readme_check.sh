#!/bin/sh
# The README's commands work as written: every ```sh block of its sections from "Decode a trace" up to
# "Tools" runs in order, as printed, in a folder of its own, with the built tools first on the PATH (as
# tools/demo.sh tells a user to put them), the in-process profiler beside it and a .NET 10 program
# app.dll (tests/dotnet/workload, built under that name). The embedding section's commands are
# tools/check-package.sh's (they need the installed package). Then what the blocks wrote is checked.
#   readme_check.sh BIN_DIR PROFILER_SO WORK_DIR SOURCE_DIR
# BIN_DIR holds clretw-dump, clretw-trace and clretw-sample. Without dotnet on the PATH the check is skipped.
set -u
bin=$1 profiler=$2 work=$3 src=$4
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; the README's commands record .NET programs"
  exit 0
fi
rm -rf "$work"
mkdir -p "$work/run" "$work/app"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# app.dll: the workload, named as the README names it.
cp "$src/tests/dotnet/workload/workload.csproj" "$work/app/app.csproj"
cp "$src/tests/dotnet/workload/Program.cs" "$work/app/"
if ! timeout 300 dotnet build "$work/app/app.csproj" -c Release -o "$work/run" --nologo -v quiet > "$work/app/build.log" 2>&1; then
  cat "$work/app/build.log"
  echo "FAIL: the workload does not build as app.dll"
  exit 1
fi
cp "$profiler" "$work/run/libclretw_inproc_profiler.so"

# The blocks, in order: a block is the lines between "```sh" and "```".
awk '
  /^## / { part = ($0 ~ /^## Decode a trace/) ? 1 : ($0 ~ /^## Tools/) ? 0 : part; on = part && $0 !~ /^## Embed/; next }
  on && /^```sh$/ { n++; inside = 1; next }
  inside && /^```$/ { inside = 0; next }
  inside { print > (dir "/block" n ".sh") }
' dir="$work" "$src/README.md"
blocks=$(ls "$work"/block*.sh 2>/dev/null | wc -l)
[ "$blocks" -ge 4 ] || bad "the README has $blocks sh blocks in its sections from 'Decode a trace' to 'Tools'; 4 or more expected"
i=1
while [ -f "$work/block$i.sh" ]; do
  first=$(sed -n 1p "$work/block$i.sh")
  (cd "$work/run" && PATH="$bin:$PATH" sh -e "$work/block$i.sh") > "$work/block$i.out" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    ok "block $i ($(wc -l < "$work/block$i.sh") lines, from: $first)"
  else
    tail -n 30 "$work/block$i.out"
    bad "block $i exited $rc (from: $first)"
  fi
  i=$((i + 1))
done

# What the blocks wrote: nonempty, and of its kind.
cd "$work/run" || exit 1
check() {  # check WHAT COMMAND...
  what=$1
  shift
  if "$@" > /dev/null 2>&1; then ok "$what"; else bad "$what"; fi
}
check "app.nettrace is a complete trace" sh -c 'PATH="$1:$PATH" clretw-dump --stats app.nettrace | grep -Eq "([0-9]+) counted = \1 decoded \+ 0 unknown \+ 0 malformed"' _ "$bin"
for f in app.folded app.speedscope.json app.html gcs.csv events.jsonl; do
  check "$f was written" test -s "$f"
done
check "app.html is a page" grep -q "<html" app.html
check "gcs.csv has its header and a GC" sh -c '[ "$(wc -l < gcs.csv)" -ge 2 ] && head -n 1 gcs.csv | grep -q "pause_ms"'
check "events.jsonl holds the profiler's JSON lines" grep -q '"provider"' events.jsonl
[ "$fail" -eq 0 ] && echo "the README's commands: $blocks blocks ran as written"
exit "$fail"
