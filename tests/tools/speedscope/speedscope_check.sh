#!/bin/sh
# Checks `clretw-dump --format speedscope`: its output must validate against
# speedscope's own file-format schema (plus the consistency the schema cannot
# express: see validate.js) and must render as a flame graph in speedscope's web
# app, driven headless in Chromium (see screenshot.js; the screenshots are left in
# WORK_DIR). The validator is itself checked on fixtures here: example.speedscope.json
# must pass, invalid-*.speedscope.json must be rejected.
# Installs the pinned npm packages (package-lock.json: speedscope, ajv,
# playwright-core) into WORK_DIR with `npm ci`; is skipped (not failed) when node or
# npm is missing or npm cannot install, and renders nothing (skipped after the
# validation) when Chromium is missing ($CHROMIUM, default /usr/bin/chromium).
# Usage: speedscope_check.sh CLRETW_DUMP CLRETW_SAMPLE WORK_DIR SOURCE_DIR
set -u
dump=$1 sample=$2 work=$3 source=$4
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed; the speedscope check did not run (apt-get install nodejs npm)"
    exit 0
  fi
done
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
# npm ci again only when the lock file changed (or the last install did not finish).
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -f "$work/node_modules/.installed" ]; then
  rm -rf "$work/node_modules"
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  if ! PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$work" --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1; then
    echo "SKIPPED: npm ci failed (no registry?); the speedscope check did not run:"
    tail -5 "$work/npm.log"
    exit 0
  fi
  touch "$work/node_modules/.installed"
fi
modules="$work/node_modules"
chromium=${CHROMIUM:-/usr/bin/chromium}
render=1
[ -x "$chromium" ] || render=""
export CHROMIUM="$chromium"

failed=""
fail() { echo "FAILED: $*"; failed=1; }
validate() { node "$here/validate.js" --modules "$modules" "$@" || fail "$* is not a valid speedscope file"; }
screenshot() { [ -z "$render" ] || node "$here/screenshot.js" --modules "$modules" "$1" "$2" || fail "speedscope did not render $1"; }

# The validator accepts a valid file and rejects invalid ones; the renderer renders the valid one.
validate "$here/example.speedscope.json"
screenshot "$here/example.speedscope.json" "$work/example.png"
for bad in "$here"/invalid-*.speedscope.json; do
  node "$here/validate.js" --modules "$modules" "$bad" >"$work/invalid.out" 2>&1
  status=$?
  if [ $status -eq 1 ] && grep -q "INVALID" "$work/invalid.out"; then
    echo "$bad: rejected, as it must be ($(grep -c '^  ' "$work/invalid.out") error(s))"
  else
    cat "$work/invalid.out"
    fail "validate.js did not reject $bad (exit $status)"
  fi
done

# A trace written by clretw-sample.
"$sample" -o "$work/sample.nettrace" >"$work/sample.log" 2>&1
status=$?
if [ $status -ne 0 ]; then
  cat "$work/sample.log"
  fail "clretw-sample exited with $status"
elif "$dump" --format speedscope "$work/sample.nettrace" >"$work/sample.speedscope.json"; then
  validate "$work/sample.speedscope.json"
  screenshot "$work/sample.speedscope.json" "$work/speedscope.png"
else
  fail "clretw-dump --format speedscope exited with $? on $work/sample.nettrace"
fi

# A real .NET Core 3.0 trace, when ../shared is there.
real="$source/../shared/traces/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"
if [ -f "$real" ]; then
  if "$dump" --format speedscope "$real" >"$work/objver4.speedscope.json"; then
    validate "$work/objver4.speedscope.json"
    screenshot "$work/objver4.speedscope.json" "$work/objver4.png"
  else
    fail "clretw-dump --format speedscope exited with $? on $real"
  fi
else
  echo "note: $real is absent; only the sample trace was checked"
fi

if [ -n "$failed" ]; then
  exit 1
fi
if [ -z "$render" ]; then
  echo "SKIPPED: $chromium is not installed; the speedscope files validated but were not rendered (apt-get install chromium)"
fi
exit 0
