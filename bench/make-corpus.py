#!/usr/bin/env python3
"""The benchmark's corpus family (issue 37; scripts/bench.sh, docs/performance.md).

Writes one shape of real log from a seed, with its parameters drawn from realistic ranges, so
that a speed measured on one seed's bytes can be checked on seeds never used while tuning:
  desktop  a busy desktop's day: syslog of CRON[pid] CMD lines, NetworkManager state changes,
           kernel AppArmor audit denials and many other idents with their own pids (pid churn),
           kern.log holding the kernel lines, a day of 1 s dmon (86 400 rows), a small journal;
  server   a server's kern.log with PCIe AER storms and NVRM Xid storms, beside dmon;
  journal  a journal JSON export (`journalctl -o json`), with kernel and service entries;
  flood    event-dense floods: a few messages repeated all day (nvidia-modeset errors, AppArmor);
  rotated  many small rotated files (20 000 one-line files by default: a log directory gone
           wrong), some gzipped;
  huge     one huge syslog file.
Drawn from the seed (printed on stderr and written to OUT/.corpus-params): number of idents
and their mix, pid churn, share of kernel lines, event density, line lengths, repeats against
all-distinct, file count and sizes, compression.

Deterministic: the same shape, seed, size and file count give the same bytes.
Usage: make-corpus.py SHAPE SEED SIZE OUT [FILES]
  SIZE in bytes with an optional K, M or G suffix: the text to write (the rotated shape's
  FILES one-line files do not grow with it); FILES: the rotated shape's file count.
"""
import gzip
import json
import os
import random
import sys
import time

START = 1795132800  # 2026-11-20 00:00:00 UTC; the files carry no year
DAY = 86400
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if s[-1].upper() in mult:
        return int(float(s[:-1]) * mult[s[-1].upper()])
    return int(s)


def syslog_stamp(t):
    g = time.gmtime(t)
    return f"{MON[g.tm_mon - 1]} {g.tm_mday:2d} {g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}"


WORDS = ("session opened closed started stopped finished reload listening connection from to "
         "user root client request timeout retry queue worker job unit service scope slice "
         "state changed active inactive success failed warning info debug device link carrier "
         "lease renew address route dns query reply cache update check complete").split()
IDENT_BASES = ("systemd systemd-logind systemd-resolved dbus-daemon gnome-shell gdm-x-session "
               "pulseaudio pipewire wireplumber snapd packagekitd udisksd polkitd avahi-daemon "
               "cupsd colord fwupd thermald upowerd bluetoothd wpa_supplicant ModemManager "
               "rtkit-daemon gsd-media-keys gsd-power tracker-miner-fs evolution-source-registry "
               "goa-daemon xdg-desktop-portal chrome firefox code slack zoom dockerd containerd "
               "kubelet sshd sudo anacron rsyslogd smartd irqbalance accounts-daemon").split()


class Params:
    """The shape's parameters, drawn from the seed within realistic ranges."""

    def __init__(self, shape, rng):
        self.shape = shape
        self.host = rng.choice(["ws-lab-07", "desk-a113", "gpu-node-12", "render-03", "ml-box"])
        self.idents = rng.randint(40, 400)            # distinct idents (with suffixes)
        self.pid_churn = rng.uniform(0.05, 0.9)       # share of lines that take a new pid
        self.kernel_share = rng.uniform(0.05, 0.35)   # of syslog lines
        self.cron_share = rng.uniform(0.04, 0.15)     # service/cron events
        self.nm_share = rng.uniform(0.03, 0.12)
        self.audit_share = rng.uniform(0.05, 0.2)     # of kernel lines
        self.repeat_share = rng.uniform(0.0, 0.6)     # lines that repeat the line before's text
        self.msg_words = (rng.randint(3, 8), rng.randint(12, 40))  # line length range
        self.storm_share = rng.uniform(0.002, 0.05)   # server: AER/Xid share of kernel lines
        self.storm_len = rng.randint(50, 5000)        # lines per storm
        self.flood_msgs = rng.randint(2, 6)           # flood: distinct repeated messages
        self.flood_share = rng.uniform(0.5, 0.95)
        self.gz_share = rng.uniform(0.0, 0.5)         # rotated: gzipped files
        self.gpus = rng.choice([1, 1, 2, 4])

    def describe(self):
        return " ".join(f"{k}={v if not isinstance(v, float) else round(v, 3)}"
                        for k, v in sorted(vars(self).items()))


def ident_pool(rng, n):
    out = []
    for i in range(n):
        base = rng.choice(IDENT_BASES)
        out.append(base if i < len(IDENT_BASES) and rng.random() < 0.5 else f"{base}-{rng.randint(1, 999)}")
    return out


def words(rng, p):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(*p.msg_words)))


def audit_line(rng, t):
    pid = rng.randint(1000, 400000)
    prof = rng.choice(["snap.firefox.firefox", "snap.code.code", "/usr/bin/evince", "cups-browsed",
                       "snap.slack.slack", "libreoffice-soffice"])
    op = rng.choice(["open", "file_mmap", "capable", "mknod", "exec"])
    return (f'audit: type=1400 audit({t}.{rng.randint(0, 999):03d}:{rng.randint(100, 999999)}): '
            f'apparmor="DENIED" operation="{op}" class="file" profile="{prof}" '
            f'name="/proc/{pid}/cgroup" pid={pid} comm="{prof.split(".")[-1]}" '
            f'requested_mask="r" denied_mask="r" fsuid=1000 ouid=0')


def kernel_message(rng, p):
    r = rng.random()
    if r < p.audit_share:
        return None  # audit: filled by the caller (needs the time)
    return rng.choice([
        f"usb {rng.randint(1, 4)}-{rng.randint(1, 9)}: new high-speed USB device number {rng.randint(2, 99)} using xhci_hcd",
        f"wlp2s0: {rng.choice(['authenticate', 'associate', 'RX AssocResp'])} with {rng.randint(0, 255):02x}:1c:4a:{rng.randint(0, 255):02x}:9e:01",
        f"EXT4-fs (nvme0n1p{rng.randint(1, 4)}): mounted filesystem with ordered data mode",
        f"IPv6: ADDRCONF(NETDEV_CHANGE): veth{rng.randint(0, 0xffffff):06x}: link becomes ready",
        f"docker0: port {rng.randint(1, 9)}(veth{rng.randint(0, 0xffffff):06x}) entered forwarding state",
        f"[UFW BLOCK] IN=wlp2s0 OUT= SRC=192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)} DST=224.0.0.251 LEN={rng.randint(40, 1500)} PROTO=UDP SPT=5353 DPT=5353",
        f"perf: interrupt took too long ({rng.randint(2500, 9000)} > {rng.randint(2000, 2500)}), lowering kernel.perf_event_max_sample_rate to {rng.randint(20000, 80000)}",
    ])


class Clock:
    """Spreads `n` lines over a day in time order; the kernel's monotonic clock follows it."""

    def __init__(self, n, span=DAY):
        self.n, self.span, self.i = max(n, 1), span, 0

    def next(self):
        t = START + self.i * self.span // self.n
        self.i += 1
        return t

    def mono(self, r):
        """The kernel's stamp of the line next() gave last, `r` in [0, 1) placing it in the line's
        own slot: printk stamps only go forward, like the wall clock."""
        return 12.0 + (self.i - 1 + 0.9 * r) * self.span / self.n


def estimate_lines(size, avg):
    return max(1, size // avg)


def write_syslog_pair(rng, p, size, syslog_path, kern_path, idents):
    """A syslog of `size` bytes and the kern.log of its kernel lines."""
    n = estimate_lines(size, 130)
    clock = Clock(n)
    pids = {i: rng.randint(300, 90000) for i in idents}
    nm_devices = ["wlp2s0", "enp3s0", "docker0", "virbr0"] + [f"veth{rng.randint(0, 0xffffff):06x}" for _ in range(8)]
    prev = None
    written = 0
    with open(syslog_path, "w") as sy, open(kern_path, "w") as kl:
        while written < size:
            t = clock.next()
            st = syslog_stamp(t)
            mono = clock.mono(rng.random())
            if prev is not None and rng.random() < p.repeat_share:
                line = f"{st} {p.host} {prev}\n"
                sy.write(line)
                written += len(line)
                continue
            r = rng.random()
            if r < p.kernel_share:
                msg = kernel_message(rng, p) or audit_line(rng, t)
                body = f"kernel: [{mono:12.6f}] {msg}"
                kl.write(f"{st} {p.host} {body}\n")
            elif r < p.kernel_share + p.cron_share:
                body = (f"CRON[{rng.randint(1000, 400000)}]: ({rng.choice(['root', 'www-data', 'backup'])}) "
                        f"CMD ({rng.choice(['command -v debian-sa1 > /dev/null && debian-sa1 1 1', '[ -x /usr/lib/php/sessionclean ] && /usr/lib/php/sessionclean', 'cd / && run-parts --report /etc/cron.hourly', '/usr/local/bin/backup.sh --incremental'])})")
            elif r < p.kernel_share + p.cron_share + p.nm_share:
                old, new = rng.sample(["disconnected", "prepare", "config", "ip-config", "ip-check", "secondaries", "activated", "deactivating", "unavailable"], 2)
                body = (f"NetworkManager[811]: <info>  [{t}.{rng.randint(0, 9999):04d}] device ({rng.choice(nm_devices)}): "
                        f"state change: {old} -> {new} (reason '{rng.choice(['none', 'managed', 'carrier-changed', 'user-requested'])}', sys-iface-state: 'managed')")
            else:
                ident = rng.choice(idents)
                if rng.random() < p.pid_churn:
                    pids[ident] = rng.randint(300, 400000)
                body = f"{ident}[{pids[ident]}]: {words(rng, p)}"
            prev = body
            line = f"{st} {p.host} {body}\n"
            sy.write(line)
            written += len(line)


DMON_HEAD = ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"
             "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n")


def write_dmon(rng, p, path, seconds=DAY):
    """1 s dmon for the day, p.gpus GPUs."""
    with open(path, "w") as f:
        for t in range(START, START + seconds):
            if (t - START) % 3600 == 0:
                f.write(DMON_HEAD)
            g = time.gmtime(t)
            d = f"{g.tm_year}{g.tm_mon:02d}{g.tm_mday:02d}"
            c = f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}"
            busy = 9 <= g.tm_hour < 18
            for gpu in range(p.gpus):
                sm = rng.randint(60, 100) if busy else rng.randint(0, 5)
                pwr = 30 + sm * 2 + rng.randint(0, 9)
                f.write(f" {d}    {c}  {gpu:6d} {pwr:6d} {40 + sm // 3:6d}      - {sm:6d} {sm // 2:6d}      0      0      0      0   {9501 if busy else 405:4d}   {1800 if busy else 211:4d}      0      0 {8000 if busy else 301:6d}      5      0      -      -      0 {rng.randint(1, 900):6d} {rng.randint(1, 900):6d} \n")


def journal_entry(rng, p, t, boot, ident, pid, msg, transport="syslog", prio=6):
    us = t * 1000000 + rng.randint(0, 999999)
    # journald reads both clocks for one entry at one instant: the monotonic stamp keeps the
    # realtime stamp's microseconds (a whole-second one would move the offset on every entry).
    e = {"__REALTIME_TIMESTAMP": str(us), "__MONOTONIC_TIMESTAMP": str(us - (START - 12) * 1000000),
         "_BOOT_ID": boot, "PRIORITY": str(prio), "_TRANSPORT": transport,
         "SYSLOG_IDENTIFIER": ident, "MESSAGE": msg, "_HOSTNAME": p.host}
    if pid:
        e["_PID"] = str(pid)
    return json.dumps(e, separators=(",", ":")) + "\n"


def write_journal(rng, p, size, path, idents):
    n = estimate_lines(size, 330)
    clock = Clock(n)
    boot = "%032x" % rng.getrandbits(128)
    written = 0
    with open(path, "w") as f:
        while written < size:
            t = clock.next()
            if rng.random() < p.kernel_share:
                msg = kernel_message(rng, p) or audit_line(rng, t)
                line = journal_entry(rng, p, t, boot, "kernel", None, msg, "kernel", 5)
            else:
                line = journal_entry(rng, p, t, boot, rng.choice(idents), rng.randint(300, 400000), words(rng, p))
            f.write(line)
            written += len(line)


def write_server_kern(rng, p, size, path):
    """kern.log with AER and Xid storms among ordinary kernel lines."""
    n = estimate_lines(size, 120)
    clock = Clock(n)
    written = 0
    storm = 0
    kind = None
    bus = rng.choice(["0000:17:00.0", "0000:65:00.0", "0000:b3:00.0"])
    with open(path, "w") as f:
        while written < size:
            t = clock.next()
            mono = clock.mono(rng.random())
            if storm == 0 and rng.random() < p.storm_share / p.storm_len * 4:
                storm = rng.randint(p.storm_len // 2, p.storm_len)
                kind = rng.choice(["aer", "xid"])
            if storm:
                storm -= 1
                if kind == "aer":
                    msg = rng.choice([
                        f"pcieport 0000:{bus[5:7]}:01.0: AER: Corrected error message received from {bus}",
                        f"nvidia {bus}: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
                        f"nvidia {bus}:   device [10de:2330] error status/mask=00000001/0000e000",
                        f"nvidia {bus}:    [ 0] RxErr                  (First)"])
                else:
                    code = rng.choice([13, 31, 43, 45, 63, 94])
                    pid = rng.randint(1000, 400000)
                    msg = f"NVRM: Xid (PCI:{bus[:-2]}): {code}, pid={pid}, name=python3, Ch 0000{rng.randint(0, 99):04d}"
            else:
                msg = kernel_message(rng, p) or audit_line(rng, t)
            line = f"{syslog_stamp(t)} {p.host} kernel: [{mono:12.6f}] {msg}\n"
            f.write(line)
            written += len(line)


def write_flood(rng, p, size, path):
    msgs = ["nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:0:0:0x0000000f",
            'audit: type=1400 audit(0:1): apparmor="DENIED" operation="open" class="file" profile="snap.snapd-desktop-integration" name="/proc/sys/vm/max_map_count" pid=2211 comm="snapd-desktop-i" requested_mask="r" denied_mask="r" fsuid=1000 ouid=0',
            "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
            "i2c_hid_acpi i2c-ELAN0001:00: i2c_hid_get_input: incomplete report (14/65535)",
            "ACPI Error: No handler for Region [ECOR] (00000000a1b2c3d4) [EmbeddedControl] (20230628/evregion-130)",
            "pcieport 0000:00:1c.0: AER: Corrected error message received from 0000:00:1c.0"][:p.flood_msgs]
    n = estimate_lines(size, 150)
    clock = Clock(n)
    written = 0
    with open(path, "w") as f:
        while written < size:
            t = clock.next()
            mono = clock.mono(rng.random())
            msg = rng.choice(msgs) if rng.random() < p.flood_share else (kernel_message(rng, p) or audit_line(rng, t))
            line = f"{syslog_stamp(t)} {p.host} kernel: [{mono:12.6f}] {msg}\n"
            f.write(line)
            written += len(line)


def write_rotated(rng, p, out, files, idents):
    sub = os.path.join(out, "var-log-app")
    os.makedirs(sub)
    for i in range(files):
        t = START + i * DAY // files
        if rng.random() < p.kernel_share:
            body = f"kernel: [{t - START + 12.0:12.6f}] " + (kernel_message(rng, p) or audit_line(rng, t))
        else:
            body = f"{rng.choice(idents)}[{rng.randint(300, 400000)}]: {words(rng, p)}"
        data = f"{syslog_stamp(t)} {p.host} {body}\n".encode()
        name = os.path.join(sub, f"app.log.{i}")
        if rng.random() < p.gz_share:
            with open(name + ".gz", "wb") as f:
                f.write(gzip.compress(data, 6, mtime=0))
        else:
            with open(name, "wb") as f:
                f.write(data)


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    shape, seed, size, out = sys.argv[1], int(sys.argv[2]), parse_size(sys.argv[3]), sys.argv[4]
    files = int(sys.argv[5]) if len(sys.argv) == 6 else 20000
    rng = random.Random(f"{shape}:{seed}")
    p = Params(shape, rng)
    os.makedirs(out, exist_ok=True)
    idents = ident_pool(rng, p.idents)
    if shape == "desktop":
        write_syslog_pair(rng, p, size, os.path.join(out, "syslog"), os.path.join(out, "kern.log"), idents)
        write_dmon(rng, p, os.path.join(out, "dmon.log"))
        write_journal(rng, p, min(size // 50, 4 << 20), os.path.join(out, "journal.json"), idents)
    elif shape == "server":
        write_server_kern(rng, p, size, os.path.join(out, "kern.log"))
        write_dmon(rng, p, os.path.join(out, "dmon.log"), 3600)
    elif shape == "journal":
        write_journal(rng, p, size, os.path.join(out, "journal.json"), idents)
    elif shape == "flood":
        write_flood(rng, p, size, os.path.join(out, "kern.log"))
    elif shape == "rotated":
        write_rotated(rng, p, out, files, idents)
    elif shape == "huge":
        # one file: the syslog; its kern.log twin is not kept
        write_syslog_pair(rng, p, size, os.path.join(out, "syslog"), os.devnull, idents)
    else:
        sys.exit(f"make-corpus.py: unknown shape {shape!r}")
    desc = f"shape={shape} seed={seed} size={size} files={files} {p.describe()}"
    with open(os.path.join(out, ".corpus-params"), "w") as f:
        f.write(desc + "\n")
    print(f"make-corpus: {desc}", file=sys.stderr)


if __name__ == "__main__":
    main()
