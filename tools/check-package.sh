#!/bin/sh
# clretw as its users consume it. From a built tree (BUILD_DIR, configured from this
# source tree): installs to a temporary prefix, builds and runs the examples/ against it
# with find_package (the in-process profiler loaded into dotnet --info when dotnet is there);
# checks that clretw_generate() regenerates when the manifest changes and only then; compiles with pkg-config; builds the .deb with cpack and builds an example
# against its unpacked contents; builds the examples again from the source tree through
# add_subdirectory and FetchContent. Any failure exits non-zero. What cannot be checked here (no dotnet,
# no pkg-config) is said on a line of its own that starts with "SKIPPED:", which .ci/steps.sh copies into
# CI's record.
#   tools/check-package.sh BUILD_DIR
set -eu
[ $# -eq 1 ] || { echo "usage: tools/check-package.sh BUILD_DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-package: FAILED: $*" >&2; exit 1; }
note() { echo "-- $*"; }
jobs=$(nproc)
# configure_example NAME BUILD [CMAKE ARGS...]: warnings are errors in the examples too.
configure_example() {
  name=$1 dir=$2
  shift 2
  cmake -S "$src/examples/$name" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" \
        "$@" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configuring examples/$name ($*)"; }
}
build_example() {
  cmake --build "$1" -j "$jobs" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building $1"; }
}
# run_shop DIR: the own-manifest example writes its events and must read back what it wrote.
run_shop() {
  "$1/shop" "$work/shop.nettrace" >"$work/shop.out" || { cat "$work/shop.out"; fail "$1/shop"; }
  grep -q "3 order(s), 3 cache miss(es) read back, as written" "$work/shop.out" || fail "$1/shop: $(tail -1 "$work/shop.out")"
}
# run_reader BINARY: reads the sample trace; its event count must be clretw-dump's.
run_reader() {
  "$1" "$work/sample.nettrace" >"$work/read.out" || fail "$1 on the sample trace"
  grep -q "^$events events, [0-9]* event types; 25 GCs" "$work/read.out" ||
    fail "$1: '$(grep ' events, ' "$work/read.out")', expected $events events and 25 GCs"
}

note "cmake --install to a temporary prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/clretw-gen bin/clretw-dump bin/clretw-trace bin/clretw-sample include/clretw/events.h \
         include/clretw/nettrace.h include/clretw/print.h include/clretw/runtime_model.h include/clretw/report.h include/clretw/carried.h lib/cmake/clretw/clretwConfig.cmake lib/cmake/clretw/clretwConfigVersion.cmake \
         lib/cmake/clretw/ClretwGenerate.cmake lib/pkgconfig/clretw.pc share/doc/clretw/README.md \
         share/doc/clretw/docs/LIBRARY.md share/doc/clretw/examples/read-trace/main.cpp include/clretw/inproc.h \
         include/clretw/catalog.h include/clretw/dotnet_runtime/gc.h share/doc/clretw/examples/inproc-profiler/profiler.cpp; do
  [ -e "$work/prefix/$f" ] || fail "the install lacks $f"
done
"$work/prefix/bin/clretw-sample" -o "$work/sample.nettrace" >/dev/null
events=$("$work/prefix/bin/clretw-dump" --stats "$work/sample.nettrace" | sed -n 's/^events: \([0-9]*\) in file.*/\1/p')
[ -n "$events" ] || fail "clretw-dump --stats printed no event count"

note "examples against the prefix (find_package)"
configure_example own-manifest "$work/own" -DCMAKE_PREFIX_PATH="$work/prefix"
build_example "$work/own"
run_shop "$work/own"
configure_example read-trace "$work/read" -DCMAKE_PREFIX_PATH="$work/prefix"
build_example "$work/read"
run_reader "$work/read/read-trace"
note "the README's embedding example, exactly as printed (its CMakeLists.txt, main.cpp and commands)"
# Its commands install clretw from the checkout's build/ to ~/.local and build the project in its folder:
# here that folder has build/ as a link to BUILD_DIR, and HOME is a folder of this check's.
readme=$work/readme
mkdir -p "$readme/home"
awk '
  /^## / { on = ($0 ~ /^## Embed the decoders in a CMake project/); next }
  on && /^```(cmake|cpp|sh)$/ { kind = substr($0, 4); next }
  kind != "" && /^```$/ { kind = ""; next }
  kind == "cmake" { print > (dir "/CMakeLists.txt") }
  kind == "cpp" { print > (dir "/main.cpp") }
  kind == "sh" { print > (dir "/commands.sh") }
' dir="$readme" "$src/README.md"
for f in CMakeLists.txt main.cpp commands.sh; do [ -s "$readme/$f" ] || fail "the README's embedding section has no $f block"; done
ln -s "$build" "$readme/build"
cp "$work/sample.nettrace" "$readme/app.nettrace"
(cd "$readme" && HOME="$readme/home" sh -e commands.sh) >"$work/readme.log" 2>&1 ||
  { cat "$work/readme.log"; fail "the README's embedding commands"; }
gcs=$(grep -c '^GC #[0-9]*: ' "$work/readme.log")
grep -q "^$gcs GCs\$" "$work/readme.log" && [ "$gcs" -eq 25 ] ||
  fail "the README's count_gcs printed $gcs GC lines, and not '25 GCs': $(tail -n 3 "$work/readme.log")"
note "the README's count_gcs: built against ~/.local, $gcs GCs in the sample trace"
# The in-process profiler: a shared library exporting DllGetClassObject alone, which a real runtime
# loads (dotnet --info runs the SDK's managed code) and which decodes what that runtime delivers.
configure_example inproc-profiler "$work/inproc" -DCMAKE_PREFIX_PATH="$work/prefix"
build_example "$work/inproc"
profiler=$(find "$work/inproc" -name 'libclretw_inproc_profiler.so' | head -n 1)
[ -n "$profiler" ] || fail "examples/inproc-profiler built no libclretw_inproc_profiler.so"
exported=$(nm -D --defined-only "$profiler" | awk '$2 == "T" { print $3 }')
[ "$exported" = DllGetClassObject ] || fail "the profiler exports other functions than DllGetClassObject: $exported"
if command -v dotnet >/dev/null 2>&1; then
  CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8E2B0A5C-3F7D-4C1B-9E6A-C1E7E7D0C0DE}' CORECLR_PROFILER_PATH="$profiler" \
    CLRETW_OUTPUT="$work/inproc.jsonl" dotnet --info >"$work/info.out" 2>"$work/info.err" || fail "dotnet --info failed with the profiler"
  grep -q '^clretw-inproc: [1-9][0-9]* events (.*Microsoft-Windows-DotNETRuntime [1-9]' "$work/info.err" ||
    fail "the profiler built from the package decoded nothing in dotnet --info: $(cat "$work/info.err")"
  python3 -c 'import json, sys; [json.loads(l)["provider"] for l in open(sys.argv[1])]' "$work/inproc.jsonl" ||
    fail "the profiler's output is not JSON lines"
  note "the profiler from the package, in dotnet --info: $(grep '^clretw-inproc:' "$work/info.err" | cut -d';' -f1)"
  # The same profiler in the workload beside a file session: its JSON lines equal clretw-dump's, event for event.
  sh "$src/tests/dotnet/inproc_check.sh" --round-only "$profiler" "$work/prefix/bin/clretw-dump" "$work/inproc-check" "$src" \
    >"$work/inproc-check.log" 2>&1 || { cat "$work/inproc-check.log"; fail "the profiler built from the package differs from a file session"; }
  note "the profiler from the package, in the workload: $(grep -o '[0-9]* events compared field by field' "$work/inproc-check.log" | head -n 1), as a file session decodes them"
else
  echo "SKIPPED: dotnet is not on the PATH: the profiler built from the package was not loaded"
fi
# The version file: this major version is found, another is not.
major=$(sed -n 's/^project(clretw VERSION \([0-9]*\)\..*/\1/p' "$src/CMakeLists.txt")
mkdir -p "$work/v"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(v NONE)\nfind_package(clretw %s REQUIRED)\n' "$((major + 1))" \
  >"$work/v/CMakeLists.txt"
if cmake -S "$work/v" -B "$work/v/b" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/v.log" 2>&1; then
  fail "find_package(clretw $((major + 1))) accepted version $major"
fi

note "clretw_generate(): regenerates when the manifest changes, and only then"
cp -r "$src/examples/own-manifest" "$work/regen"
cmake -S "$work/regen" -B "$work/regen-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/regen-build" -j "$jobs" >"$work/b1.log" 2>&1 || { cat "$work/b1.log"; fail "first build of the copy"; }
grep -q "clretw-gen: shop::events" "$work/b1.log" || fail "the first build did not run clretw-gen"
cmake --build "$work/regen-build" -j "$jobs" >"$work/b2.log" 2>&1
if grep -q "clretw-gen:" "$work/b2.log"; then fail "a build with nothing changed ran clretw-gen again"; fi
sleep 1  # a newer modification time than the outputs', on file systems with coarse timestamps
touch "$work/regen/shop.man"
cmake --build "$work/regen-build" -j "$jobs" >"$work/b2t.log" 2>&1 || { cat "$work/b2t.log"; fail "build after touch"; }
grep -q "clretw-gen: shop::events" "$work/b2t.log" || fail "touching the manifest did not regenerate the decoders"
sed -i 's|<data name="Micros" inType="win:UInt32"/>|<data name="Micros" inType="win:UInt32"/>\n            <data name="Shard" inType="win:UInt16"/>|' \
  "$work/regen/shop.man"
grep -q 'name="Shard"' "$work/regen/shop.man" || fail "could not edit the copied manifest"
cmake --build "$work/regen-build" -j "$jobs" >"$work/b3.log" 2>&1 || { cat "$work/b3.log"; fail "build after the edit"; }
grep -q "clretw-gen: shop::events" "$work/b3.log" || fail "editing the manifest did not regenerate the decoders"
grep -rq "Shard()" "$work/regen-build/shop_events/shop/events/" ||
  fail "the regenerated header lacks the new field's accessor"
grep -q "Linking CXX executable shop" "$work/b3.log" || fail "the program was not relinked with the new decoders"

note "pkg-config"
if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
  # shellcheck disable=SC2046
  c++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -O1 "$src/examples/read-trace/main.cpp" -o "$work/read-pc" \
      $(pkg-config --cflags --libs clretw) || fail "compiling with pkg-config --cflags --libs clretw"
  run_reader "$work/read-pc"
  # clretw::print from the install: clretw-dump's --stats in a few lines.
  cat >"$work/print.cpp" <<'EOF'
#include <clretw/events.h>
#include <clretw/print.h>
int main(int argc, char** argv) {
  clretw::PrintOptions o;
  o.stats = true;
  clretw::EventPrinter printer(o, {&clretw::catalog()});
  return argc == 2 ? printer.print_file(argv[1]) : 2;
}
EOF
  # shellcheck disable=SC2046
  c++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -O1 "$work/print.cpp" -o "$work/print-pc" \
      $(pkg-config --cflags --libs clretw) || fail "compiling clretw::print's example with pkg-config"
  "$work/print-pc" "$work/sample.nettrace" | grep -q "^events: $events in file" || fail "clretw::print's example: no '$events in file'"
else
  echo "SKIPPED: pkg-config is not installed"
fi

note "cpack -G DEB, unpacked with dpkg -x"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/deb/*.deb)
dpkg-deb --info "$deb" | grep -q "Package: clretw" || fail "$deb is not the clretw package"
dpkg -x "$deb" "$work/debroot"
[ -x "$work/debroot/usr/bin/clretw-gen" ] || fail "the .deb lacks /usr/bin/clretw-gen"
configure_example own-manifest "$work/own-deb" -DCMAKE_PREFIX_PATH="$work/debroot/usr"
build_example "$work/own-deb"
run_shop "$work/own-deb"
grep -q "$work/debroot/usr/bin/clretw-gen" "$work/own-deb/build.ninja" "$work/own-deb/CMakeFiles/shop_events.dir/build.make" \
  2>/dev/null || fail "the example built from the .deb did not use the .deb's clretw-gen"

note "from the source tree: add_subdirectory (own-manifest) and FetchContent (read-trace)"
# These two build clretw itself. They compile as BUILD_DIR did - its compiler, its flags, warnings as
# errors - and through ccache when BUILD_DIR did, so clretw's own files come from the objects its
# build left in the cache; what they check is how a project takes clretw in (the examples' own code
# was compiled with warnings as errors above).
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
from_source() {  # from_source NAME BUILD [CMAKE ARGS...]
  name=$1 dir=$2
  shift 2
  cmake -S "$src/examples/$name" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$(cached CMAKE_CXX_COMPILER)" \
        "-DCMAKE_CXX_FLAGS_RELEASE=$(cached CMAKE_CXX_FLAGS_RELEASE)" -DCLRETW_WERROR=ON \
        -DCMAKE_CXX_COMPILER_LAUNCHER="$(cached CMAKE_CXX_COMPILER_LAUNCHER)" "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configuring examples/$name from the source tree ($*)"; }
}
from_source own-manifest "$work/own-src" -DCLRETW_SOURCE="$src"
build_example "$work/own-src"
run_shop "$work/own-src"
from_source read-trace "$work/read-src" -DCLRETW_FETCH_SOURCE="$src"
build_example "$work/read-src"
run_reader "$work/read-src/read-trace"
note "package checks passed ($(basename "$deb"), $events events read by each reader)"
