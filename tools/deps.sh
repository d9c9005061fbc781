#!/bin/sh
# Installs what clretw needs to build and test, when it is missing (Debian/Ubuntu).
#   tools/deps.sh [extra-package...]
set -eu
need="g++ cmake make pkg-config libpugixml-dev doctest-dev libkainjow-mustache-dev libcli11-dev libbenchmark-dev $*"
missing=""
for p in $need; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "clretw: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
