#!/bin/sh
# The main job, from nothing: install what is missing, build, generate decoders from
# the built-in manifests, write a sample trace of a small .NET app and decode it.
#   tools/demo.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
tools/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLRETW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target clretw-gen clretw-dump clretw-sample >/dev/null

echo "== clretw-gen validate: the built-in manifests"
"$build/clretw-gen" validate manifest/ClrEtwBuiltin.man || true
echo
echo "== clretw-gen generate: C++ decoders from the built-in manifests (same as generated/)"
"$build/clretw-gen" generate manifest/ClrEtwBuiltin.man manifest/WindowsKernel.man -o "$build/demo/generated"
diff -r -q generated "$build/demo/generated" && echo "   identical to the checked-in generated/"
echo
echo "== clretw-sample: a trace of a small .NET app, encoded with the generated payload structs"
"$build/clretw-sample" -o "$build/demo/sample.nettrace"
echo
echo "== clretw-dump --stats"
"$build/clretw-dump" --stats "$build/demo/sample.nettrace"
echo
echo "== clretw-dump: the first events, as text"
"$build/clretw-dump" --limit 12 "$build/demo/sample.nettrace" | cut -c1-200
echo
echo "== clretw-dump --format json --filter '*/GC/Start' --filter '*Exception*' --limit 2"
"$build/clretw-dump" --format json --filter '*/GC/Start' --filter '*Exception*' --limit 2 "$build/demo/sample.nettrace"
