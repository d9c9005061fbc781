#!/bin/sh
# clretw-gen config from the command line: a setting on stdout (status 0), notes on stderr; a name that matches
# nothing: status 2 and a message saying why, with the nearest names. (Bad options: tests/tools/bad_options.sh.)
#   config_cli.sh CLRETW_GEN
gen=$1 fail=0
check() {  # check DESCRIPTION EXPECTED_STATUS PATTERN COMMAND...: the status, and PATTERN in stdout+stderr
  what=$1 want=$2 pattern=$3
  shift 3
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit status $got, not $want"; echo "$out"; fail=1; return; fi
  if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then echo "FAIL: $what: no /$pattern/ in:"; echo "$out"; fail=1; fi
}
check "--format eventpipe prints the value alone" 0 '^Microsoft-Windows-DotNETRuntime:0x1:4$' "$gen" config --format eventpipe GC/Start
test "$("$gen" config --format eventpipe GC/Start | wc -l)" -eq 1 || { echo "FAIL: --format eventpipe: not one line"; fail=1; }
check "the report has every syntax" 0 '^  DOTNET_EventPipeConfig=Microsoft-Windows-DotNETRuntime:0x1:4$' "$gen" config gc/start
check "the report: dotnet-trace" 0 '^  dotnet-trace collect --providers ' "$gen" config GC/Start
check "notes go to stderr" 0 "note: 'GC' is read in Microsoft-Windows-DotNETRuntime" "$gen" config --format eventpipe GC
check "an unknown name" 2 "^clretw-gen config: 'GCStrat' names no keyword or event.*nearest: GCStart" "$gen" config GCStrat
check "a glob matching nothing" 2 "'NoSuch/\*' names no keyword or event" "$gen" config 'NoSuch/*'
check "an unknown provider" 2 "no provider is named 'Nope'" "$gen" config Nope:GC/Start
check "kernel events" 2 'Windows kernel logger' "$gen" config Process/Start
[ "$fail" -eq 0 ] && echo "config_cli: all checks passed"
exit $fail
