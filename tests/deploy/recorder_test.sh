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
# Issue 39: a usage error (a typo in /etc/default/gpucost) ends the recorder with status 2 after
# one attempt, instead of restarting collect-logs.sh 50-110 times a second forever.
env PATH="$root/tests/collect/fake-bin:$PATH" GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$work/usage" \
  GPUCOST_COLLECT="$root/scripts/collect-logs.sh" GPUCOST_SEGMENT=90min COLLECT_LOGS_VARLOG="$work/no-varlog" \
  timeout 60 "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/usage.err"
rc=$?
check "a usage error ends the recorder with status 2 (status $rc)" [ "$rc" = 2 ]
check "after one attempt" [ "$(grep -c "Try 'collect-logs.sh --help'" "$work/usage.err")" = 1 ]
check "and says so" grep -q '^gpucost-recorder: usage error' "$work/usage.err"
env GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$work/usage" GPUCOST_MAX_MB=1G \
  timeout 60 "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/usage2.err"
rc=$?
check "a GPUCOST_MAX_MB that is no number is a usage error too (status $rc)" [ "$rc" = 2 ]

# Any other failure waits before the next attempt (10 s, doubling), and SIGTERM still ends the
# wait at once.
# shellcheck disable=SC2016  # the fake's own variables
printf '%s\n' '#!/usr/bin/env bash' 'echo run >>"$RUNS"' 'exit 3' >"$work/failing-collect.sh"
chmod +x "$work/failing-collect.sh"
env GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$work/failing" GPUCOST_COLLECT="$work/failing-collect.sh" \
  RUNS="$work/runs" "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/failing.err" &
rec=$!
sleep 3
kill -TERM "$rec"
SECONDS=0
wait "$rec"
rc=$?
waited=$SECONDS
rec=""
runs=$(wc -l <"$work/runs")
check "a failing collect-logs.sh is not restarted at once ($runs runs in 3 s)" [ "$runs" -le 2 ]
check "the recorder says it waits" grep -q '^gpucost-recorder: retrying in 10 s' "$work/failing.err"
check "SIGTERM ends the wait (status $rc after $waited s)" [ "$rc" = 0 ] && [ "$waited" -le 5 ]

# A full disk is said in the log (here: GPUCOST_MIN_FREE_MB above what any disk has free), with
# the segments that recorded nothing; the oldest are removed, the newest kept.
# shellcheck disable=SC2016
printf '%s\n' '#!/usr/bin/env bash' 'while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done' \
  'mkdir -p "$out" && : >"$out/nvidia-smi-dmon.txt"' 'sleep 0.3' >"$work/empty-collect.sh"
chmod +x "$work/empty-collect.sh"
env GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$work/full" GPUCOST_COLLECT="$work/empty-collect.sh" \
  GPUCOST_MIN_FREE_MB=999999999 "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/full.err" &
rec=$!
sleep 3
kill -TERM "$rec"
wait "$rec"
rec=""
check "a full disk is said in the log" grep -q '^gpucost-recorder: disk full: ' "$work/full.err"
check "so is a segment that recorded nothing" grep -q 'recorded nothing' "$work/full.err"
check "old segments are removed to make room" grep -q '^gpucost-recorder: removing .* to make room' "$work/full.err"
check "the newest segment is kept" [ "$(find "$work/full" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 1 ]

# Issue 39: within GPUCOST_MAX_MB the newest segments are kept and the oldest removed, in order:
# segments of 400 KiB that do not compress under a 1 MiB bound leave the newest two or three.
# shellcheck disable=SC2016
printf '%s\n' '#!/usr/bin/env bash' 'while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done' \
  'mkdir -p "$out" && head -c 409600 /dev/urandom >"$out/nvidia-smi-dmon.txt" && echo "$out" >>"$RUNS"' \
  'sleep 0.3' >"$work/sized-collect.sh"
chmod +x "$work/sized-collect.sh"
env GPUCOST_CONFIG=/dev/null GPUCOST_LOG_DIR="$work/bounded" GPUCOST_COLLECT="$work/sized-collect.sh" \
  GPUCOST_MAX_MB=1 RUNS="$work/bounded-runs" "$root/deploy/systemd/gpucost-recorder.sh" 2>"$work/bounded.err" &
rec=$!
for ((i = 0; i < 300; i++)); do
  [ -f "$work/bounded-runs" ] && [ "$(wc -l <"$work/bounded-runs")" -ge 8 ] && break
  sleep 0.1
done
kill -TERM "$rec"
wait "$rec"
rec=""
runs=$(wc -l <"$work/bounded-runs")
kept=$(find "$work/bounded" -mindepth 1 -maxdepth 1 -type d | sort)
nkept=$(printf '%s\n' "$kept" | wc -l)
check "$runs segments recorded, $nkept kept under 1 MiB" [ "$runs" -ge 8 ] && [ "$nkept" -ge 2 ] && [ "$nkept" -le 3 ]
check "the kept segments are the newest" [ "$kept" = "$(tail -n "$nkept" "$work/bounded-runs" | sort)" ]
check "the removed ones were the oldest, oldest first" \
  [ "$(sed -n 's/^gpucost-recorder: removing \(.*\) (.*/\1/p' "$work/bounded.err")" = "$(head -n "$((runs - nkept))" "$work/bounded-runs")" ]
check "the directory is within the bound" [ "$(du -sm "$work/bounded" | cut -f1)" -le 1 ]

if ((failures)); then
  for f in recorder usage usage2 failing full bounded; do echo "--- $f.err" >&2; cat "$work/$f.err" >&2; done
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all checks passed"
