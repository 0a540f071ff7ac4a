#!/usr/bin/env bash
# Generates the event-dense day of issue 16 (docs/performance.md, "Event-dense corpus"): one
# large classic `syslog` in which a few messages repeat hundreds of thousands of times, plus a
# day of `nvidia-smi dmon -o DT` at 1 s for two GPUs.
#
#   syslog    SIZE_MB of lines over one day (2026-11-30, BSD stamps, host gpubox): every
#             REPEAT_EVERY-th line is a repeated event, the rest noise. The repeats take turns:
#             `nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state`
#             (kernel, a driver_error event), CRON `(root) CMD (...)` (a cron event) every few
#             seconds; the noise is AppArmor `audit: type=1400 ... apparmor="DENIED"` denials
#             (the bulk), systemd and NetworkManager chatter.
#   dmon.txt  86 400 rows per GPU (the same day, `#Date Time gpu pwr gtemp ...`).
#
# Usage: scripts/gen-event-dense.sh OUTDIR [SIZE_MB] [REPEAT_EVERY]
#   SIZE_MB default 400; REPEAT_EVERY default 2 (about 1.1 M repeated events in 400 MB);
#   REPEAT_EVERY 20 gives a tenth of the repeats in the same bytes. Deterministic: the same
#   arguments write the same bytes. Needs only awk (mawk or gawk).
set -euo pipefail
out=${1:?usage: gen-event-dense.sh OUTDIR [SIZE_MB] [REPEAT_EVERY]}
size_mb=${2:-400}
every=${3:-2}
mkdir -p "$out"

awk -v bytes="$((size_mb * 1024 * 1024))" -v every="$every" '
function stamp(s,   h, m) {
  h = int(s / 3600); m = int((s % 3600) / 60)
  return sprintf("Nov 30 %02d:%02d:%02d gpubox", h, m, s % 60)
}
BEGIN {
  # Average line about 150 bytes: lines spread evenly over the day.
  n = int(bytes / 150); total = 0; i = 0; ev = 0
  while (total < bytes) {
    s = int(i * 86400 / n); if (s > 86399) s = 86399
    if (i % every == 0) {
      if (ev % 4 == 3)
        line = sprintf("%s CRON[%d]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)", stamp(s), 20000 + ev % 30000)
      else
        line = sprintf("%s kernel: nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:0:0:0x0000000f", stamp(s))
      ++ev
    } else if (i % 7 == 1) {
      line = sprintf("%s systemd[1]: Started session-%d.scope - Session %d of User ubuntu.", stamp(s), i % 9973, i % 9973)
    } else if (i % 7 == 2) {
      line = sprintf("%s NetworkManager[812]: <info>  [%d.%04d] dhcp4 (eno1): state changed new lease, address=10.0.3.17", stamp(s), 1764460800 + s, i % 10000)
    } else {
      line = sprintf("%s kernel: audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" name=\"/proc/pressure/memory\" pid=%d comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=0", stamp(s), 1764460800 + s, i % 1000, 100000 + i % 90000, 3000 + i % 5000)
    }
    print line
    total += length(line) + 1; ++i
  }
}' >"$out/syslog"

awk 'BEGIN {
  print "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk"
  print "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz"
  for (s = 0; s < 86400; ++s) {
    h = int(s / 3600); m = int((s % 3600) / 60)
    busy = (h >= 9 && h < 18)
    for (g = 0; g < 2; ++g)
      printf " 20261130   %02d:%02d:%02d %6d %5d %5d %5s %5d %5d %5d %5d %5d %5d\n", h, m, s % 60, g,
             busy ? 280 + (s + g) % 40 : 60 + (s % 7), busy ? 71 + (s % 5) : 38, "-", busy ? 97 : 0,
             busy ? 40 : 0, 0, 0, busy ? 9501 : 405, busy ? 1980 : 210
  }
}' >"$out/dmon.txt"
ls -l "$out" >&2
