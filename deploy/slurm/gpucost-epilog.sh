#!/usr/bin/env bash
# gpucost Slurm epilog (slurm.conf: Epilog=...). Runs as root on each node after each job. It
# finds the job's window (the prolog's start stamp, else `scontrol show job`, else the last
# GPUCOST_FALLBACK_WINDOW seconds) and its GPUs (SLURM_JOB_GPUS, else CUDA_VISIBLE_DEVICES, mapped
# to PCI bus ids and UUIDs through `nvidia-smi --query-gpu=index,pci.bus_id,uuid`: Slurm's and
# CUDA's indexes are not the driver's), analyzes the node's own logs (GPUCOST_LOG_DIR, kept by
# gpucost-recorder.service) for that window, and writes the rows atomically (temporary file, then
# rename) to GPUCOST_SHARED_DIR/DATE/HOST/JOBID.ndjson. It then keeps a compact summary of the
# node's rows (`gpucost fleet ROWS --format summary`, at most 480 bytes) in the job's AdminComment
# with `scontrol update`, beside what is already there: slurmctld and slurmdbd keep it past any
# metrics retention, and `gpucost fleet --sacct` reads it back (GPUCOST_ADMIN_COMMENT=0: not).
#
# A failing epilog drains the node, so this script ALWAYS exits 0: its errors go to
# GPUCOST_EPILOG_LOG, and the whole run is cut after GPUCOST_EPILOG_TIMEOUT seconds (default 60).
# Settings: /etc/default/gpucost (GPUCOST_CONFIG), see docs/fleet.md.
set -u
conf=${GPUCOST_CONFIG:-/etc/default/gpucost}
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"
log=${GPUCOST_EPILOG_LOG:-/var/log/gpucost/slurm.log}
job=${SLURM_JOB_ID:-}
limit=${GPUCOST_EPILOG_TIMEOUT:-60}
[[ $limit =~ ^[0-9]+$ ]] && ((limit > 0)) || limit=60

note() { { mkdir -p "${log%/*}" && printf '%s epilog job %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${job:-?}" "$*" >>"$log"; } 2>/dev/null || true; }

# The time limit: the script runs itself once more under timeout, which puts it in a process group
# of its own and signals the whole group (gpucost, nvidia-smi, scontrol) when the time is up.
if [ -z "${GPUCOST_EPILOG_INNER:-}" ]; then
  mkdir -p "${log%/*}" 2>/dev/null
  GPUCOST_EPILOG_INNER=1 timeout -k 5 "$limit" "$0" "$@" </dev/null >/dev/null 2>>"$log.stderr"
  rc=$?
  case $rc in
    0) ;;
    124|137) note "stopped after the time limit of $limit s (GPUCOST_EPILOG_TIMEOUT); no row written" ;;
    *) note "ended with status $rc (see $log.stderr); the job and the node are not affected" ;;
  esac
  exit 0
fi

bin=${GPUCOST_BIN:-/usr/bin/gpucost}
logs=${GPUCOST_LOG_DIR:-/var/log/gpucost/samples}
shared=${GPUCOST_SHARED_DIR:-}
state=${GPUCOST_STATE_DIR:-/run/gpucost}
textfile=${GPUCOST_TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
fallback=${GPUCOST_FALLBACK_WINDOW:-86400}
host=$(hostname -s 2>/dev/null || hostname)

utc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }

# The job's start (Unix seconds): the prolog's stamp, else scontrol, else the fallback window.
job_start() {
  local s
  if [ -r "$state/$job.start" ] && read -r s <"$state/$job.start" && [[ $s =~ ^[0-9]+$ ]]; then
    echo "$s prolog"; return
  fi
  if command -v scontrol >/dev/null 2>&1; then
    s=$(timeout 10 scontrol show job "$job" 2>/dev/null | tr ' ' '\n' | sed -n 's/^StartTime=//p' | head -n 1)
    if [ -n "$s" ] && s=$(date -d "$s" +%s 2>/dev/null); then echo "$s scontrol"; return; fi
  fi
  echo "$(($(date +%s) - fallback)) fallback"
}

# The job's GPUs as PCI bus ids (else UUIDs, else the id itself), comma-separated. Slurm numbers
# GPUs by their device files (/dev/nvidiaN in gres.conf: the driver's minor number), which is
# not always nvidia-smi's index: SLURM_JOB_GPUS numbers are mapped through the driver's
# /proc/driver/nvidia/gpus/BUS/information ("Device Minor"), else taken as nvidia-smi indices.
# UUIDs map through nvidia-smi; a MIG device's UUID (MIG-...) maps to its GPU (nvidia-smi -L),
# which is analyzed whole (gpucost has no per-slice samples), and the log says so.
job_gpus() {
  local list=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}} map="" id out="" idx bus uuid found info minor
  local proc=${GPUCOST_NVIDIA_PROC:-/proc/driver/nvidia/gpus} line parent="" mig
  local -A by_minor=() mig_parent=()
  [ -n "$list" ] || return 0
  if [ -n "${SLURM_JOB_GPUS:-}" ]; then
    for info in "$proc"/*/information; do
      [ -r "$info" ] || continue
      minor=$(sed -n 's/^Device Minor:[[:space:]]*//p' "$info" | tr -d '[:space:]')
      bus=$(sed -n 's/^Bus Location:[[:space:]]*//p' "$info" | tr -d '[:space:]')
      [[ $minor =~ ^[0-9]+$ ]] && [ -n "$bus" ] && by_minor[$minor]=$bus
    done
  fi
  if command -v nvidia-smi >/dev/null 2>&1; then
    map=$(timeout 20 nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv,noheader 2>/dev/null) ||
      note "nvidia-smi --query-gpu failed; GPUs passed as given ($list)"
    if [[ $list == *MIG-* ]]; then
      while IFS= read -r line; do
        if [[ $line =~ ^GPU\ [0-9]+:.*\(UUID:\ (GPU-[^\)]+)\) ]]; then
          parent=${BASH_REMATCH[1]}
        elif [[ $line =~ MIG.*\(UUID:\ (MIG-[^\)]+)\) ]] && [ -n "$parent" ]; then
          mig_parent[${BASH_REMATCH[1]}]=$parent
        fi
      done < <(timeout 20 nvidia-smi -L 2>/dev/null)
    fi
  fi
  IFS=, read -r -a ids <<<"$list"
  for id in "${ids[@]}"; do
    id=${id// /}
    [ -n "$id" ] || continue
    if [[ $id == MIG-* ]]; then
      mig=$id
      id=${mig_parent[$mig]:-$id}
      note "MIG device $mig: $([ "$id" = "$mig" ] && echo "not in nvidia-smi -L, passed as given" || echo "its GPU $id is analyzed whole")"
    fi
    if [[ $id =~ ^[0-9]+$ ]] && [ -n "${by_minor[$id]:-}" ]; then
      out+=${out:+,}${by_minor[$id]}
      continue
    fi
    found=$id
    while IFS=, read -r idx bus uuid; do
      idx=${idx// /} bus=${bus// /} uuid=${uuid// /}
      if [ "$id" = "$idx" ] || [ "$id" = "$uuid" ] || [ "$id" = "$bus" ]; then
        found=${bus:-${uuid:-$id}}
        break
      fi
    done <<<"$map"
    out+=${out:+,}$found
  done
  printf '%s' "$out"
}

# A directory of the shared folder that the epilog writes into, where other users may write too
# (NFS with root_squash): created by the epilog (mode 755), or, when it is there already, a real
# directory (not a symlink) owned by the epilog's user (GPUCOST_SHARED_OWNER, a uid, where
# root_squash maps root to another) and writable by nobody else. Nothing can then be planted in
# it: the temporary file and the row are written there only.
safe_dir() {
  local d=$1 owner=${GPUCOST_SHARED_OWNER:-$(id -u)} st
  [ -e "$d" ] || [ -L "$d" ] || mkdir -m 755 "$d" 2>/dev/null
  if [ -L "$d" ] || [ ! -d "$d" ]; then note "$d is a symlink or not a directory; nothing written"; return 1; fi
  st=$(stat -c '%u %a' -- "$d" 2>/dev/null) || { note "cannot stat $d; nothing written"; return 1; }
  if [ "${st% *}" != "$owner" ] || (((8#${st#* } & 8#022) != 0)); then
    note "$d is owned by uid ${st% *} with mode ${st#* } (not uid $owner, or writable by others); nothing written"
    return 1
  fi
}

# The job's summary into its AdminComment: this node's earlier segment (a re-run epilog) is
# replaced, every other segment (other nodes', an operator's, jobstats') kept in its order.
# Segments are separated by "; ". Nodes of one job update it one after another; two epilogs that
# finish in the same instant can each keep only their own segment (scontrol has no compare-and-set).
record_summary() {
  local rows=$1 seg old part new="" max=${GPUCOST_ADMIN_COMMENT_MAX:-4000}
  [ "${GPUCOST_ADMIN_COMMENT:-1}" = 1 ] || return 0
  [[ $max =~ ^[0-9]+$ ]] || max=4000
  command -v scontrol >/dev/null 2>&1 || { note "no scontrol: no AdminComment summary"; return 0; }
  seg=$("$bin" fleet "$rows" --format summary 2>/dev/null | head -n 1)
  [ -n "$seg" ] || { note "no job summary of $rows"; return 0; }
  old=$(timeout 10 scontrol show job "$job" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | head -n 1)
  old=${old%"${old##*[! ]}"}
  [ "$old" = "(null)" ] && old=""
  local -a parts=()
  IFS=';' read -r -a parts <<<"$old"
  for part in "${parts[@]}"; do
    part=${part#"${part%%[! ]*}"}
    case $part in '' | "gpucost:1 host=$host "*) continue ;; esac
    new+=${new:+; }$part
  done
  new+=${new:+; }$seg
  if ((${#new} > max)); then
    note "AdminComment would be ${#new} bytes (over GPUCOST_ADMIN_COMMENT_MAX=$max); not updated"
    return 0
  fi
  if timeout 10 scontrol update JobId="$job" AdminComment="$new" 2>/dev/null; then
    note "kept the job summary in AdminComment (${#seg} bytes)"
  else
    note "scontrol update JobId=$job AdminComment=... failed; the row is written all the same"
  fi
}

main() {
  [[ $job =~ ^[0-9_]+$ ]] || { note "SLURM_JOB_ID '${job}' is not a job id; nothing written"; return 0; }
  [ -n "$shared" ] || { note "GPUCOST_SHARED_DIR is not set; nothing written"; return 0; }
  [ -x "$bin" ] || { note "$bin is not executable; nothing written"; return 0; }
  local end start how gpus day dest tmp err args rc
  end=$(date +%s)
  read -r start how < <(job_start)
  ((start < end)) || start=$((end - 1))
  gpus=$(job_gpus)
  day=$(date -u -d "@$end" +%Y-%m-%d)
  dest="$shared/$day/$host/$job.ndjson"
  mkdir -p "$shared" 2>/dev/null  # the operator's setting: trusted; below it, nothing is
  [ -d "$shared" ] || { note "$shared is not a directory; nothing written"; return 0; }
  safe_dir "$shared/$day" && safe_dir "$shared/$day/$host" || return 0
  tmp="${dest%/*}/.$job.ndjson.tmp.$$"
  err=$(mktemp "${TMPDIR:-/tmp}/gpucost-epilog.XXXXXX") || { note "cannot create a temporary file"; return 0; }
  args=(analyze "$logs" --since "$(utc "$start")" --until "$(utc "$end")" --job-id "$job" --host "$host"
        --format ndjson --no-timings -q -o "$tmp")
  [ -n "${SLURM_JOB_USER:-}" ] && args+=(--user "$SLURM_JOB_USER")
  [ -n "$gpus" ] && args+=(--gpu "$gpus")
  # shellcheck disable=SC2206  # GPUCOST_ANALYZE_ARGS holds several arguments (e.g. --local a100 --cloud aws-p4d)
  args+=(${GPUCOST_ANALYZE_ARGS:-})
  "$bin" "${args[@]}" 2>"$err"
  rc=$?
  if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then  # 4: written, with many rejected lines
    if mv -f "$tmp" "$dest"; then
      note "wrote $dest (window $(utc "$start") .. $(utc "$end") from the $how, GPUs ${gpus:-all}$([ "$rc" = 4 ] && echo ', many rejected lines'))"
      record_summary "$dest"
    else
      note "cannot rename $tmp to $dest"
    fi
  else
    note "gpucost analyze exited $rc: $(head -c 400 "$err" | tr '\n' ' ')"
  fi
  rm -f "$tmp" "$err"
  rm -f "$state/$job.start" "$textfile/gpucost_job_$job.prom" 2>/dev/null
  return 0
}

main
exit 0
