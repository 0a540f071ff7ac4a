#!/usr/bin/env bash
# deploy/systemd/gpucost-recorder.sh with the fake nvidia-smi (tests/collect/fake-bin): segments
# of 3 s under GPUCOST_LOG_DIR, each finished one gzipped but for its manifest, the oldest removed
# while the directory is over GPUCOST_MAX_MB (0 here: only the newest is kept), SIGTERM ending
# the running segment cleanly; and `gpucost analyze` reads what is left, .gz included.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GPUCOST_BINARY:-$root/build/gpucost}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpucost-recorder-test.XXXXXX")
rec=""
cleanup() { [ -n "$rec" ] && kill -TERM "$rec" 2>/dev/null && wait "$rec" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { local d=$1; shift; if "$@"; then echo "ok: $d"; else fail "$d"; fi; }

logs=$work/samples
env PATH="$root/tests/collect/fake-bin:$PATH" GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$logs" \
  GPUCOST_COLLECT="$root/scripts/collect-logs.sh" GPUCOST_SEGMENT=3s GPUCOST_INTERVAL=1 GPUCOST_PS_INTERVAL=1 \
  GPUCOST_MAX_MB=0 COLLECT_LOGS_VARLOG="$work/no-varlog" FAKE_NVSMI_BUSY_FROM=0 \
  "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/recorder.err" &
rec=$!
# Until the third segment has started (two finished, the first of them removed).
for ((i = 0; i < 600; i++)); do
  [ "$(grep -c '^collect-logs: collecting into' "$work/recorder.err" 2>/dev/null)" -ge 3 ] && break
  sleep 0.1
done
kill -TERM "$rec"
wait "$rec"
rc=$?
rec=""
check "the recorder exits 0 on SIGTERM (status $rc)" [ "$rc" = 0 ]
check "three segments were started" [ "$(grep -c '^collect-logs: collecting into' "$work/recorder.err")" -ge 3 ]
check "older segments were removed over GPUCOST_MAX_MB" grep -q '^gpucost-recorder: removing ' "$work/recorder.err"
segs=$(find "$logs" -mindepth 1 -maxdepth 1 -type d | wc -l)
check "only the newest segment is kept ($segs)" [ "$segs" = 1 ]
seg=$(find "$logs" -mindepth 1 -maxdepth 1 -type d | head -n 1)
check "its manifest is complete and plain" grep -q '"state": "complete"' "$seg/manifest.json"
check "its samples are gzipped" test -s "$seg/nvidia-smi-dmon.txt.gz"
check "no partial file is left" test -z "$(find "$logs" -name '*.part')"
TZ=UTC "$bin" analyze "$logs" --format json -o "$work/report.json" 2>"$work/analyze.err"
check "gpucost analyze reads the recorded logs" [ "$?" = 0 ]
check "with GPU samples from the .gz files" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["timeline"]["samples"] > 0 and any(f["gzip"] for f in r["files"]) else 1)' "$work/report.json"
if ((failures)); then cat "$work/recorder.err" >&2; echo "$failures check(s) failed" >&2; exit 1; fi
echo "all checks passed"
