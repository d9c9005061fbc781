#!/bin/sh
# CTest's fixture dotnet_workload: tests/dotnet/workload built once into DIR/bin for the checks that run it.
#   build_workload.sh DIR SOURCE_DIR
set -u
src=$2
. "$src/tests/dotnet/workload.sh"
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not on the PATH; the workload was not built"
  exit 0
fi
build_workload "$1" "$src"
echo "built $1/bin/workload.dll with .NET $(dotnet --version)"
