#!/bin/sh
# Validates `clretw-gen validate --format sarif` output against the official
# SARIF 2.1.0 schema. Installs nothing: it needs node and the packages of
# tests/validate/package.json, installed with
#   npm ci --prefix tests/validate
# and is skipped (not failed) when either is missing.
# Usage: sarif_schema.sh CLRETW_GEN OUT_DIR MANIFEST...
set -u
gen=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed; the SARIF schema check did not run (apt-get install nodejs npm)"
  exit 0
fi
for m in ajv ajv-draft-04 ajv-formats @microsoft/jest-sarif; do
  if [ ! -d "$here/node_modules/$m" ]; then
    echo "SKIPPED: $here/node_modules/$m is missing; the SARIF schema check did not run (npm ci --prefix tests/validate)"
    exit 0
  fi
done
rm -rf "$out"
mkdir -p "$out"
for manifest in "$@"; do
  sarif="$out/$(basename "$manifest").sarif"
  "$gen" validate --format sarif "$manifest" >"$sarif"
  status=$?
  if [ $status -gt 2 ]; then
    echo "FAILED: clretw-gen validate exited with $status on $manifest"
    exit 1
  fi
done
node "$here/sarif_schema.js" "$out"/*.sarif
