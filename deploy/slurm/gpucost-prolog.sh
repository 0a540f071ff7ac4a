#!/usr/bin/env bash
# gpucost Slurm prolog (slurm.conf: Prolog=/usr/share/doc/gpucost/examples/slurm/gpucost-prolog.sh,
# or a copy under /etc/slurm). Runs as root on each node before a job: it records when the job
# started (the epilog analyzes from there) and, when node_exporter's textfile directory exists,
# publishes the job on the node's one `gpucost_job_info` series (job ids stay off every other
# metric). It never fails the job: every error is logged and it always exits 0.
# Settings: /etc/default/gpucost (GPUCOST_CONFIG), see docs/fleet.md.
set -u
conf=${GPUCOST_CONFIG:-/etc/default/gpucost}
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"
state=${GPUCOST_STATE_DIR:-/run/gpucost}
log=${GPUCOST_EPILOG_LOG:-/var/log/gpucost/slurm.log}
textfile=${GPUCOST_TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
job=${SLURM_JOB_ID:-}

note() { { mkdir -p "${log%/*}" && printf '%s prolog job %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${job:-?}" "$*" >>"$log"; } 2>/dev/null || true; }

main() {
  [[ $job =~ ^[0-9_]+$ ]] || { note "SLURM_JOB_ID '${job}' is not a job id; nothing recorded"; return; }
  mkdir -p "$state" || { note "cannot create $state"; return; }
  if ! { date +%s >"$state/$job.start.tmp" && mv -f "$state/$job.start.tmp" "$state/$job.start"; }; then
    note "cannot record the start time in $state"
  fi
  if [ -d "$textfile" ] && [ -w "$textfile" ]; then
    local f="$textfile/gpucost_job_$job.prom"
    esc() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '%s' "${s//$'\n'/\\n}"; }
    if ! {
      echo '# HELP gpucost_job_info Always 1; the Slurm job running on this node, its user and GPUs (the only series with job ids).'
      echo '# TYPE gpucost_job_info gauge'
      printf 'gpucost_job_info{job_id="%s",user="%s",gpus="%s"} 1\n' "$(esc "$job")" "$(esc "${SLURM_JOB_USER:-}")" \
        "$(esc "${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}")"
    } >"$f.tmp" || ! mv -f "$f.tmp" "$f"; then
      note "cannot write $f"
    fi
  fi
}

main
exit 0
