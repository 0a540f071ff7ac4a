#!/usr/bin/env bash
# deploy/slurm/gpucost-epilog.sh in a shared folder that other users can write (issue 39), without
# Slurm (a stand-in gpucost writes the row): the epilog writes its row into SHARED/DATE/HOST
# when it created those directories or finds them its own and writable by nobody else; a
# directory planted by someone else (writable by others, or a symlink) gets nothing, is named in
# the epilog's log, and the file a planted symlink points to is not touched. The job still ends
# with status 0, and no temporary or .err file is left in the shared folder. With a stand-in
# scontrol, the job summary goes into AdminComment: this node's earlier segment replaced, an
# operator's note and other nodes' segments kept, nothing written past GPUCOST_ADMIN_COMMENT_MAX.
# With a stand-in nvidia-smi and driver /proc files, Slurm's GPU numbers (device minors) and MIG
# UUIDs reach `gpucost analyze --gpu` as the right GPUs' bus ids.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
epilog=${GPUCOST_EPILOG:-$root/deploy/slurm/gpucost-epilog.sh}  # GPUCOST_EPILOG: another copy
work=$(mktemp -d "${TMPDIR:-/tmp}/gpucost-epilog-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { local d=$1; shift; if "$@"; then echo "ok: $d"; else fail "$d"; fi; }

mkdir -p "$work"/{shared,state,logs,textfile,tmp}
cat >"$work/fake-gpucost" <<'SH'
#!/bin/sh
# analyze ... -o FILE: one node row into FILE; fleet ROWS --format summary: a summary segment.
if [ "$1" = fleet ]; then echo "gpucost:1 host=$(hostname -s 2>/dev/null || hostname) win=a/b gpus=1 alloc_h=1"; exit 0; fi
[ -n "${FAKE_ARGS:-}" ] && printf '%s\n' "$@" >"$FAKE_ARGS"
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
[ -n "$out" ] || exit 2
printf '{"schema":"gpucost.job_row","schema_version":2,"row":"node"}\n' >"$out"
SH
chmod 755 "$work/fake-gpucost"
cat >"$work/conf" <<CONF
GPUCOST_BIN=$work/fake-gpucost
GPUCOST_SHARED_DIR=$work/shared
GPUCOST_LOG_DIR=$work/logs
GPUCOST_STATE_DIR=$work/state
GPUCOST_TEXTFILE_DIR=$work/textfile
GPUCOST_EPILOG_LOG=$work/slurm.log
GPUCOST_ADMIN_COMMENT=0
CONF
day=$(date -u +%Y-%m-%d)
host=$(hostname -s 2>/dev/null || hostname)
run() {
  date +%s >"$work/state/$1.start"
  env -i PATH="$PATH" TMPDIR="$work/tmp" GPUCOST_CONFIG="$work/conf" SLURM_JOB_ID="$1" SLURM_JOB_USER=alice \
    bash "$epilog"
}

# 1. The epilog creates DATE/HOST and writes the row.
run 11
check "the epilog exits 0" [ $? = 0 ]
check "the row of job 11 is written" test -s "$work/shared/$day/$host/11.ndjson"
check "DATE/HOST are the epilog's, mode 755" [ "$(stat -c %a "$work/shared/$day/$host")" = 755 ]

# 2. DATE/HOST planted by another user (writable by all), with symlinks named like the row.
rm -rf "$work/shared/$day"
mkdir -p "$work/shared/$day/$host"
chmod 777 "$work/shared/$day" "$work/shared/$day/$host"
echo precious >"$work/victim"
ln -s "$work/victim" "$work/shared/$day/$host/12.ndjson"
run 12
check "the epilog exits 0 with a planted directory" [ $? = 0 ]
check "the planted symlink's target is untouched" [ "$(cat "$work/victim")" = precious ]
check "the planted symlink is left as it was" test -L "$work/shared/$day/$host/12.ndjson"
check "the epilog says why nothing was written" grep -q "job 12: .*writable by others); nothing written" "$work/slurm.log"

# 3. HOST a symlink to a directory elsewhere.
rm -rf "$work/shared/$day"
mkdir -m 755 "$work/shared/$day" "$work/elsewhere"
ln -s "$work/elsewhere" "$work/shared/$day/$host"
run 13
check "nothing is written through a symlinked HOST directory" test -z "$(ls -A "$work/elsewhere")"
check "the epilog names the symlink" grep -q "job 13: .*$host is a symlink or not a directory; nothing written" \
  "$work/slurm.log"
check "no temporary or .err file is left in the shared folder" \
  test -z "$(find "$work/shared" "$work/elsewhere" -name '.*' -o -name '*.err' | grep -v '^$')"

# 4. The job summary in AdminComment (a stand-in scontrol keeps it in a file).
mkdir -p "$work/bin"
cat >"$work/bin/scontrol" <<'SH'
#!/bin/sh
# show job N: the job with its AdminComment (from FAKE_SCONTROL_STATE); update ... AdminComment=X: keeps X.
case "$1" in
  show)
    printf 'JobId=%s JobName=wrap\n   UserId=alice(1000) GroupId=alice(1000)\n' "$3"
    [ -s "$FAKE_SCONTROL_STATE" ] && printf '   AdminComment=%s \n' "$(cat "$FAKE_SCONTROL_STATE")"
    printf '   JobState=COMPLETING Reason=None\n' ;;
  update)
    for a in "$@"; do case $a in AdminComment=*) printf '%s' "${a#AdminComment=}" >"$FAKE_SCONTROL_STATE" ;; esac; done ;;
esac
SH
chmod 755 "$work/bin/scontrol"
sed 's/^GPUCOST_ADMIN_COMMENT=0$/GPUCOST_ADMIN_COMMENT=1/' "$work/conf" >"$work/conf.comment"
rm -rf "$work/shared/$day"
printf '%s' "site-note: keep me; gpucost:1 host=$host win=old/old gpus=1 alloc_h=9; gpucost:1 host=other gpus=2" \
  >"$work/comment"
date +%s >"$work/state/14.start"
env -i PATH="$work/bin:$PATH" TMPDIR="$work/tmp" GPUCOST_CONFIG="$work/conf.comment" SLURM_JOB_ID=14 \
  FAKE_SCONTROL_STATE="$work/comment" bash "$epilog"
check "AdminComment: the note and other nodes kept, this node's segment replaced ($(cat "$work/comment"))" \
  [ "$(cat "$work/comment")" = "site-note: keep me; gpucost:1 host=other gpus=2; gpucost:1 host=$host win=a/b gpus=1 alloc_h=1" ]
check "the epilog logged the summary" grep -q "job 14: kept the job summary in AdminComment" "$work/slurm.log"
echo "GPUCOST_ADMIN_COMMENT_MAX=40" >>"$work/conf.comment"
date +%s >"$work/state/15.start"
env -i PATH="$work/bin:$PATH" TMPDIR="$work/tmp" GPUCOST_CONFIG="$work/conf.comment" SLURM_JOB_ID=15 \
  FAKE_SCONTROL_STATE="$work/comment" bash "$epilog"
check "AdminComment is left alone past GPUCOST_ADMIN_COMMENT_MAX" grep -q "^site-note: keep me; gpucost:1 host=other" "$work/comment"
check "the epilog says why" grep -q "job 15: AdminComment would be .* bytes (over GPUCOST_ADMIN_COMMENT_MAX=40)" "$work/slurm.log"

# 5. GPUs: Slurm's numbers are device minors (here the reverse of nvidia-smi's index), MIG UUIDs.
cat >"$work/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
  --query-gpu=index,pci.bus_id,uuid*) printf '0, 00000000:17:00.0, GPU-aaaa\n1, 00000000:65:00.0, GPU-bbbb\n' ;;
  -L) printf 'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)\n  MIG 1g.5gb      Device  0: (UUID: MIG-1111)\n'
      printf 'GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)\n  MIG 3g.20gb     Device  0: (UUID: MIG-2222)\n' ;;
  *) exit 9 ;;
esac
SH
chmod 755 "$work/bin/nvidia-smi"
for g in 0000:17:00.0:1 0000:65:00.0:0; do
  mkdir -p "$work/proc/${g%:*}"
  printf 'Model: \t\t NVIDIA A100-SXM4-40GB\nBus Location: \t %s\nDevice Minor: \t %s\n' "${g%:*}" "${g##*:}" \
    >"$work/proc/${g%:*}/information"
done
gpus_of() {  # SLURM_JOB_GPUS -> the --gpu argument the epilog gave analyze
  date +%s >"$work/state/$1.start"
  env -i PATH="$work/bin:$PATH" TMPDIR="$work/tmp" GPUCOST_CONFIG="$work/conf" SLURM_JOB_ID="$1" \
    SLURM_JOB_GPUS="$2" GPUCOST_NVIDIA_PROC="$work/proc" FAKE_ARGS="$work/args" bash "$epilog"
  sed -n '/^--gpu$/{n;p}' "$work/args"
}
rm -rf "$work/shared/$day"
check "Slurm's GPU 0 is the GPU of minor 0, not nvidia-smi's index 0" [ "$(gpus_of 16 0)" = 0000:65:00.0 ]
check "Slurm's GPUs 0,1 by minor" [ "$(gpus_of 17 0,1)" = 0000:65:00.0,0000:17:00.0 ]
check "a MIG UUID is its GPU" [ "$(gpus_of 18 MIG-2222)" = 00000000:65:00.0 ]
check "the log says the MIG device's GPU is analyzed whole" \
  grep -q "job 18: MIG device MIG-2222: its GPU GPU-bbbb is analyzed whole" "$work/slurm.log"

if ((failures)); then cat "$work/slurm.log" >&2; echo "$failures check(s) failed" >&2; exit 1; fi
echo "all checks passed"
