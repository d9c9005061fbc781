#!/bin/sh
# The main job, from nothing: install what is missing, build every tool, check the built-in manifests,
# generate decoders from them, write a sample trace of a small .NET app and decode it.
#   tools/demo.sh [BUILD_DIR]     (default: build)
# It says what it does at each stage (a progress line at least every 15 s while a stage runs) and
# keeps the output of installing and building in BUILD_DIR/demo.log, which it names when a stage
# fails. A BUILD_DIR configured before keeps its configuration; a new one is a Release build of
# the tools without the tests.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p "$build"
log="$build/demo.log"
: >"$log"
demo_start=$(date +%s)
say() { echo "demo: $*"; }
elapsed() {  # elapsed SECONDS: "42 s" or "3 min 05 s"
  if [ "$1" -lt 60 ]; then echo "$1 s"; else printf '%d min %02d s\n' $(($1 / 60)) $(($1 % 60)); fi
}
# progress: what the build's log says of its progress ("412/1030 steps" from Ninja, "40%" from Make).
progress() {
  tail -c 4096 "$log" 2>/dev/null | tr '\r' '\n' | sed -n \
    -e 's/^\[\([0-9][0-9]*\)\/\([0-9][0-9]*\)\].*/\1 of \2 steps/p' \
    -e 's/^\[ *\([0-9][0-9]*%\)\].*/\1/p' | tail -n 1
}
# stage WHAT COMMAND...: runs COMMAND with its output in the log, saying every 15 s that it still runs.
stage() {
  what=$1
  shift
  t0=$(date +%s)
  echo "== $what" >>"$log"
  "$@" >>"$log" 2>&1 &
  pid=$!
  ticks=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    if [ $((ticks % 15)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
      p=$(progress)
      say "  ... $what: $(elapsed $(($(date +%s) - t0)))${p:+, $p}"
    fi
  done
  if ! wait "$pid"; then
    say "FAILED: $what. The end of $log:"
    tail -n 30 "$log" | sed 's/^/  /'
    say "the whole output is in $log"
    exit 1
  fi
  say "  done in $(elapsed $(($(date +%s) - t0)))"
}

say "installing what is missing (g++, CMake, Ninja, pugixml, doctest, mustache, CLI11, Google Benchmark)"
stage "installing packages" tools/deps.sh
if [ -f "$build/CMakeCache.txt" ]; then
  say "$build is configured already: its configuration is kept"
else
  generator=""
  command -v ninja >/dev/null 2>&1 && generator="-G Ninja"
  say "configuring $build: Release, the tools without the tests"
  # shellcheck disable=SC2086
  stage "configuring" cmake -S . -B "$build" $generator -DCMAKE_BUILD_TYPE=Release -DCLRETW_BUILD_TESTS=OFF
fi
tools="clretw-gen clretw-dump clretw-trace clretw-sample"
say "building $tools on $(nproc) cores (the generated decoders take most of it: minutes on 2 cores)"
# shellcheck disable=SC2086
stage "building" cmake --build "$build" -j "$(nproc)" --target $tools
for t in $tools; do
  [ -x "$build/$t" ] || { say "FAILED: $build/$t was not built (see $log)"; exit 1; }
done

echo
say "clretw-gen validate: the built-in manifests, under the default rules"
"$build/clretw-gen" validate manifest/ClrEtwBuiltin.man manifest/WindowsKernel.man
echo
say "clretw-gen generate: C++ decoders from the built-in manifests (the same as generated/)"
"$build/clretw-gen" generate -q manifest/ClrEtwBuiltin.man manifest/WindowsKernel.man -o "$build/demo/generated"
if diff -r -q generated "$build/demo/generated" >/dev/null; then
  say "  identical to the checked-in generated/"
else
  say "  differs from the checked-in generated/: diff -r generated $build/demo/generated"
fi
echo
say "clretw-sample: a trace of a small simulated .NET app, written with the generated payload structs"
"$build/clretw-sample" -o "$build/demo/sample.nettrace"
echo
say "clretw-dump --stats: its events, counted"
"$build/clretw-dump" --stats "$build/demo/sample.nettrace"
echo
say "clretw-dump: the first events, as text"
"$build/clretw-dump" --limit 12 "$build/demo/sample.nettrace" | cut -c1-160
echo
say "clretw-dump --format json --filter '*/GC/Start' --filter '*Exception*' --limit 2"
"$build/clretw-dump" --format json --filter '*/GC/Start' --filter '*Exception*' --limit 2 "$build/demo/sample.nettrace"
echo
say "clretw-dump --report summary"
"$build/clretw-dump" --report summary "$build/demo/sample.nettrace"
echo
bin=$(cd "$build" && pwd)
say "finished in $(elapsed $(($(date +%s) - demo_start))): $tools are in $bin"
say "put them on the PATH for this shell:  export PATH=\"$bin:\$PATH\""
say "or install them under your home:      cmake --install \"$build\" --prefix ~/.local --strip   (then ~/.local/bin on the PATH)"
