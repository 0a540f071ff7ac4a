#!/usr/bin/env python3
"""The benchmark's event-dense day (scripts/bench.sh, docs/performance.md).

Takes a day that `gpucost simulate` wrote (BASE) and writes OUT: the same files, but with
kern.log and syslog flooded by the few messages that repeat all day long on real machines:
- kern.log: `nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state`
  (a hybrid laptop polling its powered-down GPU; kept as a driver_error event, benign), and
  AppArmor audit denials of a snap (noise: counted, not kept);
- syslog: cron jobs every few seconds (kept as cron events).
REPEATS modeset lines and as many AppArmor lines are spread evenly over the span of kern.log,
REPEATS/4 cron lines over the span of syslog, merged in time order with the simulator's own
lines. Kernel lines carry the monotonic stamp of the boot they fall in (the offset of the last
simulator line before them: suspends move it), so they stay valid boot anchors.
The journal is left out (a machine with rsyslog and a volatile journal), as the issue's
example day was.

Deterministic: the same BASE and REPEATS give the same bytes. About 10 s per million repeats.
Usage: make-event-dense.py BASE OUT REPEATS
"""
import calendar
import os
import shutil
import sys

MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
YEAR = 2026  # only differences between stamps are used; the files carry no year


def stamp_seconds(line):
    """Seconds since the epoch of a syslog line's 'Mon dd HH:MM:SS' (YEAR), or None."""
    try:
        mon = MONTHS[line[0:3]]
        day = int(line[4:6])
        h, m, s = int(line[7:9]), int(line[10:12]), int(line[13:15])
    except (KeyError, ValueError):
        return None
    return calendar.timegm((YEAR, mon, day, h, m, s, 0, 0, 0))


def format_stamp(t):
    g = __import__("time").gmtime(t)
    return f"{calendar.month_abbr[g.tm_mon]} {g.tm_mday:2d} {g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}"


def mono_of(line):
    """The kernel's monotonic stamp of a kern.log line ('... kernel: [  12.345678] ...'), or None."""
    k = line.find(" kernel: [", 15)
    if k < 0:
        return None
    e = line.find("]", k)
    try:
        return float(line[k + 10 : e])
    except ValueError:
        return None


def flood(base_path, out_path, count, make_lines):
    """Copies base_path to out_path with `count` generated lines spread evenly over its span."""
    with open(base_path, encoding="utf-8", errors="surrogateescape") as f:
        base = f.readlines()
    stamps = [stamp_seconds(l) for l in base]
    known = [s for s in stamps if s is not None]
    first, last = min(known), max(known)
    span = last - first + 1
    host = next(l.split(" ", 4)[3] for l in base if stamp_seconds(l) is not None)
    # The audit stamp is UTC epoch; the line's stamp local time: keep the simulator's difference.
    zone = 0
    for l, st in zip(base, stamps):
        a = l.find(" audit(")
        if a >= 0 and st is not None:
            zone = int(l[a + 7 : l.index(".", a)]) - st
            break
    state = {"offset": None, "serial": 0, "zone": zone}
    i = 0
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape", buffering=1 << 20) as out:
        for sec in range(span):
            t = first + sec
            chunk = []
            while i < len(base) and (stamps[i] is None or stamps[i] <= t):
                line = base[i]
                chunk.append(line)
                mono = mono_of(line)
                if mono is not None and stamps[i] is not None:
                    state["offset"] = stamps[i] - mono
                i += 1
            n = (sec + 1) * count // span - sec * count // span
            if n:
                chunk.extend(make_lines(t, format_stamp(t), host, n, state))
            out.write("".join(chunk))
        out.write("".join(base[i:]))


def kernel_lines(t, stamp, host, n, state):
    offset = state["offset"]
    if offset is None:
        return []
    lines = []
    for j in range(n):
        mono = t - offset + (j + 0.5) / (n + 1)
        prefix = f"{stamp} {host} kernel: [{mono:12.6f}] "
        ch = 4 if j % 2 == 0 else 6
        lines.append(f"{prefix}nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: "
                     f"0x0000c67d:{ch}:0:0x0000000f\n")
        state["serial"] += 1
        lines.append(f"{prefix}audit: type=1400 audit({t + state['zone']}.{(j * 37) % 1000:03d}:{state['serial']}): "
                     f"apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" "
                     f"name=\"/proc/pressure/memory\" pid={2900 + state['serial'] % 400} comm=\"firefox\" "
                     f"requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=0\n")
    return lines


CRON_JOBS = ["(dev) CMD (/home/dev/bin/battery-log.sh >> /home/dev/.cache/battery.log 2>&1)",
             "(root) CMD (/usr/local/sbin/gpu-watch --once >/dev/null 2>&1)",
             "(root) CMD (   test -x /etc/cron.daily/popularity-contest && /etc/cron.daily/popularity-contest --crond)"]


def cron_lines(t, stamp, host, n, state):
    lines = []
    for j in range(n):
        state["serial"] += 1
        lines.append(f"{stamp} {host} CRON[{10000 + state['serial'] % 90000}]: {CRON_JOBS[(t + j) % 3]}\n")
    return lines


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    base, out, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(base)):
        if name in ("kern.log", "syslog", "journal.json", "truth.json"):
            continue
        shutil.copyfile(os.path.join(base, name), os.path.join(out, name))
    flood(os.path.join(base, "kern.log"), os.path.join(out, "kern.log"), repeats, kernel_lines)
    flood(os.path.join(base, "syslog"), os.path.join(out, "syslog"), repeats // 4, cron_lines)


if __name__ == "__main__":
    main()
