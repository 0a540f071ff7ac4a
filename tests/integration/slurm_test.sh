#!/usr/bin/env bash
# Integration test with real components (ctest label `integration`): a one-node Slurm cluster
# from Debian's slurm-wlm and munge (munged, slurmctld and slurmd in the foreground, a temporary
# configuration, loopback only) with gpucost's prolog and epilog (deploy/slurm) configured and a
# stand-in nvidia-smi on PATH (tests/collect/fake-bin: no GPU here). scripts/collect-logs.sh
# records the node's logs meanwhile, as gpucost-recorder.service would.
#   1. a job on one GPU: its row appears in SHARED/DATE/HOST/JOBID.ndjson with the job id, the
#      job's window (Slurm's StartTime/EndTime) and the GPU Slurm gave it (by PCI bus id / UUID);
#      the job's AdminComment then holds the epilog's job summary beside an operator's note, and
#      `gpucost fleet --sacct` reads it back (from sacct-style text: no accounting storage here);
#   2. broken inputs (logs gpucost cannot read; a gpucost that hangs past the epilog's time
#      limit): the jobs complete, the node is not drained, the epilog logs why no row was written.
# Needs slurm-wlm and munge (scripts/run-tests.sh installs them); exit 77 (skipped) without them
# or where this is not root (slurmd must run as root). Every process it starts is stopped on exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${GPUCOST_IT_BINARY:-${GPUCOST_BINARY:-$root/build/gpucost}}  # GPUCOST_IT_BINARY: an installed gpucost
need=$root/tests/tools/need-command.sh
if [ "$(id -u)" != 0 ]; then echo "SKIP: slurmd and the prolog/epilog run as root" >&2; exit 77; fi
"$need" munge munged || exit $?
"$need" slurm-wlm slurmctld || exit $?
command -v python3 >/dev/null || { echo "SKIP: python3 missing" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gpucost-slurm-it.XXXXXX")
chmod 755 "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  if [ "${GPUCOST_KEEP_WORK:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
logs_tail() { local f; for f in "$work"/log/*.log "$work"/gpucost/slurm.log*; do [ -f "$f" ] && { echo "== $f"; tail -n 15 "$f"; }; done >&2; }

node=$(hostname -s)
mkdir -p "$work"/{munge,log,state,spool,shared,gpucost,run,dev,etc}
# Slurm takes a GPU's index from its device file's number and wants a character device: these
# stand in for /dev/nvidia0..1 (the major and minor numbers of /dev/null).
for g in 0 1; do
  mknod "$work/dev/nvidia$g" c 1 3 || { echo "SKIP: cannot create device files (mknod) for Slurm's gres.conf" >&2; exit 77; }
done

# munge: a key of this test, its own socket.
mungekey -c -k "$work/munge/munge.key" 2>/dev/null || dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$work/munge/munge.key"
chmod 700 "$work/munge"
munged -F --force --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" &
pids+=($!)
for ((i = 0; i < 50; i++)); do [ -S "$work/munge/munge.sock" ] && break; sleep 0.2; done
check "munged is up" test -S "$work/munge/munge.sock"

# The node's logs, recorded while the jobs run (the fake nvidia-smi: GPU 0 busy, GPU 1 idle).
env PATH="$root/tests/collect/fake-bin:$PATH" COLLECT_LOGS_VARLOG="$work/no-varlog" FAKE_NVSMI_BUSY_FROM=0 \
  "$root/scripts/collect-logs.sh" --out "$work/node-logs/seg1" --interval 1 --ps-interval 5 --no-pmon \
  >"$work/log/collect.out" 2>&1 &
collector=$!
pids+=("$collector")

# gpucost's settings for the prolog and epilog; the wrappers are what slurm.conf names (Slurm
# gives prolog/epilog a minimal environment, as on a real node: /etc/default/gpucost there).
cat >"$work/etc/gpucost.conf" <<CONF
GPUCOST_BIN=$bin
GPUCOST_LOG_DIR=$work/node-logs
GPUCOST_SHARED_DIR=$work/shared
GPUCOST_STATE_DIR=$work/run
GPUCOST_EPILOG_LOG=$work/gpucost/slurm.log
GPUCOST_TEXTFILE_DIR=$work/textfile
GPUCOST_EPILOG_TIMEOUT=30
CONF
for kind in prolog epilog; do
  cat >"$work/etc/$kind.sh" <<WRAP
#!/bin/sh
export PATH="$root/tests/collect/fake-bin:/usr/sbin:/usr/bin:/sbin:/bin" GPUCOST_CONFIG="$work/etc/gpucost.conf"
env >"$work/log/$kind.\$SLURM_JOB_ID.env"
exec "$root/deploy/slurm/gpucost-$kind.sh"
WRAP
  chmod 755 "$work/etc/$kind.sh"
done
mkdir -p "$work/textfile"

ctl_port=$(free_port) d_port=$(free_port)
cat >"$work/etc/slurm.conf" <<CONF
ClusterName=gpucosttest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
GresTypes=gpu
Prolog=$work/etc/prolog.sh
Epilog=$work/etc/epilog.sh
MinJobAge=600
SlurmdTimeout=60
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
CONF
cat >"$work/etc/gres.conf" <<CONF
NodeName=$node Name=gpu File=$work/dev/nvidia[0-1]
CONF
: >"$work/etc/cgroup.conf"
export SLURM_CONF=$work/etc/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for ((i = 0; i < 150; i++)); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" = idle ]; then ok "slurmctld and slurmd up, node $node idle"
else fail "the node is not idle ($state)"; logs_tail; exit 1; fi

# job_field JOB FIELD: a field of `scontrol show job`.
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
# wait_done JOB: until the job completed and its epilog ran (the node is idle again).
wait_done() {
  local i s
  for ((i = 0; i < 300; i++)); do
    s=$(job_field "$1" JobState)
    if [ "$s" = COMPLETED ] || [ "$s" = FAILED ] || [ "$s" = CANCELLED ] || [ "$s" = NODE_FAIL ]; then
      [ "$(sinfo -h -N -o '%T' | head -n 1)" = idle ] && return 0
    fi
    sleep 0.2
  done
  return 1
}

# 1. A job on one GPU.
sleep 2  # a few samples before the job
job=$(sbatch --parsable --gres=gpu:1 --output=/dev/null --wrap 'sleep 4')
check "sbatch accepted the job ($job)" test -n "$job"
scontrol update JobId="$job" AdminComment="site-note: keep me" || fail "cannot set job $job's AdminComment"
wait_done "$job" || fail "job $job did not finish"
check "job $job COMPLETED" test "$(job_field "$job" JobState)" = COMPLETED
start=$(job_field "$job" StartTime) end=$(job_field "$job" EndTime)
row=$(find "$work/shared" -name "$job.ndjson" | head -n 1)
if [ -z "$row" ]; then fail "no row for job $job"; logs_tail; else
  check "the row is in SHARED/DATE/HOST/JOBID.ndjson" \
    test "${row#"$work/shared/"}" = "$(date -u +%Y-%m-%d)/$node/$job.ndjson"
  python3 - "$row" "$job" "$start" "$end" <<'PY' || failures=$((failures + 1))
import datetime, json, sys
path, job, start, end = sys.argv[1:5]
rows = [json.loads(l) for l in open(path)]
bad = []
def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stdout if ok else sys.stderr)
    if not ok: bad.append(what)
def utc(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
def local(s): return datetime.datetime.fromisoformat(s).timestamp()  # scontrol prints local time
expect([r["row"] for r in rows] == ["gpu", "node"], f"one GPU row and the node's ({[r['row'] for r in rows]})")
gpu = rows[0]
expect(all(r["job_id"] == job and r["user"] == "root" for r in rows), "the job id and user")
expect(gpu["gpu_index"] == 0 and gpu["gpu_pci_bus_id"] == "0000:17:00" and
       gpu["gpu_uuid"] == "GPU-6f1d2c7a-3b8e-4a51-9c0d-2e7b5a914c3f", f"the GPU Slurm gave the job ({gpu['gpu_index']}, {gpu['gpu_pci_bus_id']})")
expect(gpu["window_source"] == "since_until", "the window from the job")
expect(abs(utc(gpu["window_start"]) - local(start)) <= 2, f"window start {gpu['window_start']} = StartTime {start}")
expect(abs(utc(gpu["window_end"]) - local(end)) <= 5, f"window end {gpu['window_end']} ~ EndTime {end}")
expect(gpu["busy_gpu_hours"] is not None and gpu["busy_gpu_hours"] > 0, f"busy GPU-hours measured ({gpu['busy_gpu_hours']})")
expect(rows[1]["gpu_count"] == 1, "the node row counts the job's one GPU")
sys.exit(1 if bad else 0)
PY
fi
check "the epilog logged the row" grep -q "job $job: wrote" "$work/gpucost/slurm.log"
check "the epilog removed the job's info series" test ! -e "$work/textfile/gpucost_job_$job.prom"
comment=$(scontrol show job "$job" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | head -n 1)
if grep -q "gpucost:1" <<<"$comment"; then
  check "AdminComment keeps the operator's note ($comment)" grep -q "^site-note: keep me; " <<<"$comment"
  check "AdminComment holds the job summary" grep -q "; gpucost:1 host=$node win=.* gpus=1 alloc_h=" <<<"$comment"
else
  # Slurm 22.05 (Debian 12) refuses an update of a job that has finished ("Job has already
  # finished" in slurmctld.log), and a node's Epilog runs after that: the epilog must say so and
  # still write the row. The summary it would have stored is made from the row instead, so that
  # the read-back below still runs against the real segment.
  check "the epilog logged that AdminComment could not be updated" \
    grep -q "scontrol update JobId=$job AdminComment=... failed" "$work/gpucost/slurm.log"
  check "AdminComment keeps the operator's note ($comment)" grep -q "^site-note: keep me" <<<"$comment"
  comment="site-note: keep me; $("$bin" fleet "$row" --format summary 2>/dev/null)"
  check "the job summary made from the row ($comment)" \
    grep -q "; gpucost:1 host=$node win=.* gpus=1 alloc_h=" <<<"$comment"
fi
printf 'JobID|User|Partition|AdminComment\n%s|root|debug|%s\n%s.batch|||\n' "$job" "$comment" "$job" >"$work/sacct.txt"
check "gpucost fleet --sacct reads the summary back" \
  grep -q "^job,$job,1,1," <("$bin" fleet --sacct "$work/sacct.txt" --format csv 2>/dev/null)

# 2. Broken inputs: logs gpucost cannot read, then a gpucost that hangs past the time limit.
mkdir -p "$work/garbage"
head -c 65536 /dev/urandom >"$work/garbage/noise.bin"
sed -i "s|^GPUCOST_LOG_DIR=.*|GPUCOST_LOG_DIR=$work/garbage|" "$work/etc/gpucost.conf"
bad1=$(sbatch --parsable --gres=gpu:1 --output=/dev/null --wrap 'sleep 1')
wait_done "$bad1" || fail "job $bad1 (unreadable logs) did not finish"
printf '#!/bin/sh\nsleep 600\n' >"$work/etc/hang.sh" && chmod 755 "$work/etc/hang.sh"
sed -i -e "s|^GPUCOST_BIN=.*|GPUCOST_BIN=$work/etc/hang.sh|" -e "s|^GPUCOST_EPILOG_TIMEOUT=.*|GPUCOST_EPILOG_TIMEOUT=3|" \
  "$work/etc/gpucost.conf"
bad2=$(sbatch --parsable --gres=gpu:2 --output=/dev/null --wrap 'sleep 1')
wait_done "$bad2" || fail "job $bad2 (hanging gpucost) did not finish"
for j in "$bad1" "$bad2"; do
  check "job $j COMPLETED despite the broken input" test "$(job_field "$j" JobState)" = COMPLETED
  check "no row for job $j" test -z "$(find "$work/shared" -name "$j.ndjson")"
done
check "the node is idle, not drained" test "$(sinfo -h -N -o '%T' | head -n 1)" = idle
check "the epilog logged why job $bad1 has no row" grep -q "job $bad1: gpucost analyze exited 3" "$work/gpucost/slurm.log"
check "the epilog logged the time limit of job $bad2" grep -q "job $bad2: stopped after the time limit of 3 s" "$work/gpucost/slurm.log"
check "no hanging gpucost is left" test -z "$(pgrep -f "$work/etc/hang.sh")"
sinfo -h -N -o '%T %E' | grep -qi drain && fail "drained: $(sinfo -h -N -o '%E')"

kill -TERM "$collector" 2>/dev/null
if ((failures)); then logs_tail; echo "$failures check(s) failed" >&2; exit 1; fi
echo "all checks passed"
