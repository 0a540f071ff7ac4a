#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from the test fixtures
(tests/data) and the example directory (examples/laptop-training): files cut into pieces of at
most MAX_BYTES at line ends, a few per file, so that the repository stays light. Seeds are named
seed-*; reproducers of findings (regress-*) are kept. Run again after adding fixtures:
    python3 fuzz/make_corpus.py
"""
import glob
import gzip
import hashlib
import lzma
import os
import shutil
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_BYTES = 3000      # libFuzzer mutates small inputs faster; parsers see every layout anyway
PIECES_PER_FILE = 3   # head, middle, tail


def rel(*pattern):
    return sorted(glob.glob(os.path.join(ROOT, *pattern)))


def read(path):
    data = open(path, "rb").read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def pieces(data, max_bytes=MAX_BYTES, count=PIECES_PER_FILE):
    """Up to `count` runs of whole lines of at most max_bytes: from the start, middle and end."""
    if len(data) <= max_bytes:
        return [data]
    out = []
    for start in sorted({0, len(data) // 2, max(0, len(data) - max_bytes)})[:count]:
        if start:
            nl = data.find(b"\n", start)
            if nl < 0:
                continue
            start = nl + 1
        chunk = data[start:start + max_bytes]
        cut = chunk.rfind(b"\n")
        if cut > 0:
            chunk = chunk[:cut + 1]
        if chunk:
            out.append(chunk)
    return out


TARGETS = {
    "dmon": ["tests/data/real/dmon/*", "tests/data/gpu/dmon-*", "tests/data/cost/analyze/*dmon*",
             "examples/laptop-training/dmon.log"],
    "pmon": ["tests/data/gpu/pmon-*"],
    "query_gpu_csv": ["tests/data/gpu/query-*", "tests/data/real/querygpu/*"],
    "dcgmi_dmon": ["tests/data/gpu/dcgmi-dmon-*"],
    "nvidia_smi_q": ["tests/data/gpu/q-*", "tests/data/gpu/nvidia-bug-report-excerpt.log",
                     "examples/laptop-training/nvidia-smi-q.txt"],
    "dmesg": ["tests/data/real/kern/*dmesg*", "tests/data/report/logs/dmesg-*",
              "examples/laptop-training/dmesg.txt"],
    "syslog": ["tests/data/real/syslog/*", "tests/data/real/kern/*syslog*", "examples/laptop-training/kern.log*",
               "examples/laptop-training/syslog"],
    "syslog_prefix": ["tests/data/real/syslog/*", "tests/data/real/kern/*syslog*", "tests/data/real/kern/*journal*",
                      "examples/laptop-training/kern.log", "examples/laptop-training/syslog"],
    "journal_short": ["tests/data/real/journal/*.txt", "tests/data/real/kern/*journal*"],
    "journal_json": ["tests/data/real/journal/json-*", "examples/laptop-training/journal.json"],
    "journal_export": ["tests/data/structured/*.export"],
    "ps": ["tests/data/structured/ps-*", "examples/laptop-training/ps.txt"],
    "torch_trace": ["tests/data/structured/torch-trace-*"],
    "manifest": ["tests/data/structured/manifest.json"],
    "nvidia_smi_q_xml": ["tests/data/real/smiq-xml/*"],
    "acpid": ["tests/data/kernel/acpid-*"],
    "sim_truth": ["examples/laptop-training/truth.json"],
    "rapl_energy": ["tests/data/host_power/rapl-*"],
    "ipmi_dcmi_power": ["tests/data/host_power/ipmitool-*"],
}


def write(target, data, name_hint):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()[:12]
    base = os.path.basename(name_hint).replace(".", "-")
    with open(os.path.join(d, f"seed-{base}-{h}"), "wb") as f:
        f.write(data)


def export_with_binary_field():
    """journalctl -o export with a binary MESSAGE (KEY\\n, le64 size, bytes, \\n), as systemd documents."""
    msg = b"NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n\x00binary"
    rec = (b"__CURSOR=s=1;i=1;b=2c18e4b26c0760722a2306bc75929b67;m=18cbc3;t=660aac3911a55;x=1\n"
           b"__REALTIME_TIMESTAMP=1795136402037333\n__MONOTONIC_TIMESTAMP=1625027\n"
           b"_BOOT_ID=2c18e4b26c0760722a2306bc75929b67\n_TRANSPORT=kernel\nSYSLOG_IDENTIFIER=kernel\n"
           b"MESSAGE\n" + struct.pack("<Q", len(msg)) + msg + b"\n\n")
    return rec + rec.replace(b"i=1;", b"i=2;")


def main():
    for target in list(TARGETS) + ["detect", "time", "align", "pipeline"]:
        d = os.path.join(CORPUS, target)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.startswith("seed-"):
                    os.remove(os.path.join(d, f))
    firsts = {}
    for target, patterns in TARGETS.items():
        for pattern in patterns:
            for path in rel(pattern):
                data = read(path)
                parts = pieces(data)
                for p in parts:
                    write(target, p, path)
                write("detect", parts[0], path)  # detection reads the head of a file
                firsts.setdefault(target, []).append((path, parts[0]))
    write("journal_export", export_with_binary_field(), "binary-field.export")
    write("detect", export_with_binary_field(), "binary-field.export")
    # Detection also reads gzip: two small compressed seeds, one cut short.
    kern = pieces(read(os.path.join(ROOT, "tests/data/real/syslog/loghub-linux-2k-head.log")), 1500, 1)[0]
    write("detect", gzip.compress(kern, mtime=0), "kern.log.gz")
    write("detect", gzip.compress(kern, mtime=0)[:-20], "truncated.gz")
    # Rotations in zstd and xz too (decompress.cpp), whole and cut short; zstd through its
    # command-line tool (Debian's zstd), when installed.
    xz = lzma.compress(kern, preset=1)
    write("detect", xz, "kern.log.xz")
    write("detect", xz[:-20], "truncated.xz")
    if shutil.which("zstd"):
        zst = subprocess.run(["zstd", "-q", "-3", "-c"], input=kern, capture_output=True, check=True).stdout
        write("detect", zst, "kern.log.zst")
        write("detect", zst[:-20], "truncated.zst")

    # Time: `zone\nlines`: the first lines of the stamped formats under a few zone specs.
    zones = [b"Asia/Shanghai", b"+08:00", b"-0530", b"Z", b"America/New_York", b"Europe/Berlin", b"jan.",
             b"\xd1\x84\xd0\xb5\xd0\xb2", b"4\xe6\x9c\x88", b"UTC"]
    k = 0
    for target in ("dmesg", "syslog", "journal_short", "ps"):
        for path, data in firsts.get(target, []):
            lines = b"\n".join(data.split(b"\n")[:6])
            write("time", zones[k % len(zones)] + b"\n" + lines, path)
            k += 1

    # Pipeline: small directories (files joined by form feeds) that mix sources of one machine.
    ex = lambda name: pieces(read(os.path.join(ROOT, "examples/laptop-training", name)), 2000, 1)[0]
    combos = [
        [ex("dmesg.txt"), ex("kern.log"), ex("journal.json"), ex("dmon.log")],
        [ex("dmon.log"), ex("ps.txt"), ex("nvidia-smi-q.txt")],
        [ex("syslog"), ex("kern.log.1")],
    ]
    for i, c in enumerate(combos):
        write("pipeline", b"\f".join(c), f"combo{i}")
    for path, data in firsts.get("dmesg", [])[:4]:
        write("pipeline", data, path)

    # Align reads raw bytes through FuzzedDataProvider: a few byte strings to start from.
    for i in range(4):
        write("align", hashlib.sha512(bytes([i])).digest() * (i + 1), f"bytes{i}")

    total = sum(os.path.getsize(f) for f in glob.glob(os.path.join(CORPUS, "*", "*")))
    print(f"fuzz corpus: {len(glob.glob(os.path.join(CORPUS, '*', '*')))} files, {total // 1024} KiB")


if __name__ == "__main__":
    main()
