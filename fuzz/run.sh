#!/bin/sh
# Runs the libFuzzer harnesses, each for a bounded time, on seed corpora made here, as many at once
# as the machine has cores (FUZZ_JOBS overrides).
#   fuzz/run.sh BUILD_DIR SECONDS [WORK_DIR] [-- LIBFUZZER_OPTIONS...]
# BUILD_DIR is a clang build with -DCLRETW_FUZZ=ON. Seeds: the traces in ../shared/traces
# (when present: the small .nettrace files whole, the first events of the NetPerf file) and
# clretw-sample's output for the nettrace reader; one payload per event
# version for the views; the real and test manifests for the loader. A finding stops the run
# with the fuzzer's report and exit status 1; crash inputs are left in WORK_DIR.
set -eu
[ $# -ge 2 ] || { echo "usage: fuzz/run.sh BUILD_DIR SECONDS [WORK_DIR] [-- LIBFUZZER_OPTIONS...]" >&2; exit 2; }
build=$1 seconds=$2
shift 2
work="$build/fuzz-work"
if [ $# -gt 0 ] && [ "$1" != -- ]; then work=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
src=$(cd "$(dirname "$0")/.." && pwd)
shared="$src/../shared"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$work/nettrace" "$work/views" "$work/manifest" "$work/ipc" "$work/etl" "$work/xpress" "$work/inproc" \
         "$work/seeds-nettrace" "$work/seeds-views" "$work/seeds-manifest" "$work/seeds-ipc" "$work/seeds-etl" "$work/seeds-xpress" \
         "$work/seeds-inproc"

# Seeds. The nettrace harness reads its options from the first byte.
seed_trace() { { printf '\000'; cat "$1"; } > "$work/seeds-nettrace/$(basename "$1")"; }
# A NetPerf file (.NET Core 2.1) holds 100 KB event blocks: its seed is the first events of its first
# block, cut at an event boundary to stay under -max_len, as one smaller block, then the end tag.
# Offsets: the 24-byte stream header and the 70-byte Trace object, then the block's type (its name's
# length at byte 105), its int32 size, zero padding to 4 bytes; each event: int32 size of the rest.
netperf_seed() {  # netperf_seed FILE OUT
  f=$1
  u32() { od -An -tu4 -j "$1" -N4 "$f" | tr -d ' \n'; }
  le32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
  name=$(u32 105)
  [ -n "$name" ] && [ "$name" -le 64 ] || return 0
  size_at=$((110 + name))
  start=$(((size_at + 7) / 4 * 4)) end=$(((size_at + 7) / 4 * 4))
  while size=$(u32 "$end") && [ -n "$size" ]; do
    [ $((end + 4 + size)) -gt 60000 ] && break
    end=$((end + 4 + size))
  done
  [ "$end" -gt "$start" ] || return 0
  { printf '\000'; head -c "$size_at" "$f"; le32 $((end - start)); head -c "$((start - size_at - 4))" /dev/zero
    tail -c +$((start + 1)) "$f" | head -c $((end - start)); printf '\006\001'; } > "$2"
}
if [ -d "$shared/traces" ]; then
  for t in "$shared"/traces/*.nettrace; do
    [ "$(wc -c < "$t")" -le 1048576 ] && seed_trace "$t"
  done
  for t in "$shared"/traces/*.netperf; do
    [ -f "$t" ] && netperf_seed "$t" "$work/seeds-nettrace/$(basename "$t")"
  done
fi
"$build/fuzz/fuzz_views_seeds" "$work/seeds-views" >/dev/null
for m in "$src"/tests/manifests/*.man "$src"/tests/validate/invalid/*.man "$src"/tests/diff/*/*.man "$src"/tests/merge/*.man; do
  cp "$m" "$work/seeds-manifest/$(echo "$m" | sed "s|$src/||; s|/|_|g")"
done
# The diagnostics harness: its first byte picks answer (0), advertisement (1) or stream (2), its second the chunk size.
printf '\000\000DOTNET_IPC_V1\000\034\000\377\000\000\000\052\000\000\000\000\000\000\000' > "$work/seeds-ipc/session-id"
printf '\000\000DOTNET_IPC_V1\000\030\000\377\377\000\000\205\023\023\200' > "$work/seeds-ipc/unknown-command"
printf '\001\000ADVR_V1\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\071\060\000\000\000\000\000\000\000\000' \
  > "$work/seeds-ipc/advertisement"
for t in "$work"/seeds-nettrace/*; do
  [ -f "$t" ] && { printf '\002\005'; tail -c +2 "$t"; } > "$work/seeds-ipc/stream-$(basename "$t")"
done

# ETL: the first buffers of the real files, shrunk, and a file of TraceLogging events made by
# etl_seeds.py; XPRESS: the real files' compressed buffers' data.
if [ -d "$shared/etl" ]; then
  python3 "$src/fuzz/etl_seeds.py" "$work/seeds-etl" 65000 "$shared"/etl/*.etl
else
  python3 "$src/fuzz/etl_seeds.py" "$work/seeds-etl" 65000
fi
if [ -d "$shared/etl" ]; then
  python3 - "$shared/etl/net.4.5.2.x64.etl" "$work/seeds-xpress" <<'PY'
import struct, sys
data, off, n = open(sys.argv[1], 'rb').read(), 0, 0
while off + 72 <= len(data) and n < 8:
    size = struct.unpack_from('<I', data, off)[0]
    if struct.unpack_from('<H', data, off + 0x34)[0] & 0x40:
        open('%s/buffer-%d' % (sys.argv[2], n), 'wb').write(data[off + 72:off + size])
        n += 1
    off += max(size, 72)
PY
fi
printf 'abcabcabcabcabcabcabcabc' > "$work/seeds-xpress/text"

# In-process deliveries (fuzz_inproc.cpp's layout): GC/Start v2 of the runtime provider (no metadata),
# an EventSource event with its metadata (an int and a string), and both with a stack and activity ids.
python3 - "$work/seeds-inproc" <<'PY'
import struct, sys
def s16(t): return t.encode('utf-16-le') + b'\0\0'
def delivery(flags, id, version, meta, payload):
    return struct.pack('<BHBH', flags, id, version, len(meta)) + meta + struct.pack('<H', len(payload)) + payload
gc = delivery(0, 1, 2, b'', struct.pack('<IIIIHQ', 12, 2, 1, 0, 9, 0))
meta = struct.pack('<I', 7) + s16('Measured') + struct.pack('<QII', 0xF00, 0, 4) + struct.pack('<II', 2, 9) + s16('Round') + \
       struct.pack('<I', 18) + s16('Name')
sd = delivery(1, 7, 0, meta, struct.pack('<I', 5) + s16('five'))
for name, data in (('gc', gc), ('eventsource', sd), ('both', bytes([gc[0] | 6]) + gc[1:] + bytes([sd[0] | 6]) + sd[1:])):
    open('%s/%s' % (sys.argv[1], name), 'wb').write(data)
PY

jobs=${FUZZ_JOBS:-$(nproc)}
# fuzz NAME MAX_LEN [OPTIONS...]: one harness; its outcome in $work/NAME.status.
fuzz() {
  name=$1 max_len=$2
  shift 2
  if "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$work/$name-" "$@" "$work/$name" "$work/seeds-$name" 2> "$work/$name.log"; then
    echo 0 > "$work/$name.status"
  else
    echo 1 > "$work/$name.status"
  fi
}
status=0
report() {  # report NAME: its figures, and its log's end when it found something
  echo "== fuzz_$1: ${seconds}s $(grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$1.log" | tr '\n' ' ')"
  if [ "$(cat "$work/$1.status")" != 0 ]; then
    tail -n 60 "$work/$1.log"
    status=1
  fi
}
running=""
for spec in nettrace:65536 views:4096 manifest:262144 ipc:65536 etl:65536 xpress:70000 inproc:4096; do
  fuzz "${spec%%:*}" "${spec#*:}" "$@" &
  running="$running ${spec%%:*}"
  if [ "$(echo $running | wc -w)" -ge "$jobs" ]; then
    wait
    for name in $running; do report "$name"; done
    running=""
  fi
done
wait
for name in $running; do report "$name"; done
exit $status
