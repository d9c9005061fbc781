#!/bin/sh
# What embedding clretw costs a tool author at compile time, against a yardstick measured in the
# same run on the same machine: a translation unit that includes <map> and <string>.
#   bench/compile_cost.sh [COMPILER] [RUNS]   (default c++, 5 runs each, alternating; -std=c++20 -O2)
# bench/goals.sh prints it under P3.
# Prints, for each TU, the median wall and user seconds and the peak memory, and the ratio of each
# to the yardstick's (the medians of run-by-run ratios). The TUs:
#   map+string   #include <map> and <string>, one function that uses them
#   one GC event GCStartView::from() and Count(), through the per-task header clretw/dotnet_runtime/gc.h
#                (goal: within 1.5x of the yardstick)
#   events.h     the same through clretw/events.h, every built-in provider
#   provider     the same through clretw/dotnet_runtime.h, the runtime provider's umbrella
set -eu
cc=${1:-c++} runs=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/map.cpp" <<'CPP'
#include <map>
#include <string>
int lookup(std::map<std::string, int>& m, const std::string& key) { return m[key]; }
CPP
one_gc() {  # one_gc HEADER: the same GC event through HEADER
  cat <<CPP
#include <$1>
unsigned gc_count(const clretw::EventRecord& r) {
  auto gc = clretw::dotnet_runtime::GCStartView::from(r);
  return gc ? gc->Count() : 0;
}
CPP
}
one_gc clretw/dotnet_runtime/gc.h > "$work/gc.cpp"
one_gc clretw/events.h > "$work/events.cpp"
one_gc clretw/dotnet_runtime.h > "$work/provider.cpp"
flags="-std=c++20 -O2 -I$src/runtime/core/include -I$src/generated -c -o /dev/null"

# time_one FILE: wall seconds, user seconds and peak KB of one compile, on one line.
time_one() {
  /usr/bin/time -f '%e %U %M' -o "$work/t" $cc $flags "$1" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  cat "$work/t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench/compile_cost.sh: $($cc --version | head -n 1), -std=c++20 -O2, $runs runs each, alternating with the yardstick; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %8s %8s %9s %9s %9s\n' "TU" "wall s" "user s" "peak MB" "x wall" "x user"
for tu in map gc events provider; do
  : > "$work/$tu.runs"
  : > "$work/$tu.ratios"
done
i=0
while [ "$i" -lt "$runs" ]; do
  set -- $(time_one "$work/map.cpp")
  echo "$1 $2 $3" >> "$work/map.runs"
  mw=$1 mu=$2
  for tu in gc events provider; do
    set -- $(time_one "$work/$tu.cpp")
    echo "$1 $2 $3" >> "$work/$tu.runs"
    echo "$1 $2" | awk -v w="$mw" -v u="$mu" '{ printf "%.3f %.3f\n", $1 / w, $2 / u }' >> "$work/$tu.ratios"
  done
  i=$((i + 1))
done
for tu in map gc events provider; do
  case $tu in map) name="map+string" ;; gc) name="one GC event" ;; events) name="events.h" ;; provider) name="provider .h" ;; esac
  wall=$(cut -d' ' -f1 "$work/$tu.runs" | median)
  user=$(cut -d' ' -f2 "$work/$tu.runs" | median)
  peak=$(cut -d' ' -f3 "$work/$tu.runs" | median | awk '{ printf "%.0f", $1 / 1024 }')
  if [ "$tu" = map ]; then
    printf '%-14s %8s %8s %9s %9s %9s\n' "$name" "$wall" "$user" "$peak" 1 1
  else
    printf '%-14s %8s %8s %9s %9s %9s\n' "$name" "$wall" "$user" "$peak" "$(cut -d' ' -f1 "$work/$tu.ratios" | median)" \
      "$(cut -d' ' -f2 "$work/$tu.ratios" | median)"
  fi
done
echo "goal: one GC event within 1.5x of map+string"
