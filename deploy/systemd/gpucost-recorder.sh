#!/usr/bin/env bash
# gpucost-recorder.sh: keeps the node's GPU logs for after-the-fact analysis (the Slurm epilog,
# the Prometheus textfile timer). Runs scripts/collect-logs.sh in segments of
# GPUCOST_SEGMENT (default 1h) into GPUCOST_LOG_DIR/SEGMENT_START/ (nvidia-smi dmon, --query-gpu
# and pmon samples, ps snapshots, nvidia-smi -q, then the segment's dmesg and journal), compresses
# each finished segment (gpucost reads .gz by content) and removes the oldest segments while the
# directory holds more than GPUCOST_MAX_MB (default 1024). Started by gpucost-recorder.service.
# SIGTERM stops the current segment cleanly (collect-logs.sh finishes its files) and exits.
set -u
conf=${GPUCOST_CONFIG:-/etc/default/gpucost}
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"
logs=${GPUCOST_LOG_DIR:-/var/log/gpucost/samples}
collect=${GPUCOST_COLLECT:-/usr/share/gpucost/collect-logs.sh}
segment=${GPUCOST_SEGMENT:-1h}
interval=${GPUCOST_INTERVAL:-5}
ps_interval=${GPUCOST_PS_INTERVAL:-60}
max_mb=${GPUCOST_MAX_MB:-1024}
say() { echo "gpucost-recorder: $*" >&2; }

mkdir -p "$logs" || { say "cannot create $logs"; exit 1; }
stop=0 child=""
trap 'stop=1; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM INT

# Removes the oldest segments while the directory is over its bound (the newest is kept).
prune() {
  local used oldest
  while :; do
    used=$(du -sm "$logs" 2>/dev/null | cut -f1)
    [ -n "$used" ] && ((used > max_mb)) || return 0
    oldest=$(find "$logs" -mindepth 1 -maxdepth 1 -type d -name '20*' | sort | head -n 1)
    [ -n "$oldest" ] && [ "$(find "$logs" -mindepth 1 -maxdepth 1 -type d -name '20*' | wc -l)" -gt 1 ] || return 0
    say "removing $oldest (${used} MiB > GPUCOST_MAX_MB=$max_mb)"
    rm -rf "$oldest"
  done
}

# Compresses a finished segment's logs; manifest.json stays plain (the epilog reads it too).
compress() {
  find "$1" -type f ! -name manifest.json ! -name '*.gz' ! -name '*.part' -exec gzip -q -9 {} + 2>/dev/null
}

while ((!stop)); do
  out="$logs/$(date -u +%Y%m%dT%H%M%SZ)"
  "$collect" --out "$out" --duration "$segment" --interval "$interval" --ps-interval "$ps_interval" &
  child=$!
  wait "$child"
  rc=$?
  # A signal interrupts wait: wait again for collect-logs.sh to finish its files.
  while kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done
  child=""
  [ "$rc" = 0 ] || say "collect-logs.sh exited $rc for $out"
  compress "$out"
  prune
  ((stop)) || [ "$rc" != 1 ] || sleep 10  # a failing setup (no disk) does not spin
done
