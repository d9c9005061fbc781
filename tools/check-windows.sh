#!/bin/sh
# Compile-checks the Windows parts of clretw (the named-pipe transport of clretw::diagnostics and the
# code it shares with the POSIX one; the ETL reader's 64-bit file offsets) with mingw-w64, warning-free: there is no Windows machine to run them.
#   tools/check-windows.sh
set -eu
cd "$(dirname "$0")/.."
cxx=x86_64-w64-mingw32-g++-posix
if ! command -v "$cxx" >/dev/null 2>&1; then
  tools/deps.sh --optional g++-mingw-w64-x86-64-posix >/dev/null 2>&1 || true
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIPPED: no mingw-w64 cross compiler ($cxx); the Windows transport was not compile-checked"
  exit 0
fi
for f in client ipc launch transport transport_windows; do
  "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -Iruntime/core/include -Iruntime/nettrace/include \
    -Iruntime/diagnostics/include "runtime/diagnostics/src/$f.cpp"
done
for f in carried_manifests etl_reader xpress; do
  "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -Iruntime/core/include -Iruntime/etl/include "runtime/etl/src/$f.cpp"
done
echo "check-windows: runtime/diagnostics and runtime/etl compile for Windows ($("$cxx" -dumpversion), mingw-w64), no warnings"
