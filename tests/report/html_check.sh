#!/bin/sh
# The HTML report in a browser: `clretw-dump --report all --format html TRACE` is loaded by headless
# Chromium with no network at all - a proxy that refuses (127.0.0.1:9, loopback included) - and
# must load nothing, log nothing to the console and raise no error:
#   - no tag in the page may name an external resource, and its Content-Security-Policy must forbid
#     every load (default-src 'none');
#   - Chromium's NetLog (--log-net-log) must show no request made for the page (the browser's own
#     background requests, which fail at the proxy, are told apart by their network isolation key);
#   - the console (--enable-logging=stderr prints each message as a CONSOLE line) must stay empty:
#     uncaught exceptions, refused loads and console.error all land there;
#   - the page's own hooks (window error, unhandledrejection, securitypolicyviolation) write into its
#     data-errors attribute, which must be absent from the dumped DOM, and its last script sets
#     data-ready="1", which must be there;
#   - the DOM has the summary cards and at least one plot (svg), and a damaged trace's warning.
# With SCREENSHOT_OUT, a 1280x2000 PNG of the page is written there. Skipped when Chromium is missing.
#   html_check.sh CLRETW_DUMP TRACE WORK_DIR [SCREENSHOT_OUT]
set -u
if [ $# -lt 3 ]; then
  echo "usage: html_check.sh CLRETW_DUMP TRACE WORK_DIR [SCREENSHOT_OUT]" >&2
  exit 2
fi
dump=$1 trace=$2 work=$3 shot=${4:-}
[ -f "$trace" ] || { echo "SKIPPED: $trace is absent (../shared)"; exit 0; }
chromium=${CHROMIUM:-chromium}
if ! command -v "$chromium" >/dev/null 2>&1; then
  echo "SKIPPED: chromium is not installed"
  exit 0
fi
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 1
page="$work/report.html"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

timeout 300 "$dump" --report all --format html "$trace" > "$page" 2> "$work/dump.err"
status=$?
case $status in
  0) damaged="" ;;
  1) damaged=1 ;;  # a damaged trace: what was read before the damage is reported, with a warning
  *) cat "$work/dump.err"; echo "FAIL: clretw-dump --report all --format html exited $status"; exit 1 ;;
esac
[ -s "$page" ] || { echo "FAIL: clretw-dump wrote no page"; exit 1; }
echo "html_check: $(wc -c < "$page") bytes of HTML from $trace"

# The page itself: no tag that loads anything, no CSS import or url(), and a policy that forbids loads.
if grep -Eion '<(img|script|link|iframe|frame|object|embed|audio|video|source|track|image|use|feimage|form|base)\b[^>]*\b(src|href|srcset|data|poster|action|xlink:href)[[:space:]]*=' "$page" | head -5 | grep .; then
  fail "the page has tags that name resources"
fi
if sed -n '/<style>/,/<\/style>/p' "$page" | grep -Ein '@import|url\(' | head -5 | grep .; then
  fail "the page's styles load resources"
fi
grep -q "http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'" "$page" ||
  fail "the page has no Content-Security-Policy forbidding loads"

# browse NAME ARGS...: Chromium on the page, nothing reachable; stdout, stderr and the NetLog in WORK_DIR.
url="file://$(printf '%s' "$page" | sed 's/%/%25/g; s/ /%20/g; s/#/%23/g')"
browse() {
  name=$1
  shift
  rm -rf "$work/profile"
  timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$work/profile" \
    --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update \
    --disable-sync --disable-extensions --disable-default-apps \
    --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
    --enable-logging=stderr --v=0 --log-net-log="$work/$name.netlog.json" --virtual-time-budget=5000 \
    "$@" "$url" > "$work/$name.out" 2> "$work/$name.err"
  browsed=$?
  [ "$browsed" -eq 0 ] || { tail -5 "$work/$name.err"; fail "chromium ($name) exited $browsed"; return; }
  if grep 'CONSOLE' "$work/$name.err" | head -10 | grep .; then
    fail "the page logged to the console in chromium ($name)"
  fi
  # Requests made for the page carry its file:// origin in their network isolation key.
  if grep '"network_isolation_key":"file://' "$work/$name.netlog.json" | grep -o '"url":"[^"]*"' | sort -u |
     head -10 | grep .; then
    fail "the page made network requests in chromium ($name)"
  fi
  [ -s "$work/$name.netlog.json" ] || fail "chromium ($name) wrote no NetLog; the requests were not checked"
}

browse dom --dump-dom
dom="$work/dom.out"
if [ -s "$dom" ]; then
  errors=$(tr '\n' ' ' < "$dom" | grep -o 'data-errors="[^"]*"' | head -1)
  [ -z "$errors" ] || fail "the page caught errors: $errors"
  grep -q 'data-ready="1"' "$dom" || fail "the page's script did not run to its end (no data-ready)"
  summaries=$(grep -o 'class="cards summary"' "$dom" | wc -l)
  svgs=$(grep -o '<svg' "$dom" | wc -l)
  tables=$(grep -o '<table' "$dom" | wc -l)
  [ "$summaries" -ge 1 ] || fail "the page has no summary"
  [ "$svgs" -ge 1 ] || fail "the page has no plot (svg)"
  [ -z "$damaged" ] || grep -q 'class="warn"' "$dom" || fail "clretw-dump said the trace is damaged; the page does not"
  echo "html_check: the DOM has $summaries summaries, $svgs plots (svg) and $tables tables"
else
  fail "chromium dumped no DOM"
fi

if [ -n "$shot" ]; then
  mkdir -p "$(dirname "$shot")" && rm -f "$shot"
  browse screenshot --screenshot="$shot" --window-size=1280,2000
  if [ -s "$shot" ]; then echo "html_check: screenshot $shot"; else fail "no screenshot was written to $shot"; fi
fi
rm -rf "$work/profile"
exit $failed
