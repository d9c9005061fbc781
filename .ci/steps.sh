# Step bookkeeping for .ci/run (POSIX sh, sourced). A step runs a command with its output in a
# log of its own (ci-logs/ID.log); when it ends, one line says how it went and how long it took,
# followed by its log's end if it failed and by any line of the log that starts with "SKIPPED" or
# "ci:" (notes and figures worth keeping in the record). Steps run one after another within a
# lane; lanes run side by side. summary prints every step's time and fails if any step failed.
#   step ID DESCRIPTION COMMAND...   (returns the command's status)
#   summary
ci_logs=${CI_LOGS:-$(pwd)/ci-logs}
rm -rf "$ci_logs"
mkdir -p "$ci_logs"
ci_start=$(date +%s)

step() {
  id=$1 what=$2
  shift 2
  t0=$(date +%s)
  status=0
  (
    s=0
    "$@" || s=$?
    times >"$ci_logs/$id.times"  # the second line: the command's user and system CPU time
    exit $s
  ) >"$ci_logs/$id.log" 2>&1 || status=$?
  seconds=$(($(date +%s) - t0))
  cpu=$(sed -n '2p' "$ci_logs/$id.times" 2>/dev/null | awk '{ n = 0
    for (i = 1; i <= 2; ++i) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
    printf "%.0f", n }')
  if [ "$status" -eq 0 ]; then outcome=ok; else outcome=FAILED; fi
  # One write per report, so that the lanes' reports do not interleave.
  {
    printf '== %-6s %4d s  %s  (%s; CPU %s s; at %d s)\n' "$outcome" "$seconds" "$what" "$id" "${cpu:-?}" \
      "$(($(date +%s) - ci_start))"
    grep -E '^(SKIPPED|ci:)' "$ci_logs/$id.log" | sed 's/^/     /' || true
    if [ "$status" -ne 0 ]; then
      echo "     status $status; the end of ci-logs/$id.log:"
      tail -n 150 "$ci_logs/$id.log"
    fi
  } >"$ci_logs/$id.report"
  cat "$ci_logs/$id.report"
  printf '%s|%s|%s|%s\n' "$outcome" "$seconds" "${cpu:-?}" "$what" >>"$ci_logs/steps"
  return "$status"
}

summary() {
  echo
  printf '%-7s %7s %7s  %s\n' outcome seconds CPU step
  while IFS='|' read -r outcome seconds cpu what; do
    printf '%-7s %7s %7s  %s\n' "$outcome" "$seconds" "$cpu" "$what"
  done <"$ci_logs/steps"
  total=$(($(date +%s) - ci_start))
  failed=$(grep -c '^FAILED' "$ci_logs/steps" || true)
  printf 'total: %d s (%d min %02d s) on %s cores; %s\n' "$total" $((total / 60)) $((total % 60)) "$(nproc)" \
    "$([ "$failed" -eq 0 ] && echo 'every step passed' || echo "$failed step(s) FAILED")"
  [ "$failed" -eq 0 ]
}
