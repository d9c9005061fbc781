#!/bin/sh
# tools/check-layers.py on the source tree (no include crosses tools/layers.txt's layers), and on a copy of it
# with a deliberate reversed include and a third-party header in the runtime: both must be found, located.
#   layers_check.sh SOURCE_DIR
set -u
src=$1
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIPPED: python3 is not on the PATH; the layers were not checked"
  exit 0
fi
out=$(python3 "$src/tools/check-layers.py" --root "$src")
rc=$?
echo "$out" | tail -n 20
[ "$rc" -eq 0 ] && ok "the source tree keeps to its layers" || bad "the source tree breaks its layers (exit $rc)"

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
mkdir -p "$copy/tools"
cp -r "$src/runtime" "$src/generator" "$src/generated" "$copy/"
cp -r "$src/tools/common" "$src/tools/dump" "$src/tools/trace" "$src/tools/sample" "$src/tools/gen" "$src/tools/layers.txt" "$copy/tools/"
line=$(($(wc -l < "$copy/runtime/core/src/result.cpp") + 1))
echo '#include "clretw/print.h"' >> "$copy/runtime/core/src/result.cpp"
echo '#include <pugixml.hpp>' >> "$copy/runtime/nettrace/src/nettrace_reader.cpp"
nline=$(wc -l < "$copy/runtime/nettrace/src/nettrace_reader.cpp")
out=$(python3 "$src/tools/check-layers.py" --root "$copy")
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || bad "a tree with a reversed include: exit $rc, not 1"
echo "$out" | grep -qx "runtime/core/src/result.cpp:$line: layer core includes clretw/print.h of layer print, which is not below it (tools/layers.txt)" &&
  ok "the core including the print layer is found, with its file and line" || bad "the reversed include was not reported as expected"
echo "$out" | grep -qx "runtime/nettrace/src/nettrace_reader.cpp:$nline: layer nettrace includes pugixml.hpp, a third-party header its rules do not allow" &&
  ok "a third-party header in the runtime is found" || bad "the third-party header was not reported as expected"
echo "$out" | grep -q "check-layers: .*: 2 violation(s)" && ok "exactly those two" || bad "not exactly two violations"
exit "$fail"
