#!/usr/bin/env bash
# Runs scripts/collect-logs.sh without a GPU: fake nvidia-smi, dmesg, journalctl and ipmitool
# (tests/collect/fake-bin, printing real-layout output from tests/data) come first on PATH, and a
# fake powercap tree stands in for /sys/class/powercap.
#
#   collect_test.sh e2e      collect for a few seconds, then `gpucost analyze` the result
#   collect_test.sh fallback what is collected when the driver and the permissions refuse much
#   collect_test.sh sigint   Ctrl-C during the collection, then again while it finishes
#   collect_test.sh usage    bad options are refused
#
# GPUCOST_BINARY names the built gpucost (ctest sets it). Needs python3 (scripts/setup.sh).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/scripts/collect-logs.sh
fakebin=$root/tests/collect/fake-bin
kernel_fixture=$root/tests/data/real/kern/xid31-xid13-xid32-dmesg-driver418.txt
gpucost=${GPUCOST_BINARY:-$root/build/gpucost}
work=$(mktemp -d "${TMPDIR:-/tmp}/collect-test.XXXXXX")
ticker=""
trap '[ -n "$ticker" ] && kill "$ticker" 2>/dev/null; rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
lacks() { ! grep -q "$1" "$2"; }
check() {  # check DESCRIPTION COMMAND...
  local d=$1
  shift
  if "$@"; then pass "$d"; else fail "$d"; fi
}

# Every process a fake tool ran in (its process group included) must be gone.
no_leftovers() {
  local log=$1 pgid left=""
  while read -r pgid; do
    [ -n "$pgid" ] || continue
    # Zombies do not run: where PID 1 does not reap orphans (containers) they stay listed.
    if ps -eo pgid=,stat= | awk -v g="$pgid" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; then
      left+=" $(ps -eo pgid=,pid=,stat=,args= | awk -v g="$pgid" '$1 == g { $1 = ""; print }' | tr '\n' ';')"
    fi
  done < <(sed -n 's/.* pgid=\([0-9]*\) .*/\1/p' "$log" | sort -u)
  if [ -n "$left" ]; then echo "  still running:$left" >&2; return 1; fi
}

btime=$(awk '$1 == "btime" { print $2 }' /proc/stat)

# A powercap tree as the kernel lays it out (/sys/class/powercap/intel-rapl:N[:M]) for package 0,
# its DRAM and its cores (a part of the package, not read), with the ranges Intel servers report.
# A background loop sets the counters from the time elapsed: the package draws 50 W, its DRAM
# 5 W. The package's counter starts 150 J below its range, so that it wraps after 3 s.
readonly RAPL_PKG_RANGE=262143328850 RAPL_DRAM_RANGE=65712999613
fake_powercap() {  # fake_powercap DIR: starts the loop ($ticker)
  local d=$1 t0
  mkdir -p "$d/intel-rapl:0" "$d/intel-rapl:0:0" "$d/intel-rapl:0:1"
  echo package-0 >"$d/intel-rapl:0/name"
  echo dram >"$d/intel-rapl:0:0/name"
  echo core >"$d/intel-rapl:0:1/name"
  echo "$RAPL_PKG_RANGE" >"$d/intel-rapl:0/max_energy_range_uj"
  echo "$RAPL_DRAM_RANGE" >"$d/intel-rapl:0:0/max_energy_range_uj"
  echo "$RAPL_PKG_RANGE" >"$d/intel-rapl:0:1/max_energy_range_uj"
  t0=$(date +%s%N)
  tick() {
    local us=$((($(date +%s%N) - t0) / 1000))
    echo $(((RAPL_PKG_RANGE - 150000000 + 50 * us) % (RAPL_PKG_RANGE + 1))) >"$d/e.tmp" && mv -f "$d/e.tmp" "$d/intel-rapl:0/energy_uj"
    echo $((1000000 + 5 * us)) >"$d/e.tmp" && mv -f "$d/e.tmp" "$d/intel-rapl:0:0/energy_uj"
    echo $((2000000 + 40 * us)) >"$d/e.tmp" && mv -f "$d/e.tmp" "$d/intel-rapl:0:1/energy_uj"
  }
  tick
  (while :; do tick; sleep 0.05; done) &
  ticker=$!
}

# A kern.log as rsyslog writes it (local time without a year, then the kernel's own stamp) for
# the fake dmesg's messages, and a rotated file from before the collection, which is not copied.
write_varlog() {  # write_varlog DIR KERNEL_AT
  local d=$1 at=$2 k=0 line mono
  mkdir -p "$d"
  : >"$d/kern.log"
  while IFS= read -r line; do
    [[ $line =~ ^\[\ *[0-9]+\.[0-9]+\]\ (.*)$ ]] || continue
    mono=$(awk -v a="$at" -v b="$btime" -v k="$k" 'BEGIN { printf "%.6f", a - b + 0.01 * k }')
    printf '%s gpu-box kernel: [%12s] %s\n' "$(TZ=Asia/Shanghai date -d "@$at" '+%b %e %H:%M:%S')" "$mono" \
      "${BASH_REMATCH[1]}" >>"$d/kern.log"
    k=$((k + 1))
  done <"$kernel_fixture"
  echo "Nov 27 08:00:00 gpu-box kernel: [    1.000000] an older boot, rotated before the collection" >"$d/kern.log.1"
  touch -d '2 days ago' "$d/kern.log.1"
}

case_e2e() {
  local out=$work/e2e log=$work/e2e-tools.log at rc
  at=$(($(date +%s) + 3))
  write_varlog "$work/varlog" "$at"
  fake_powercap "$work/powercap"
  # A slow start (each probing nvidia-smi call takes 4 s, together longer than --duration) must
  # not eat the collection: the deadline counts from when the collectors run, and the first round
  # (a ps snapshot, a look at the load) comes before the deadline is checked. GPU 0 is busy from
  # the first dmon row, so the -q under load does not depend on how fast this machine is.
  env PATH="$fakebin:$PATH" TZ=Asia/Shanghai FAKE_TOOLS_LOG="$log" FAKE_KERNEL_AT="$at" \
    FAKE_NVSMI_INVALID_FIELDS=temperature.memory FAKE_NVSMI_REFUSE_DMON=t COLLECT_LOGS_VARLOG="$work/varlog" \
    FAKE_NVSMI_PROBE_DELAY=4 FAKE_NVSMI_BUSY_FROM=0 COLLECT_LOGS_POWERCAP="$work/powercap" \
    "$script" --out "$out" --duration 6s --interval 1 --ps-interval 1 --ipmi-interval 2
  rc=$?
  kill "$ticker" 2>/dev/null
  ticker=""
  check "collect-logs.sh exits 0" [ "$rc" = 0 ]
  local f
  for f in manifest.json nvidia-smi-dmon.txt nvidia-smi-query-gpu.csv nvidia-smi-pmon.txt nvidia-smi-q-start.txt \
           nvidia-smi-q-load.txt ps.log dmesg.txt journal.json var-log/kern.log rapl-energy.txt; do
    check "$f collected" test -s "$out/$f"
  done
  # The BMC is read as root only (where a test runs unprivileged, the entry says so).
  if [ "$(id -u)" = 0 ]; then
    check "ipmi-dcmi-power.txt collected (root)" test -s "$out/ipmi-dcmi-power.txt"
  else
    check "ipmi-dcmi-power.txt not collected (not root)" test ! -e "$out/ipmi-dcmi-power.txt"
  fi
  check "the core subdomain (a part of the package) is not read" lacks "intel-rapl:0:1" "$out/rapl-energy.txt"
  check "the rotated kern.log.1 from before the collection is not copied" test ! -e "$out/var-log/kern.log.1"
  check "no partial file is left" test -z "$(find "$out" -name '*.part')"
  check "no collector is left running" no_leftovers "$log"
  check "dmon fell back from the refused group t to -s pucvme" grep -q 'dmon -s pucvme -o DT -d 1' "$log"

  TZ=UTC "$gpucost" analyze "$out" --format json -o "$work/e2e-report.json"
  rc=$?
  check "gpucost analyze exits 0" [ "$rc" = 0 ]
  TZ=UTC "$gpucost" timeline "$out" >"$work/e2e-timeline.jsonl"
  check "gpucost timeline exits 0" [ "$?" = 0 ]
  [ -s "$work/e2e-report.json" ] || return
  python3 - "$out/manifest.json" "$work/e2e-report.json" "$work/e2e-timeline.jsonl" "$(tr -d '\n-' </proc/sys/kernel/random/boot_id)" "$(id -u)" <<'EOF' || failures=$((failures + 1))
import datetime, json, sys

manifest = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
events = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
boot_id = sys.argv[4]
root = sys.argv[5] == "0"
bad = []

def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stdout if ok else sys.stderr)
    if not ok:
        bad.append(what)

def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

# The manifest.
expect(manifest["gpucost_manifest"] == 1 and manifest["state"] == "complete", "manifest: version 1, state complete")
expect(manifest["stopped_by"] == "deadline", "manifest: stopped by the deadline")
expect(manifest["timezone"] == {"name": "Asia/Shanghai", "utc_offset": "+08:00", "source": "TZ"}, "manifest: zone from TZ")
expect(manifest["boot_id"] == boot_id, "manifest: this boot's id")
expect(manifest["start"].endswith("Z") and manifest["end"].endswith("Z"), "manifest: start and end in UTC")
expect(5 <= t(manifest["end"]) - t(manifest["start"]) <= 90, "manifest: a window of about 6 s after a slow start")
since = manifest.get("collecting_since")
expect(since is not None and t(since) - t(manifest["start"]) >= 8,
       f"manifest: collecting_since after the two slow probing calls ({manifest['start']} .. {since})")
expect(manifest.get("duration_s") == 6 and since is not None and t(manifest["end"]) - t(since) >= 6,
       f"manifest: the 6 s counted from collecting_since ({since} .. {manifest['end']})")
expect(manifest["driver_version"] == "535.154.05", "manifest: driver version")
expect([(g["index"], g["name"], g["pci_bus_id"]) for g in manifest["gpus"]] ==
       [(0, "NVIDIA RTX A5000", "00000000:17:00.0"), (1, "NVIDIA RTX A5000", "00000000:65:00.0")], "manifest: GPUs")
cmds = {c["cmd"]: c for c in manifest["commands"]}
refused = cmds.get("nvidia-smi dmon -s pucvmet -o DT -d 1", {})
expect(refused.get("status") == "failed" and "Not supported" in refused.get("reason", ""), "manifest: the refused dmon group failed, with why")
expect(cmds.get("nvidia-smi dmon -s pucvme -o DT -d 1", {}).get("status") == "ok", "manifest: the fallback dmon ran")
q = [c for c in manifest["commands"] if c["cmd"].startswith("nvidia-smi --query-gpu=timestamp")]
expect(len(q) == 2 and q[0]["status"] == "failed" and "temperature.memory" in q[0]["reason"] and
       q[1]["status"] == "ok" and "temperature.memory" not in q[1]["cmd"], "manifest: the refused query field was dropped")
expect(all(c["status"] in ("ok", "failed", "skipped") for c in manifest["commands"]), "manifest: every command ended")
expect(any(c.get("file") == "nvidia-smi-q-load.txt" and "reached 97 %" in c["reason"] for c in manifest["commands"]),
       "manifest: nvidia-smi -q taken under load")

# The analysis.
tl = report["timeline"]
expect(tl["samples"] > 0, f"report: samples ({tl['samples']})")
expect(tl["events"] > 0, f"report: events ({tl['events']})")
expect(tl["processes"] > 0, f"report: processes ({tl['processes']})")
expect(tl["events_by_kind"].get("xid", 0) >= 1, "report: the Xid events")
expect(report["zone"]["name"] == "Asia/Shanghai", f"report: zone {report['zone']['name']}")
expect("manifest" in report["zone"]["reason"], f"report: zone reason names the manifest ({report['zone']['reason']})")
expect("manifest" in report["year_reason"], f"report: year reason names the manifest ({report['year_reason']})")
expect(report["host"] == {"name": manifest["host"], "source": "manifest"}, "report: host from the manifest")
expect(any(b["boot_id"] == boot_id for b in tl["boots"]), "report: the manifest's boot")
d = report["diagnostics"]
expect(d["rejected"] == 0, f"report: every collected line understood ({d['rejected']} rejected)")
formats = {f["path"].split("/e2e/", 1)[-1]: f["format"] for f in report["files"]}
want = {"dmesg.txt": "dmesg", "journal.json": "journal_json", "manifest.json": "manifest",
        "nvidia-smi-dmon.txt": "dmon", "nvidia-smi-pmon.txt": "pmon", "nvidia-smi-q-load.txt": "nvidia_smi_q",
        "nvidia-smi-q-start.txt": "nvidia_smi_q", "nvidia-smi-query-gpu.csv": "query_gpu_csv",
        "ps.log": "ps", "var-log/kern.log": "syslog", "rapl-energy.txt": "rapl_energy"}
if root:
    want["ipmi-dcmi-power.txt"] = "ipmi_dcmi_power"
expect(formats == want, f"report: each file read in its format {formats}")

# The rest of the machine: the BMC's reading (as root) or the CPUs' counters, in the cost.
rapl = [c for c in manifest["commands"] if c["cmd"].startswith("every 1 s: read ")]
expect(len(rapl) == 1 and rapl[0]["status"] == "ok" and rapl[0]["file"] == "rapl-energy.txt" and
       "package-0 dram" in rapl[0]["reason"], f"manifest: the RAPL counters were read ({rapl})")
ipmi = [c for c in manifest["commands"] if c["cmd"].endswith("ipmitool dcmi power reading")]
expect(len(ipmi) == 1 and ipmi[0]["status"] == ("ok" if root else "skipped"), f"manifest: the BMC reading ({ipmi})")
cost = report["cost"]
host = cost["inputs"]["local"]["host_power_w"]
power = cost["inputs"]["local"]["power_w"]["value"]
eff = cost["inputs"]["local"]["psu_efficiency"]["value"]
pue = cost["inputs"]["local"]["pue"]["value"]
if root:
    # 1200 W for the whole 2-GPU system at the supply's input: 600 W a GPU at the wall.
    expect(host["origin"] == "measured:ipmi" and cost["local"]["power_used"] == "measured_system",
           f"cost: host power from the BMC ({host['origin']}, {cost['local']['power_used']})")
    expect(abs(host["value"] - max(0.0, 600 * eff - power)) < 1e-6, f"cost: host power {host['value']} = 600 x {eff} - {power}")
    if host["value"] > 0:
        expect(abs(cost["local"]["wall_power_w"] - 600 * pue) < 1e-6, f"cost: the wall power is the measured share x PUE ({cost['local']['wall_power_w']})")
else:
    # 55 W for the package and its DRAM, over 2 GPUs, plus the class's assumed rest.
    expect(host["origin"] == "measured:rapl" and cost["local"]["power_used"] == "estimated_at_the_wall",
           f"cost: host power from the RAPL counters ({host['origin']})")
    expect("part measured, part assumed" in host["note"], f"cost: the note says what is measured ({host['note']})")
rapl_note = " ".join(n for f in report["files"] if f["path"].endswith("rapl-energy.txt") for n in f["notes"])
expect(d["rejected"] == 0 and "counter_reset" not in json.dumps(report["diagnostics"]),
       f"report: the package counter's wrap is no reset ({rapl_note})")
start, end = t(manifest["start"]), t(manifest["end"])
w = report["window"]
expect(start - 2 <= t(w["first"]) and t(w["last"]) <= end + 5,
       f"report: everything inside the collection window ({w['first']} .. {w['last']})")
names = {g["name"] for g in report["gpus"]}
expect(names == {"NVIDIA RTX A5000"}, f"report: GPU names {names}")

# The same printk, read from dmesg (monotonic), the journal (UTC) and kern.log (local, no year),
# is one event at one instant inside the window.
xids = [e for e in events if e.get("kind") == "xid"]
expect(len(xids) == 6, f"timeline: 6 Xid events ({len(xids)})")
for e in xids:
    seen = " ".join(str(s) for s in e.get("seen_in", []))
    expect(all(n in seen for n in ("dmesg.txt", "journal.json", "kern.log")), f"timeline: Xid {e.get('code')} seen in all three ({seen})")
    expect(start - 2 <= t(e["ts"]) <= end + 2, f"timeline: Xid {e.get('code')} at {e['ts']} inside the window")
sys.exit(1 if bad else 0)
EOF

  # What the manifest alone provides: a kern.log without years dated by the collection window
  # (its modification time says 2031), dmesg's monotonic stamps placed by the boot time.
  mkdir -p "$work/year/var-log" "$work/boot"
  cp "$out/manifest.json" "$work/year/" && cp "$out/var-log/kern.log" "$work/year/var-log/"
  touch -d '2031-06-01 00:00:00' "$work/year/var-log/kern.log"
  cp "$out/manifest.json" "$out/dmesg.txt" "$work/boot/"
  for sub in year boot; do
    TZ=UTC "$gpucost" analyze "$work/$sub" --format json -o "$work/$sub-report.json"
    check "gpucost analyze $sub/ exits 0" [ "$?" = 0 ]
    TZ=UTC "$gpucost" timeline "$work/$sub" >"$work/$sub-timeline.jsonl"
  done
  python3 - "$out/manifest.json" "$work" <<'EOF' || failures=$((failures + 1))
import datetime, json, sys

manifest = json.load(open(sys.argv[1]))
work = sys.argv[2]
bad = []

def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stdout if ok else sys.stderr)
    if not ok:
        bad.append(what)

def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

start, end = t(manifest["start"]), t(manifest["end"])
for sub, source in (("year", "var-log/kern.log"), ("boot", "dmesg.txt")):
    report = json.load(open(f"{work}/{sub}-report.json"))
    xids = [json.loads(l) for l in open(f"{work}/{sub}-timeline.jsonl") if '"xid"' in l]
    expect(len(xids) == 6, f"{sub}: 6 Xid events from {source} ({len(xids)})")
    # btime has whole seconds: the boot time, and so the dmesg events, may be a second early.
    expect(all(start - 2 <= t(e["ts"]) <= end + 2 for e in xids), f"{sub}: the events inside the window {[e['ts'] for e in xids]}")
    notes = " ".join(n for f in report["files"] if f["path"].endswith(source) for n in f["notes"])
    if sub == "year":
        expect("manifest" in report["year_reason"], f"year: the year from the manifest's window ({report['year_reason']})")
        expect(report["zone"]["name"] == "Asia/Shanghai", f"year: the manifest's zone ({report['zone']})")
    else:
        expect("manifest" in notes, f"boot: dmesg placed by the manifest ({notes})")
sys.exit(1 if bad else 0)
EOF
}

# Fallbacks: a driver whose dmon knows no -o (rows without time, placed from the manifest's
# start; pmon too), no dmesg and only a user's journal (unprivileged), no query-gpu, no $TZ.
case_fallback() {
  local out=$work/fallback log=$work/fallback-tools.log rc
  env -u TZ PATH="$fakebin:$PATH" FAKE_TOOLS_LOG="$log" FAKE_NVSMI_DMON_NO_O=1 FAKE_DMESG_DENY=1 \
    FAKE_JOURNAL_UNPRIVILEGED=1 COLLECT_LOGS_VARLOG="$work/no-varlog" COLLECT_LOGS_POWERCAP="$work/no-powercap" \
    FAKE_IPMI_NO_BMC=1 "$script" --out "$out" --duration 5s --no-query
  rc=$?
  check "collect-logs.sh exits 0" [ "$rc" = 0 ]
  check "no collector is left running" no_leftovers "$log"
  check "no partial file is left" test -z "$(find "$out" -name '*.part')"
  check "dmon ran without -o" grep -q '^nvidia-smi pid=[0-9]* pgid=[0-9]* dmon -d 1$' "$log"
  TZ=UTC "$gpucost" analyze "$out" --format json -o "$work/fallback-report.json"
  rc=$?
  check "gpucost analyze exits 0" [ "$rc" = 0 ]
  python3 - "$out/manifest.json" "$work/fallback-report.json" <<'EOF' || failures=$((failures + 1))
import datetime, json, sys
m = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
bad = []
def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stdout if ok else sys.stderr)
    if not ok:
        bad.append(what)
def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
cmds = m["commands"]
by = lambda p: [c for c in cmds if c["cmd"].startswith(p)]
expect(m["state"] == "complete", "manifest: complete")
expect(m["timezone"]["source"] != "TZ", f"manifest: the machine's zone without $TZ ({m['timezone']})")
dmon = by("nvidia-smi dmon")
expect([c["status"] for c in dmon] == ["failed"] * 6 + ["ok"] and dmon[-1]["cmd"] == "nvidia-smi dmon -d 1",
       f"manifest: every -o variant refused, then dmon without -o ({[(c['cmd'], c['status']) for c in dmon]})")
expect([c["status"] for c in by("nvidia-smi --query-gpu=...")] == ["skipped"], "manifest: --no-query")
pmon = by("nvidia-smi pmon")
expect([(c["cmd"], c["status"]) for c in pmon] == [("nvidia-smi pmon -o DT -d 1", "failed"), ("nvidia-smi pmon -d 1", "ok")],
       f"manifest: pmon without -o ({pmon})")
j = by("journalctl")
expect(len(j) == 1 and j[0]["status"] == "limited" and "adm" in j[0]["reason"] and j[0]["file"] is None,
       f"manifest: the journal was limited to the user's entries ({j})")
expect([c["status"] for c in by("dmesg")] == ["failed"], "manifest: dmesg refused")
expect(by("cp -p")[0]["status"] == "skipped", "manifest: no syslog files")
rapl = by("every 1 s: read ")
expect(len(rapl) == 1 and rapl[0]["status"] == "skipped" and "no package or dram domain" in rapl[0]["reason"],
       f"manifest: no RAPL counters, skipped with why ({rapl})")
ipmi = [c for c in cmds if c["cmd"].endswith("ipmitool dcmi power reading")]
expect(len(ipmi) == 1 and ipmi[0]["status"] == "skipped" and ("Could not open device" in ipmi[0]["reason"] or
       "needs root" in ipmi[0]["reason"]), f"manifest: no BMC, skipped with why ({ipmi})")
tl = report["timeline"]
expect(tl["samples"] > 0, f"report: samples ({tl['samples']})")
w = report["window"]
start, end = t(m["start"]), t(m["end"])
expect(start - 2 <= t(w["first"]) and t(w["last"]) <= end + 5, f"report: rows without time placed in the window ({w})")
expect(tl["processes"] > 0, f"report: processes ({tl['processes']})")
for name in ("nvidia-smi-dmon.txt", "nvidia-smi-pmon.txt"):
    notes = " ".join(n for f in report["files"] if f["path"].endswith(name) for n in f["notes"])
    expect("manifest start" in notes, f"report: {name} placed from the manifest's start ({notes})")
expect(report["diagnostics"]["rejected"] == 0, f"report: every line understood ({report['diagnostics']['rejected']} rejected)")
man_notes = " ".join(n for f in report["files"] if f["path"].endswith("manifest.json") for n in f["notes"])
expect("`dmesg` failed" in man_notes and "limited" in man_notes, f"report: the manifest's notes say what was not read ({man_notes})")
sys.exit(1 if bad else 0)
EOF
}

case_sigint() {

  local out=$work/sigint log=$work/sigint-tools.log pid rc i
  write_varlog "$work/varlog" "$(date +%s)"
  set -m  # a background job without job control would ignore SIGINT
  env PATH="$fakebin:$PATH" TZ=Europe/Berlin FAKE_TOOLS_LOG="$log" FAKE_DMESG_DENY=1 FAKE_JOURNAL_DELAY=60 \
    COLLECT_LOGS_VARLOG="$work/varlog" "$script" --out "$out" --interval 1 &
  pid=$!
  set +m
  for ((i = 0; i < 300; i++)); do  # until it collects (the first manifest is written)
    [ -s "$out/manifest.json" ] && break
    sleep 0.1
  done
  sleep 2
  kill -INT "$pid"
  for ((i = 0; i < 300; i++)); do  # until the journal's first lines are written (then the fake waits)
    [ "$(wc -l 2>/dev/null <"$out/journal.json.part")" -ge 5 ] 2>/dev/null && break
    sleep 0.1
  done
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  check "a second Ctrl-C ends collect-logs.sh with 130" [ "$rc" = 130 ]
  check "no collector is left running (the slow journalctl neither)" no_leftovers "$log"
  check "no partial file is left" test -z "$(find "$out" -name '*.part')"
  check "the journal read until the cut is kept" test -s "$out/journal.json"
  python3 - "$out/manifest.json" <<'EOF' || failures=$((failures + 1))
import json, sys
m = json.load(open(sys.argv[1]))
bad = []
def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stdout if ok else sys.stderr)
    if not ok:
        bad.append(what)
cmds = m["commands"]
expect(m["state"] == "interrupted" and m["stopped_by"] == "SIGINT", f"manifest: interrupted by SIGINT ({m['state']}, {m['stopped_by']})")
expect(m["end"] is not None and m["timezone"]["name"] == "Europe/Berlin", "manifest: end and zone")
dmesg = [c for c in cmds if c["cmd"] == "dmesg"]
expect(len(dmesg) == 1 and dmesg[0]["status"] == "failed" and "Operation not permitted" in dmesg[0]["reason"],
       "manifest: dmesg refused, with why")
journal = [c for c in cmds if c["cmd"].startswith("journalctl")]
expect(len(journal) == 1 and journal[0]["status"] == "partial" and journal[0]["file"] == "journal.json" and
       "SIGINT" in journal[0]["reason"], f"manifest: the journal is marked partial ({journal})")
copies = [c for c in cmds if c["cmd"].startswith("cp -p")]
expect(len(copies) == 1 and copies[0]["status"] == "skipped", f"manifest: the copies after the cut are skipped ({copies})")
collectors = [c for c in cmds if c["cmd"].startswith("nvidia-smi dmon") or c["cmd"].startswith("nvidia-smi pmon")]
expect(len(collectors) == 2 and all(c["status"] == "ok" for c in collectors), "manifest: the collectors stopped cleanly")
expect(not any(c["status"] == "running" for c in cmds), "manifest: nothing left running")
sys.exit(1 if bad else 0)
EOF
  TZ=UTC "$gpucost" analyze "$out" --format json -o "$work/sigint-report.json"
  rc=$?
  check "gpucost analyze reads the interrupted collection (exit $rc)" [ "$rc" = 0 ]
  check "the report notes what the collection could not read" grep -q 'dmesg' "$work/sigint-report.json"
}

case_usage() {
  local rc
  "$script" --help >/dev/null
  check "--help exits 0" [ "$?" = 0 ]
  for args in "--duration 5x" "--duration 0" "--interval 0" "--interval 1.5" "--ps-interval x" "--ipmi-interval 0" "--load-pct 101" "--bogus"; do
    # shellcheck disable=SC2086  # the words of each case are its arguments
    "$script" --out "$work/usage" $args 2>/dev/null
    rc=$?
    check "refused: --out DIR $args (exit $rc)" [ "$rc" = 2 ]
  done
  check "a refused invocation creates nothing" test ! -e "$work/usage"
  "$script" 2>/dev/null
  check "refused: no --out" [ "$?" = 2 ]
  mkdir -p "$work/full" && touch "$work/full/keep"
  "$script" --out "$work/full" --duration 1s 2>/dev/null
  check "refused: a non-empty --out" [ "$?" = 2 ]
  check "a non-empty --out is left as it was" [ "$(ls "$work/full")" = keep ]
}

case ${1:-} in
  e2e) case_e2e ;;
  fallback) case_fallback ;;
  sigint) case_sigint ;;
  usage) case_usage ;;
  *) echo "usage: collect_test.sh e2e|fallback|sigint|usage" >&2; exit 2 ;;
esac
if ((failures)); then echo "$failures check(s) failed" >&2; exit 1; fi
echo "all checks passed"
