#!/bin/sh
# When the CLR adds events: carries a newer ClrEtwAll.man into the built-in manifest.
#   tools/update-manifest.sh [--check] [--gen CLRETW_GEN] [--build-dir DIR] [--no-tests] NEW.man
# 1. validates NEW.man (errors stop here);
# 2. merges its facts into manifest/ClrEtwBuiltin.man, keeping the project's notes and additions
#    (clretw-gen merge prints what it kept and dropped);
# 3. prints clretw-gen diff of the built-in manifest before -> after, breaking changes flagged;
# 4. regenerates generated/ and the event reference in docs/events/;
# 5. builds and runs the round-trip and generated-code tests.
# With --check nothing is written: exit 1 if the manifest, generated/ or docs/events/ would change.
# Exit status: 0 done (or nothing to change), 1 a step failed or --check found changes, 2 bad usage.
set -eu
cd "$(dirname "$0")/.."
check=0 gen="" build=build-update tests=1 new=""
usage() {
  echo "usage: tools/update-manifest.sh [--check] [--gen CLRETW_GEN] [--build-dir DIR] [--no-tests] NEW.man" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1; shift ;;
    --gen) [ $# -ge 2 ] || usage; gen=$2; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --no-tests) tests=0; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "update-manifest: unknown option '$1'" >&2; usage ;;
    *) [ -z "$new" ] || usage; new=$1; shift ;;
  esac
done
[ -n "$new" ] || usage
[ -r "$new" ] || { echo "update-manifest: cannot read '$new'" >&2; exit 2; }
builtin=manifest/ClrEtwBuiltin.man

if [ -z "$gen" ]; then
  tools/deps.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target clretw-gen >/dev/null
  gen="$build/clretw-gen"
fi

echo "== 1. validate $new"
"$gen" validate "$new" | tail -n 1
"$gen" validate "$new" >/dev/null || { echo "update-manifest: $new has errors; nothing changed" >&2; exit 1; }

echo "== 2. merge its facts into $builtin"
merged=$(mktemp)
trap 'rm -f "$merged"' EXIT
"$gen" merge "$builtin" "$new" -o "$merged"

echo "== 3. what changes for the built-in decoders ($builtin before -> after)"
status=0
"$gen" diff "$builtin" "$merged" || status=$?
[ "$status" -le 1 ] || exit 1
[ "$status" -eq 0 ] || echo "update-manifest: breaking changes above: users of the generated code will see them"

if [ "$check" -eq 1 ]; then
  echo "== 4. check"
  changed=0
  cmp -s "$builtin" "$merged" || { echo "$builtin: would change"; changed=1; }
  "$gen" generate "$builtin" manifest/WindowsKernel.man -o generated --check -q || changed=1
  "$gen" docs "$builtin" manifest/WindowsKernel.man -o docs/events --check -q || changed=1
  [ "$changed" -eq 0 ] && echo "update-manifest: $builtin, generated/ and docs/events/ are current with $new"
  exit "$changed"
fi
cp "$merged" "$builtin"

echo "== 4. regenerate generated/ and docs/events/"
"$gen" generate "$builtin" manifest/WindowsKernel.man -o generated
"$gen" docs "$builtin" manifest/WindowsKernel.man -o docs/events

if [ "$tests" -eq 1 ]; then
  echo "== 5. round trips and generated-code tests"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target roundtrip_builtin test_generator test_docs clretw-gen
  ctest --test-dir "$build" --output-on-failure -R 'roundtrip_builtin|test_generator|test_docs|gen_builtin_up_to_date|docs_events_up_to_date'
fi
echo "update-manifest: done; review 'git diff $builtin generated/ docs/events/' and commit"
