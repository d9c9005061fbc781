#!/bin/sh
# Installs what clretw needs to build and test, when it is missing (Debian/Ubuntu).
#   tools/deps.sh [--optional] [package...]
# Required: compiler, CMake and the libraries. With --optional, the packages after it
# are installed if possible (a failure only warns): node/npm for the SARIF schema and
# speedscope checks, chromium to render speedscope output, clang, the sanitizer runtime.
set -eu
required="g++ cmake make ninja-build libpugixml-dev doctest-dev libkainjow-mustache-dev libcli11-dev libbenchmark-dev"
optional=""
if [ "${1:-}" = --optional ]; then
  shift
  optional="$*"
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=""
# present PACKAGE: installed as a package, or (for tools) already on the PATH from elsewhere.
present() {
  dpkg -s "$1" >/dev/null 2>&1 && return 0
  case "$1" in
    nodejs) command -v node >/dev/null 2>&1 ;;
    npm|clang|cmake|make) command -v "$1" >/dev/null 2>&1 ;;
    ninja-build) command -v ninja >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}
install() {
  if [ -z "$updated" ]; then
    $sudo apt-get update -qq
    updated=1
  fi
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
missing=""
for p in $required; do present "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "clretw: installing$missing"
  # shellcheck disable=SC2086
  install $missing
fi
for p in $optional; do
  present "$p" && continue
  echo "clretw: installing $p"
  install "$p" || echo "clretw: could not install $p; the checks that need it are skipped"
done
