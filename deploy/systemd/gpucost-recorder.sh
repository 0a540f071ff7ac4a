#!/usr/bin/env bash
# gpucost-recorder.sh: keeps the node's GPU logs for after-the-fact analysis (the Slurm epilog,
# the Prometheus textfile timer). Runs scripts/collect-logs.sh in segments of
# GPUCOST_SEGMENT (default 1h) into GPUCOST_LOG_DIR/SEGMENT_START/ (nvidia-smi dmon, --query-gpu
# and pmon samples, ps snapshots, nvidia-smi -q, then the segment's dmesg and journal), compresses
# each finished segment (gpucost reads .gz by content) and removes the oldest segments while the
# directory holds more than GPUCOST_MAX_MB (default 1024). Started by gpucost-recorder.service.
# SIGTERM stops the current segment cleanly (collect-logs.sh finishes its files) and exits.
#
# A failed segment (any non-zero exit of collect-logs.sh) is retried after a pause that doubles
# from 10 s to 5 min, so nothing spins; a usage error (exit 2: a typo in /etc/default/gpucost,
# GPUCOST_SEGMENT=90min) cannot mend itself: the recorder exits 2, and systemd marks the unit
# failed (RestartPreventExitStatus=2) for `systemctl --failed` to show. Less than
# GPUCOST_MIN_FREE_MB (default 64) free on the disk of GPUCOST_LOG_DIR, or a segment that
# recorded nothing, is said in the log, and the oldest segments are removed to make room.
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
min_free_mb=${GPUCOST_MIN_FREE_MB:-64}
say() { echo "gpucost-recorder: $*" >&2; }
for v in max_mb min_free_mb; do
  [[ ${!v} =~ ^[0-9]+$ ]] || { say "GPUCOST_${v^^}='${!v}' is not a whole number of MiB"; exit 2; }
done

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

# MiB free on the disk of the log directory (empty when df cannot say).
free_mb() { df -Pk "$logs" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }'; }

# Says when the disk is (nearly) full or the segment recorded nothing, and removes the oldest
# segments (never the newest) until GPUCOST_MIN_FREE_MB is free.
check_space() {
  local seg=$1 free oldest
  if [ -z "$(find "$seg" -type f \( -name 'nvidia-smi-*' -o -name 'ps.log*' \) -size +0 2>/dev/null | head -n 1)" ]; then
    say "segment $seg recorded nothing (no nvidia-smi or ps file has data; disk full?)"
  fi
  free=$(free_mb)
  [ -n "$free" ] && ((free < min_free_mb)) || return 0
  say "disk full: ${free} MiB free on the disk of $logs (< GPUCOST_MIN_FREE_MB=$min_free_mb); segments may be incomplete"
  while [ -n "$free" ] && ((free < min_free_mb)); do
    oldest=$(find "$logs" -mindepth 1 -maxdepth 1 -type d -name '20*' | sort | head -n 1)
    [ -n "$oldest" ] && [ "$(find "$logs" -mindepth 1 -maxdepth 1 -type d -name '20*' | wc -l)" -gt 1 ] || return 0
    say "removing $oldest to make room"
    rm -rf "$oldest"
    free=$(free_mb)
  done
}

# Sleeps N seconds unless SIGTERM comes first (the trap kills the sleep).
pause() {
  sleep "$1" &
  child=$!
  wait "$child" 2>/dev/null
  child=""
}

# Compresses a finished segment's logs; manifest.json stays plain (the epilog reads it too).
compress() {
  find "$1" -type f ! -name manifest.json ! -name '*.gz' ! -name '*.part' -exec gzip -q -9 {} + 2>/dev/null
}

backoff=10
while ((!stop)); do
  base="$logs/$(date -u +%Y%m%dT%H%M%SZ)"
  out=$base
  # Two segments in one second (one that ended at once): the second gets a suffix, as
  # collect-logs.sh writes only into a new directory.
  for ((n = 1; n < 100; n++)); do [ -e "$out" ] || break; out="$base.$n"; done
  "$collect" --out "$out" --duration "$segment" --interval "$interval" --ps-interval "$ps_interval" &
  child=$!
  wait "$child"
  rc=$?
  # A signal interrupts wait: wait again for collect-logs.sh to finish its files.
  while kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done
  child=""
  [ "$rc" = 0 ] || say "collect-logs.sh exited $rc for $out"
  if [ "$rc" = 2 ] && ((!stop)); then
    say "usage error: check the GPUCOST_* settings in $conf; exiting"
    rmdir "$out" 2>/dev/null
    exit 2
  fi
  if [ -d "$out" ]; then
    check_space "$out"  # before compression: gzip makes an empty file 20 bytes
    compress "$out"
  fi
  prune
  # A segment cut short by SIGTERM is no failure; any other non-zero exit waits, longer each time.
  if ((!stop)) && [ "$rc" != 0 ]; then
    say "retrying in ${backoff} s"
    pause "$backoff"
    backoff=$((backoff * 2 > 300 ? 300 : backoff * 2))
  elif [ "$rc" = 0 ]; then
    backoff=10
  fi
done
