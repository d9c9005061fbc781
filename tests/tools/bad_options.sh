#!/bin/sh
# Every option of every tool, given a bad value: exit status 2 and a message that names the option.
#   bad_options.sh CLRETW_DUMP CLRETW_SAMPLE CLRETW_GEN WORK_DIR SOURCE_DIR CLRETW_TRACE
# (CLRETW_GEN empty: a build without the generator; clretw-gen's cases are left out.)
set -u
dump=$1 sample=$2 gen=$3 work=$4 src=$5 ttool=$6
mkdir -p "$work"
trace="$work/t.nettrace"
man="$src/tests/manifests/features.man"
"$sample" -o "$trace" >/dev/null || { echo "FAIL: clretw-sample could not write $trace"; exit 1; }
fail=0 cases=0
# bad OPTION_NAME COMMAND...: exit 2, stderr names the option.
bad() {
  name=$1
  shift
  cases=$((cases + 1))
  timeout 60 "$@" >"$work/out" 2>"$work/err"
  status=$?
  if [ "$status" -ne 2 ]; then
    echo "FAIL: $*: exit $status, expected 2"
    fail=1
  elif ! grep -q -- "$name" "$work/err"; then
    echo "FAIL: $*: the message does not name $name: $(head -c 300 "$work/err")"
    fail=1
  elif grep -q '1797693134862315708' "$work/err"; then  # CLI11's own range: DBL_MAX in 300 digits
    echo "FAIL: $*: the message gives no range a person reads: $(head -c 120 "$work/err")"
    fail=1
  fi
}
# says MESSAGE COMMAND...: exit 2, and the first line of stderr is exactly MESSAGE (in a private folder of its own).
tmp=$(mktemp -d) || { echo "FAIL: mktemp -d"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
says() {
  want=$1
  shift
  cases=$((cases + 1))
  timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"
  status=$?
  got=$(head -n 1 "$tmp/err")
  if [ "$status" -ne 2 ] || [ "$got" != "$want" ]; then
    echo "FAIL: $*: exit $status (expected 2), said '$got', expected '$want'"
    fail=1
  fi
}
# Number options state their range in words, every tool alike (tools/common/number_option.h).
says "--top: -3 is not a whole number, 1 or more" "$dump" --top -3 "$trace"
says "--top: 0 is not a whole number, 1 or more" "$dump" --top 0 "$trace"
says "--top: ten is not a whole number, 1 or more" "$dump" --top ten "$trace"
says "--top: 99999999999999999999 is not a whole number from 1 to 18446744073709551615" "$dump" --top 99999999999999999999 "$trace"
says "--id: 70000 is not a whole number from 0 to 65535" "$dump" --id 70000 "$trace"
says "--level: 256 is not a whole number from 0 to 255" "$dump" --level 256 "$trace"
says "--limit: -3 is not a whole number, 0 or more" "$dump" --limit -3 "$trace"
says "--from: abc is not a number of milliseconds" "$dump" --from abc "$trace"
says "--sample-interval: 0 is not a number of milliseconds above 0" "$dump" --format speedscope --sample-interval 0 "$trace"
says "--keywords: 0 is not a keyword mask from 0x1 to 0xFFFFFFFFFFFFFFFF (hex with 0x, or decimal)" "$dump" --keywords 0 "$trace"
says "--format: 7 is not 3, 4, 5 or 6" "$sample" -o "$tmp/s.nettrace" --format 7
says "--pointer-size: 2 is not 4 or 8" "$sample" -o "$tmp/s.nettrace" --pointer-size 2
says "--size-mb: 1e9 is not a number of MB from 0 to 100000" "$sample" -o "$tmp/s.nettrace" --size-mb 1e9
says "--process-id: -5 is not a whole number from 1 to 4294967295" "$ttool" collect -p -5
says "--buffersize: 0 is not a whole number of MB from 1 to 4096" "$ttool" collect -p 1 --buffersize 0
says "--top: -3 is not a whole number, 1 or more" "$ttool" collect -p 1 --top -3
says "--number: 0 is not a whole number, 1 or more" "$ttool" report "$trace" topN -n 0
# clretw-dump
bad --format   "$dump" --format xml "$trace"
bad --filter   "$dump" --filter "" "$trace"
bad --id       "$dump" --id 70000 "$trace"
bad --id       "$dump" --id -1 "$trace"
bad --id       "$dump" --id x "$trace"
bad --keywords "$dump" --keywords xyz "$trace"
bad --keywords "$dump" --keywords 0x1x "$trace"
bad --keywords "$dump" --keywords 0x10000000000000000 "$trace"
bad --keywords "$dump" --keywords 0 "$trace"
bad --level    "$dump" --level 256 "$trace"
bad --level    "$dump" --level -2 "$trace"
bad --level    "$dump" --level verbose "$trace"
bad --from     "$dump" --from abc "$trace"
bad --to       "$dump" --to 1e400x "$trace"
bad --from     "$dump" --from 5 --to 1 "$trace"
bad --manifest "$dump" --manifest /nonexistent.man "$trace"
[ -n "$gen" ] || bad --manifest "$dump" --manifest "$man" "$trace"  # a build without the generator loads none
bad --limit    "$dump" --limit -3 "$trace"
bad --limit    "$dump" --limit many "$trace"
bad --stats    "$dump" --stats=maybe "$trace"
bad --no-progress "$dump" --no-progress=x "$trace"
bad traces     "$dump"
bad --top      "$dump" --top 0 "$trace"
bad --top      "$dump" --top 5 --format json "$trace"
bad --stats    "$dump" --stats --top 5 "$trace"
bad --stats    "$dump" --stats --format folded "$trace"
bad --resolve  "$dump" --resolve --format csv "$trace"
bad --resolve  "$dump" --resolve --format speedscope "$trace"
bad --sample-interval "$dump" --format speedscope --sample-interval 0 "$trace"
bad --sample-interval "$dump" --format speedscope --sample-interval fast "$trace"
bad --bogus    "$dump" --bogus "$trace"
# clretw-sample
bad --format       "$sample" -o "$work/s.nettrace" --format 7
bad --pointer-size "$sample" -o "$work/s.nettrace" --pointer-size 2
bad --size-mb      "$sample" -o "$work/s.nettrace" --size-mb -1
bad --size-mb      "$sample" -o "$work/s.nettrace" --size-mb lots
bad --size-mb      "$sample" -o "$work/s.nettrace" --size-mb 1e9
bad --expect-folded "$sample" -o "$work/s.nettrace" --expect-folded /nonexistent/dir/x.folded
bad --uncompressed "$sample" -o "$work/s.nettrace" --uncompressed=sometimes
bad --output       "$sample" --output "$work/no/such/dir/s.nettrace"
# clretw-gen
if [ -n "$gen" ]; then
  bad manifests "$gen" generate
  bad manifests "$gen" generate /nonexistent.man -o "$work/g"
  bad --output  "$gen" generate "$man"
  bad --output  "$gen" generate "$man" -o /proc/clretw-cannot-write
  bad --namespace "$gen" generate "$man" -o "$work/g" -n 1abc
  bad --namespace "$gen" generate "$man" -o "$work/g" -n "a::"
  bad --namespace "$gen" generate "$man" -o "$work/g" -n class
  bad --namespace "$gen" generate "$man" -o "$work/g" -n a-b
  bad --templates "$gen" generate "$man" -o "$work/g" --templates /nonexistent
  bad --fixups    "$gen" generate "$man" -o "$work/g" --fixups /nonexistent
  bad --format    "$gen" validate --format xml "$man"
  bad --disable   "$gen" validate --disable M999 "$man"
  bad --severity  "$gen" validate --severity M302=fatal "$man"
  bad --severity  "$gen" validate --severity M302 "$man"
  bad manifest    "$gen" validate
  bad --format    "$gen" diff --format xml "$man" "$man"
  bad new         "$gen" diff "$man"
  bad /nonexistent "$gen" diff "$man" /nonexistent.man
  bad update      "$gen" merge "$man"
  bad update      "$gen" merge "$man" /nonexistent.man
  bad --output    "$gen" merge "$man" "$man" -o /proc/clretw-cannot-write
  bad names       "$gen" config
  bad --format    "$gen" config --format json GC/Start
  bad --manifest  "$gen" config --manifest /nonexistent.man GC/Start
  bad manifests   "$gen" docs
  bad manifests   "$gen" docs /nonexistent.man -o "$work/d"
  bad --output    "$gen" docs "$man"
  bad --output    "$gen" docs "$man" -o /proc/clretw-cannot-write
  bad --fixups    "$gen" docs "$man" -o "$work/d" --fixups /nonexistent
  bad subcommand  "$gen" frobnicate
fi
# clretw-trace (every one refused before any process is contacted)
bad -p          "$ttool" collect -p -5
bad -p          "$ttool" collect -p abc
bad -p          "$ttool" collect -p 0
bad -p          "$ttool" collect --duration 1s
bad -p          "$ttool" collect -p 1 -- dotnet app.dll
bad --providers "$ttool" collect -p 1 --providers "A:0xZZ:4"
bad --providers "$ttool" collect -p 1 --providers "A:0x1:loud"
bad --providers "$ttool" collect -p 1 --providers ":0x1:4"
bad --profile   "$ttool" collect -p 1 --profile fast
bad --duration  "$ttool" collect -p 1 --duration "5 parsecs"
bad --duration  "$ttool" collect -p 1 --duration 1:2
bad --duration  "$ttool" collect -p 1 --duration 2
bad --duration  "$ttool" collect -p 1 --duration 00:00:xx:05
bad --clrevents "$ttool" collect -p 1 --clrevents gc+gcc
bad --clreventlevel "$ttool" collect -p 1 --clrevents gc --clreventlevel loud
bad --profile   "$ttool" collect -p 1 --profile cpu-sampling
bad --profile   "$ttool" collect -p 1 --profile dotnet-common,fast
bad --providers "$ttool" collect -p 1 --providers "Microsoft-Windows-DotNETRuntime:GC+Garbage"
bad --buffering-mode "$ttool" collect -p 1 --buffering-mode Sometimes
bad --rundown   "$ttool" collect -p 1 --rundown perhaps
bad --resume-runtime "$ttool" collect -p 1 --resume-runtime:maybe
bad --show-child-io "$ttool" collect -p 1 --show-child-io
bad --dsrouter  "$ttool" collect -p 1 --dsrouter android
bad --dport     "$ttool" collect --dport /tmp/x.sock,sideways
bad -p          "$ttool" collect -p 1 -n app
bad --stopping-event-event-name "$ttool" collect -p 1 --stopping-event-event-name GC/Start
bad --stopping-event-payload-filter "$ttool" collect -p 1 --stopping-event-provider-name P --stopping-event-event-name E \
  --stopping-event-payload-filter Reason
bad --format    "$ttool" convert "$trace" --format xml
bad --format    "$ttool" convert "$trace"
bad subcommand  "$ttool" report "$trace"
bad --number    "$ttool" report "$trace" topN -n 0
bad --buffersize "$ttool" collect -p 1 --buffersize 0
bad --buffersize "$ttool" collect -p 1 --buffersize 99999
bad --format    "$ttool" collect -p 1 --format xml
bad --print     "$ttool" collect -p 1 --print xml
bad --output    "$ttool" collect -p 1 -o /proc/clretw-cannot-write
bad subcommand  "$ttool" frobnicate
bad subcommand  "$ttool"
echo "bad_options: $cases cases"
exit $fail
