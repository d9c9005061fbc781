#!/bin/sh
# clretw-gen validate and diff from the command line: exit statuses, formats, options.
# Usage: cli.sh CLRETW_GEN TESTS_DIR SOURCE_DIR
set -u
gen=$1 tests=$2 src=$3
bad=$tests/validate/invalid
failures=0
expect() {  # expect STATUS DESCRIPTION COMMAND...
  want=$1 what=$2
  shift 2
  "$@" >/tmp/clretw-cli.$$ 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/  | /' /tmp/clretw-cli.$$ | head -20
    failures=$((failures + 1))
  else
    echo "ok: $what (exit $got)"
  fi
}
expect_output() {  # expect_output PATTERN DESCRIPTION COMMAND...
  pattern=$1 what=$2
  shift 2
  if "$@" 2>&1 | grep -q -- "$pattern"; then echo "ok: $what"; else echo "FAIL: $what: no '$pattern'"; failures=$((failures + 1)); fi
}
expect 0 "valid manifest" "$gen" validate "$src/manifest/ClrEtwBuiltin.man"
expect 0 "the built-in manifests with --werror: each of their warnings is accepted with its reason" \
  "$gen" validate --werror "$src/manifest/ClrEtwBuiltin.man" "$src/manifest/WindowsKernel.man"
expect_output "^clretw-gen validate: 2 manifest(s), 0 error(s), 0 warning(s); 37 warning(s) accepted by the manifests" \
  "the summary counts the accepted warnings" "$gen" validate "$src/manifest/ClrEtwBuiltin.man" "$src/manifest/WindowsKernel.man"
expect_output "^  accepted by the manifest: the kernel's event types are its opcodes" "--show-accepted prints each with its reason" \
  "$gen" validate --show-accepted "$src/manifest/WindowsKernel.man"
expect 0 "the built-in manifest with its accepted rules disabled: no unused acceptance" \
  "$gen" validate --werror --disable M117 --disable M302 --disable M501 --disable M505 --disable M601 --disable M604 "$src/manifest/ClrEtwBuiltin.man"
expect 1 "warnings with --werror" "$gen" validate --werror "$bad/M302-opcode-value-10.man"
expect 0 "a warning rule disabled, --werror" "$gen" validate --werror --disable M302 "$bad/M302-opcode-value-10.man"
expect 1 "an error" "$gen" validate "$bad/M105-duplicate-task-value.man"
expect 0 "an error re-graded" "$gen" validate --severity M105=warning "$bad/M105-duplicate-task-value.man"
expect 0 "an error disabled by name" "$gen" validate --disable duplicate-task-value "$bad/M105-duplicate-task-value.man"
expect 1 "malformed XML is an error, not unreadable input" "$gen" validate "$bad/M001-xml-syntax.man"
expect 2 "missing file" "$gen" validate "$bad/does-not-exist.man"
expect 2 "unknown rule" "$gen" validate --disable M999 "$src/manifest/ClrEtwBuiltin.man"
expect 2 "no manifest" "$gen" validate
expect 0 "--list-rules" "$gen" validate --list-rules
expect_output "M604  version-reorders-fields" "--list-rules lists the rules" "$gen" validate --list-rules
expect_output "M105-duplicate-task-value.man:10:11: error\[M105 duplicate-task-value\]" "gcc-style location" \
  "$gen" validate "$bad/M105-duplicate-task-value.man"
expect_output '"code": "M105"' "JSON output" "$gen" validate --format json "$bad/M105-duplicate-task-value.man"
expect_output '"ruleId": "M105"' "SARIF output" "$gen" validate --format sarif "$bad/M105-duplicate-task-value.man"
expect_output "--werror" "validate --help" "$gen" validate --help
expect 0 "diff: compatible" "$gen" diff "$tests/diff/compatible/old.man" "$tests/diff/compatible/new.man"
expect 1 "diff: breaking" "$gen" diff "$tests/diff/fields/old.man" "$tests/diff/fields/new.man"
expect 2 "diff: unreadable" "$gen" diff "$tests/diff/fields/old.man" "$bad/M001-xml-syntax.man"
expect_output '"kind": "field-changed"' "diff JSON output" "$gen" diff --format json "$tests/diff/fields/old.man" "$tests/diff/fields/new.man"
rm -f /tmp/clretw-cli.$$
[ $failures -eq 0 ]
