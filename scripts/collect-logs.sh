#!/usr/bin/env bash
# collect-logs.sh: gathers, while a training job runs, the logs that `gpucost analyze` reads,
# and writes manifest.json beside them (docs/collect.md, docs/manifest.md).
#
#   scripts/collect-logs.sh --out DIR [--duration 4h] [--interval 1]
#
# Without --duration it collects until Ctrl-C. It never modifies the system: it only runs
# nvidia-smi, ps, dmesg, journalctl and (as root) ipmitool, reads the CPUs' energy counters under
# /sys/class/powercap and copies readable files under /var/log.
set -u
export LC_ALL=C  # stable, English messages and output from the tools it runs

readonly COLLECTOR_VERSION=1
readonly PS_MARKER='### gpucost-ps'
readonly IPMI_MARKER='### gpucost-ipmi'
readonly RAPL_HEADER='# gpucost-rapl-energy 1: <stamp> <zone> <name> <energy_uj> <max_energy_range_uj>'
# The --query-gpu fields asked for first; fields the driver refuses are dropped one by one.
readonly QUERY_FIELDS="timestamp,index,name,pci.bus_id,uuid,driver_version,pstate,temperature.gpu,\
temperature.memory,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,power.limit,\
enforced.power.limit,clocks.sm,clocks.mem,fan.speed,pcie.link.gen.current,pcie.link.gen.max,\
pcie.link.width.current,pcie.link.width.max"
# nvidia-smi dmon metric groups, most first; each is tried until the driver accepts one.
readonly DMON_GROUPS=(pucvmet pucvme pucvm pucm puc "")
# journalctl: kernel messages, and these units (their own messages and systemd's about them).
readonly JOURNAL_UNITS=(systemd-logind docker containerd nvidia-persistenced nvidia-powerd acpid upower
                        systemd-suspend systemd-hibernate systemd-hybrid-sleep systemd-suspend-then-hibernate
                        cron crond)
# Where syslog files are (overridable for tests only).
readonly VARLOG=${COLLECT_LOGS_VARLOG:-/var/log}
# The kernel's powercap tree, where RAPL energy counters are (overridable for tests only).
readonly POWERCAP=${COLLECT_LOGS_POWERCAP:-/sys/class/powercap}

usage() {
  cat <<'EOF'
Usage: collect-logs.sh --out DIR [options]

Collects, during a GPU job, what `gpucost analyze DIR` reads:
  nvidia-smi dmon / --query-gpu / pmon while the job runs, nvidia-smi -q at the start and under
  load, ps snapshots, the CPUs' energy counters (RAPL, where readable) and, as root, the BMC's
  power reading (ipmitool dcmi power reading), and at the end dmesg, the journal of the
  collection window and the syslog files; manifest.json describes the machine, the zone, the
  boot and every command.

Options:
  --out DIR          output directory (created; must be empty or new)
  --duration TIME    stop after TIME (30s, 10m, 4h, 1h30m, 2d; a bare number is seconds);
                     without it, collect until Ctrl-C
  --interval N       nvidia-smi sampling interval in whole seconds (default 1)
  --ps-interval N    seconds between ps snapshots (default 10)
  --ipmi-interval N  seconds between ipmitool dcmi power readings (default 10; root only)
  --load-pct P       SM utilization (%) at which the second nvidia-smi -q is taken (default 50)
  --no-query         do not run nvidia-smi --query-gpu
  --no-pmon          do not run nvidia-smi pmon
  -h, --help         this text

Ctrl-C (or SIGTERM) stops the collection and finishes normally (dmesg, journal, manifest); a
second Ctrl-C cuts the finishing short (what is cut is marked "partial" or "skipped" in the
manifest). Exit status: 0 collected, 1 failed, 2 usage error, 130 finishing cut short.
EOF
}

die_usage() { echo "collect-logs.sh: $*" >&2; echo "Try 'collect-logs.sh --help'." >&2; exit 2; }
say() { echo "collect-logs: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# Seconds in 30s, 10m, 4h, 2d, 1h30m, or a bare number.
parse_duration() {
  local s=$1 total=0 n unit
  [[ $s =~ ^[0-9]+$ ]] && { echo "$s"; return 0; }
  [[ $s =~ ^([0-9]+[smhd])+$ ]] || return 1
  while [[ $s =~ ^([0-9]+)([smhd])(.*)$ ]]; do
    n=$((10#${BASH_REMATCH[1]})) unit=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
    case $unit in s) total=$((total + n)) ;; m) total=$((total + n * 60)) ;;
                  h) total=$((total + n * 3600)) ;; d) total=$((total + n * 86400)) ;; esac
  done
  echo "$total"
}

out="" duration="" interval=1 ps_interval=10 ipmi_interval=10 load_pct=50 want_query=1 want_pmon=1
while (($#)); do
  case $1 in
    --out) (($# >= 2)) || die_usage "--out needs a directory"; out=$2; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --duration) (($# >= 2)) || die_usage "--duration needs a time"; duration=$2; shift 2 ;;
    --duration=*) duration=${1#*=}; shift ;;
    --interval) (($# >= 2)) || die_usage "--interval needs seconds"; interval=$2; shift 2 ;;
    --interval=*) interval=${1#*=}; shift ;;
    --ps-interval) (($# >= 2)) || die_usage "--ps-interval needs seconds"; ps_interval=$2; shift 2 ;;
    --ps-interval=*) ps_interval=${1#*=}; shift ;;
    --ipmi-interval) (($# >= 2)) || die_usage "--ipmi-interval needs seconds"; ipmi_interval=$2; shift 2 ;;
    --ipmi-interval=*) ipmi_interval=${1#*=}; shift ;;
    --load-pct) (($# >= 2)) || die_usage "--load-pct needs a percentage"; load_pct=$2; shift 2 ;;
    --load-pct=*) load_pct=${1#*=}; shift ;;
    --no-query) want_query=0; shift ;;
    --no-pmon) want_pmon=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[ -n "$out" ] || die_usage "--out DIR is required"
if ! [[ $interval =~ ^[0-9]+$ ]] || ((10#$interval < 1 || 10#$interval > 3600)); then
  die_usage "--interval '$interval' is not a whole number of seconds (1..3600)"
fi
interval=$((10#$interval))
if ! [[ $ps_interval =~ ^[0-9]+$ ]] || ((10#$ps_interval < 1)); then
  die_usage "--ps-interval '$ps_interval' is not a whole number of seconds"
fi
ps_interval=$((10#$ps_interval))
if ! [[ $ipmi_interval =~ ^[0-9]+$ ]] || ((10#$ipmi_interval < 1)); then
  die_usage "--ipmi-interval '$ipmi_interval' is not a whole number of seconds"
fi
ipmi_interval=$((10#$ipmi_interval))
if ! [[ $load_pct =~ ^[0-9]+$ ]] || ((10#$load_pct > 100)); then die_usage "--load-pct '$load_pct' is not a percentage"; fi
load_pct=$((10#$load_pct))
duration_s=""
if [ -n "$duration" ]; then
  if ! duration_s=$(parse_duration "$duration") || ((duration_s <= 0)); then
    die_usage "--duration '$duration' is not a time like 30s, 10m, 4h or 1h30m"
  fi
fi
if [ -e "$out" ] && [ ! -d "$out" ]; then die_usage "--out $out exists and is not a directory"; fi
if [ -d "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  die_usage "--out $out is not empty (choose a new directory; nothing is overwritten)"
fi
mkdir -p "$out" || { say "cannot create $out"; exit 1; }
dir=$(cd "$out" && pwd) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collect-logs.XXXXXX") || { say "cannot create a temporary directory"; exit 1; }

# ---------------------------------------------------------------------------------------------
# The commands run, in order, as manifest.json lists them.
cmd_text=() cmd_status=() cmd_reason=() cmd_file=() superseded=()
# record CMD STATUS REASON [FILE]: appends an entry; its index is in $recorded.
record() {
  cmd_text+=("$1") cmd_status+=("$2") cmd_reason+=("$3") cmd_file+=("${4:-}")
  recorded=$((${#cmd_text[@]} - 1))
}

# Entries FIRST..(last but one) were variants that the last entry replaced.
replaced_by_last() {
  local i
  for ((i = $1; i < recorded; i++)); do
    [ "${cmd_status[i]}" = failed ] || continue
    superseded[i]=1
    cmd_reason[i]+="; replaced by: ${cmd_text[recorded]}"
  done
}

# First lines of a file as a one-line reason (at most 300 bytes).
reason_of() {
  local r
  r=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | head -n 2 | tr '\n' ' ')
  r=${r%" "}
  printf '%s' "${r:0:300}"
}

# ---------------------------------------------------------------------------------------------
# Children. Each runs in its own session (setsid), so Ctrl-C at the terminal does not reach it
# and `kill -- -PID` stops it with whatever it started; collectors also get a timeout as a net
# in case this script is killed outright.
spawn() {  # spawn OUT ERR LIMIT CMD...: starts CMD in the background; its pid is in $spawned
  local o=$1 e=$2 limit=$3
  shift 3
  local pre=()
  have setsid && pre+=(setsid)
  ((limit > 0)) && have timeout && pre+=(timeout -k 5 "$limit")
  have stdbuf && pre+=(stdbuf -oL)
  "${pre[@]}" "$@" >"$o" 2>"$e" </dev/null &
  spawned=$!
}

stop_group() {  # stop_group PID: TERM to its process group, KILL after 3 s
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
}

# Moves PART to FINAL; a last line without its newline (cut by a stop) is removed first.
# Prints a note when it removed one. An empty file is removed and 1 returned.
finish_file() {
  local part=$1 final=$2
  [ -e "$part" ] || return 1
  if [ ! -s "$part" ]; then rm -f "$part"; return 1; fi
  if [ -n "$(tail -c 1 "$part")" ]; then
    head -n "$(wc -l <"$part")" "$part" >"$part.trim" && mv -f "$part.trim" "$part"
    printf 'its last line was cut off when it stopped and was removed'
    if [ ! -s "$part" ]; then rm -f "$part"; return 1; fi
  fi
  mv -f "$part" "$final"
}

# Background collectors: name, pid, output file, manifest entry, start time.
col_name=() col_pid=() col_file=() col_rec=() col_started=() col_live=()

has_data() { [ -s "$1" ] && grep -q '^[[:space:]]*[0-9]' "$1" 2>/dev/null; }

# start_collector NAME FILE CMD...: starts CMD writing FILE(.part); returns 1, with the failure
# recorded and nothing left behind, when CMD exits before printing a data row.
start_collector() {
  local name=$1 file=$2
  shift 2
  local part="$dir/$file.part" err="$tmp/$name.err" limit=0 i pid rc
  [ -n "$duration_s" ] && limit=$((duration_s + 300))
  spawn "$part" "$err" "$limit" "$@"
  pid=$spawned
  for ((i = 0; i < 100; i++)); do  # up to 10 s for the first row: nvidia-smi can be slow to start
    kill -0 "$pid" 2>/dev/null || break
    if has_data "$part"; then sleep 0.3; kill -0 "$pid" 2>/dev/null && break; fi
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    record "$*" running "" "$file"
    col_name+=("$name") col_pid+=("$pid") col_file+=("$file") col_rec+=("$recorded")
    col_started+=("$(date +%s)") col_live+=(1)
    return 0
  fi
  wait "$pid"
  rc=$?
  local why
  why=$(reason_of "$err")
  [ -n "$why" ] || why=$(reason_of "$part")
  record "$*" failed "exited with status $rc before printing data${why:+: $why}"
  rm -f "$part"
  return 1
}

# Stops collector K and finishes its file; STATUS/REASON describe why it ended.
end_collector() {
  local k=$1 status=$2 reason=$3 note
  [ "${col_live[k]}" = 1 ] || return 0
  col_live[k]=0
  local pid=${col_pid[k]} rec=${col_rec[k]} file=${col_file[k]}
  stop_group "$pid"
  wait "$pid" 2>/dev/null
  if note=$(finish_file "$dir/$file.part" "$dir/$file"); then
    [ -n "$note" ] && reason="${reason:+$reason; }$note"
  else
    status=failed reason="${reason:+$reason; }no output"
    cmd_file[rec]=""
  fi
  cmd_status[rec]=$status cmd_reason[rec]=$reason
}

# A collector that ended on its own (the GPU fell off the bus, the driver was unloaded) keeps
# what it wrote; its entry says when and why.
check_collectors() {
  local k rc why
  for k in "${!col_pid[@]}"; do
    [ "${col_live[k]}" = 1 ] || continue
    kill -0 "${col_pid[k]}" 2>/dev/null && continue
    wait "${col_pid[k]}" 2>/dev/null
    rc=$?
    why=$(reason_of "$tmp/${col_name[k]}.err")
    say "${col_name[k]} ended on its own (status $rc)${why:+: $why}"
    end_collector "$k" partial \
      "ended on its own with status $rc after $(($(date +%s) - col_started[k])) s${why:+: $why}; its output until then is kept"
  done
}

stop_collectors() {
  local k
  for k in "${!col_pid[@]}"; do end_collector "$k" ok ""; done
}

# run_once FILE LIMIT CMD...: runs CMD to completion (or LIMIT seconds) with its output in
# DIR/FILE, or in the temporary directory when FILE starts with `tmp/` (then not listed as a file),
# and records the entry. In the finishing phase a signal cuts it short (status partial).
run_once() {
  local file=$1 limit=$2
  shift 2
  local final="$dir/$file" listed=$file pid rc status=ok reason="" note why
  if [[ $file == tmp/* ]]; then final="$tmp/${file#tmp/}" listed=""; fi
  local part="$final.part" err="$tmp/once.err"
  spawn "$part" "$err" "$limit" "$@"
  pid=$spawned
  while :; do
    wait "$pid"
    rc=$?
    kill -0 "$pid" 2>/dev/null || break  # finished; otherwise a trapped signal interrupted wait
    if [ "$phase" = finish ]; then
      stop_group "$pid"
      wait "$pid" 2>/dev/null
      rc=signal
      break
    fi
  done
  why=$(reason_of "$err")
  if [ "$rc" = signal ]; then
    status=partial reason="cut short by $stop_signal while it ran"
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    status=partial reason="did not finish within $limit s and was stopped"
  elif [ "$rc" != 0 ]; then
    [ -n "$why" ] || why=$(reason_of "$part")
    status=failed reason="exit status $rc${why:+: $why}"
  fi
  if [ "$status" = failed ]; then
    rm -f "$part"
    record "$*" failed "$reason"
  elif note=$(finish_file "$part" "$final"); then
    [ -n "$note" ] && reason="${reason:+$reason; }$note"
    record "$*" "$status" "$reason" "$listed"
  else
    record "$*" "$status" "${reason:+$reason; }no output${why:+: $why}"
  fi
}

# ---------------------------------------------------------------------------------------------
# Signals: the first stops the collection (a normal end), any later one cuts the finishing short.
stop_reason="" stop_signal="" phase=start finish_cut=0 manifest_final=0
# shellcheck disable=SC2317  # called by the traps
on_signal() {
  stop_signal=$1
  [ -n "$stop_reason" ] || stop_reason=$1
  case $phase in finish) finish_cut=1 ;; esac
  say "$1: stopping"
}
trap 'on_signal SIGINT' INT
trap 'on_signal SIGTERM' TERM
trap 'on_signal SIGHUP' HUP

# shellcheck disable=SC2317  # called by the trap
on_exit() {
  local k
  for k in "${!col_pid[@]}"; do
    [ "${col_live[k]}" = 1 ] && end_collector "$k" partial "stopped when collect-logs.sh ended unexpectedly"
  done
  if [ "$manifest_final" != 1 ] && [ -n "${start_utc:-}" ]; then
    [ -n "${end_utc:-}" ] || end_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    write_manifest aborted
  fi
  rm -rf "$tmp"
}
trap on_exit EXIT

# ---------------------------------------------------------------------------------------------
# JSON: strings are made ASCII (anything else becomes ?), so the manifest is always valid UTF-8.
jstr() {
  local s
  s=$(printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037\177' | tr -c '\011\012\015\040-\176' '?')
  s=${s//\\/\\\\} s=${s//\"/\\\"} s=${s//$'\t'/\\t} s=${s//$'\n'/\\n} s=${s//$'\r'/\\r}
  printf '"%s"' "$s"
}
jstr_or_null() { if [ -n "$1" ]; then jstr "$1"; else printf 'null'; fi; }

write_manifest() {  # write_manifest STATE
  local state=$1 m="$dir/manifest.json.part" i sep
  {
    printf '{\n  "gpucost_manifest": 1,\n'
    printf '  "collector": "scripts/collect-logs.sh",\n  "collector_version": %s,\n' "$COLLECTOR_VERSION"
    printf '  "state": %s,\n  "stopped_by": %s,\n' "$(jstr "$state")" "$(jstr_or_null "$stop_reason")"
    printf '  "host": %s,\n  "kernel": %s,\n  "driver_version": %s,\n' \
      "$(jstr_or_null "$host")" "$(jstr_or_null "$kernel")" "$(jstr_or_null "$driver_version")"
    printf '  "timezone": {"name": %s, "utc_offset": %s, "source": %s},\n' \
      "$(jstr_or_null "$zone_name")" "$(jstr_or_null "$zone_offset")" "$(jstr_or_null "$zone_source")"
    printf '  "boot_id": %s,\n  "boot_time": %s,\n' "$(jstr_or_null "$boot_id")" "$(jstr_or_null "$boot_time")"
    printf '  "start": %s,\n  "end": %s,\n' "$(jstr_or_null "$start_utc")" "$(jstr_or_null "${end_utc:-}")"
    printf '  "collecting_since": %s,\n  "duration_s": %s,\n' "$(jstr_or_null "${collecting_since:-}")" "${duration_s:-null}"
    printf '  "interval_s": %s,\n  "ps_interval_s": %s,\n' "$interval" "$ps_interval"
    printf '  "user": %s,\n  "uid": %s,\n' "$(jstr_or_null "$user_name")" "$(id -u)"
    printf '  "gpus": ['
    sep=""
    for i in "${!gpu_index[@]}"; do
      printf '%s\n    {"index": %s, "name": %s, "pci_bus_id": %s, "uuid": %s}' "$sep" \
        "${gpu_index[i]:-null}" "$(jstr_or_null "${gpu_name[i]}")" "$(jstr_or_null "${gpu_bus[i]}")" \
        "$(jstr_or_null "${gpu_uuid[i]}")"
      sep=","
    done
    [ -n "$sep" ] && printf '\n  '
    printf '],\n  "commands": ['
    sep=""
    for i in "${!cmd_text[@]}"; do
      printf '%s\n    {"cmd": %s, "status": %s, "reason": %s, "file": %s}' "$sep" "$(jstr "${cmd_text[i]}")" \
        "$(jstr "${cmd_status[i]}")" "$(jstr "${cmd_reason[i]}")" "$(jstr_or_null "${cmd_file[i]}")"
      sep=","
    done
    [ -n "$sep" ] && printf '\n  '
    printf ']\n}\n'
  } >"$m" && mv -f "$m" "$dir/manifest.json"
}

# ---------------------------------------------------------------------------------------------
# The machine.
start_epoch=$(date +%s)
start_utc=$(date -u -d "@$start_epoch" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
end_utc=""
host=$(hostname 2>/dev/null || uname -n)
kernel=$(uname -r)
user_name=$(id -un 2>/dev/null || echo "")
boot_id=""
if [ -r /proc/sys/kernel/random/boot_id ]; then
  boot_id=$(tr -d '\n-' </proc/sys/kernel/random/boot_id)
fi
boot_time=""
btime=$(awk '$1 == "btime" { print $2 }' /proc/stat 2>/dev/null)
[[ $btime =~ ^[0-9]+$ ]] && boot_time=$(date -u -d "@$btime" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null)

# The zone the tools print local times in: $TZ when set (this script and its children use it),
# else the machine's.
zone_name="" zone_source=""
if [ -n "${TZ:-}" ]; then
  zone_name=${TZ#:} zone_source=TZ
  zone_name=${zone_name#/usr/share/zoneinfo/}
elif have timedatectl && zone_name=$(timeout 5 timedatectl show -p Timezone --value 2>/dev/null) &&
     [ -n "$zone_name" ]; then
  zone_source=timedatectl
elif [ -r /etc/timezone ] && read -r zone_name </etc/timezone && [ -n "$zone_name" ]; then
  zone_source=/etc/timezone
elif [ -L /etc/localtime ]; then
  zone_name=$(readlink /etc/localtime)
  zone_name=${zone_name##*/zoneinfo/} zone_source=/etc/localtime
else
  zone_name=""
fi
zone_offset=$(date +%:z 2>/dev/null)
[[ $zone_offset =~ ^[+-][0-9][0-9]:[0-9][0-9]$ ]] || zone_offset=""

touch "$tmp/start.stamp"

# The GPUs, from the driver.
driver_version="" gpu_index=() gpu_name=() gpu_bus=() gpu_uuid=()
value() { local v; v=$(trim "$1"); [[ $v == \[*\] || $v == N/A ]] && v=""; printf '%s' "$v"; }
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }
nvsmi_ok=0
if have nvidia-smi; then
  run_once tmp/gpus.csv 60 nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,driver_version --format=csv,noheader
  if [ "${cmd_status[recorded]}" = ok ] && [ -s "$tmp/gpus.csv" ]; then
    while IFS=, read -r a b c d e; do
      a=$(trim "$a")
      [[ $a =~ ^[0-9]+$ ]] || continue
      gpu_index+=("$a") gpu_name+=("$(value "$b")") gpu_bus+=("$(value "$c")") gpu_uuid+=("$(value "$d")")
      [ -n "$driver_version" ] || driver_version=$(value "$e")
    done <"$tmp/gpus.csv"
  fi
  if ((${#gpu_index[@]})); then nvsmi_ok=1; else
    say "nvidia-smi lists no GPU: ${cmd_reason[recorded]:-no output}"
    cmd_reason[recorded]="${cmd_reason[recorded]:+${cmd_reason[recorded]}; }no GPU listed"
    [ "${cmd_status[recorded]}" = ok ] && cmd_status[recorded]=failed
  fi
else
  record nvidia-smi failed "nvidia-smi is not on PATH: no GPU samples or devices are collected"
  say "nvidia-smi is not on PATH: collecting the system logs only"
fi
nvsmi_skip() { record "$1" skipped "not run: nvidia-smi is missing or lists no GPU"; }

say "collecting into $dir${duration_s:+ for $duration} (Ctrl-C stops)"
phase=collect

# nvidia-smi -q once now, once under load.
if ((nvsmi_ok)); then run_once nvidia-smi-q-start.txt 60 nvidia-smi -q; else nvsmi_skip "nvidia-smi -q"; fi

# nvidia-smi dmon: every metric group the driver accepts, local date and time on each row.
dmon_ok=0
if ((nvsmi_ok)); then
  first=${#cmd_text[@]}
  for g in "${DMON_GROUPS[@]}"; do
    args=(nvidia-smi dmon)
    [ -n "$g" ] && args+=(-s "$g")
    args+=(-o DT -d "$interval")
    if start_collector dmon nvidia-smi-dmon.txt "${args[@]}"; then dmon_ok=1; break; fi
    [ -z "$stop_reason" ] || break
  done
  # Drivers without -o print rows without time: gpucost places them from the manifest's start.
  if ((!dmon_ok)) && [ -z "$stop_reason" ]; then
    start_collector dmon nvidia-smi-dmon.txt nvidia-smi dmon -d "$interval" && dmon_ok=1
  fi
  ((dmon_ok)) && replaced_by_last "$first"
else
  nvsmi_skip "nvidia-smi dmon -s pucvmet -o DT -d $interval"
fi

# nvidia-smi --query-gpu with a header; fields this driver does not know are dropped.
if ((nvsmi_ok && want_query)); then
  fields=$QUERY_FIELDS first=${#cmd_text[@]}
  for ((try = 0; try < 16; try++)); do
    if start_collector query nvidia-smi-query-gpu.csv nvidia-smi --query-gpu="$fields" --format=csv -l "$interval"; then
      replaced_by_last "$first"
      break
    fi
    [ -z "$stop_reason" ] || break
    bad=$(printf '%s' "${cmd_reason[recorded]}" | sed -n 's/.*Field "\([^"]*\)" is not a valid field to query.*/\1/p')
    if [ -z "$bad" ] || [[ ",$fields," != *",$bad,"* ]]; then break; fi
    fields=",$fields," fields=${fields/,$bad,/,} fields=${fields#,} fields=${fields%,}
    say "this nvidia-smi does not know --query-gpu field $bad; retrying without it"
  done
elif ((want_query)); then
  nvsmi_skip "nvidia-smi --query-gpu=... --format=csv -l $interval"
else
  record "nvidia-smi --query-gpu=... --format=csv -l $interval" skipped "--no-query"
fi

# nvidia-smi pmon: which processes use each GPU (its interval is at most 10 s).
pmon_interval=$((interval > 10 ? 10 : interval))
if ((nvsmi_ok && want_pmon)); then
  first=${#cmd_text[@]}
  if start_collector pmon nvidia-smi-pmon.txt nvidia-smi pmon -o DT -d "$pmon_interval" ||
     { [ -z "$stop_reason" ] && start_collector pmon nvidia-smi-pmon.txt nvidia-smi pmon -d "$pmon_interval"; }; then
    replaced_by_last "$first"
  fi
elif ((want_pmon)); then
  nvsmi_skip "nvidia-smi pmon -o DT -d $pmon_interval"
else
  record "nvidia-smi pmon -o DT -d $pmon_interval" skipped "--no-pmon"
fi

# ps snapshots, each after a marker line with the time (docs/formats/ps.md).
ps_cmd=(ps auxww)
"${ps_cmd[@]}" >/dev/null 2>&1 || ps_cmd=(ps -ef)
record "every $ps_interval s: echo \"$PS_MARKER \$(date +%Y-%m-%dT%H:%M:%S%:z)\"; ${ps_cmd[*]}" running "" ps.log
ps_rec=$recorded ps_snapshots=0 ps_failures=0 ps_error=""
snapshot_ps() {
  local snap="$tmp/ps.snap"
  if { printf '%s %s\n' "$PS_MARKER" "$(date +%Y-%m-%dT%H:%M:%S%:z)" && "${ps_cmd[@]}"; } >"$snap" 2>"$tmp/ps.err"; then
    cat "$snap" >>"$dir/ps.log.part"
    ps_snapshots=$((ps_snapshots + 1))
  else
    ps_failures=$((ps_failures + 1))
    ps_error=$(reason_of "$tmp/ps.err")
  fi
}

# The highest SM utilization in the latest nvidia-smi rows (nothing when there are none).
load_now() {
  local n=${#gpu_index[@]} f="$dir/nvidia-smi-dmon.txt.part"
  ((n > 0)) || n=8
  if [ -s "$f" ]; then
    { head -n 2 "$f"; tail -n "$n" "$f"; } | awk '
      /^#/ { line = $0; sub(/^#/, "", line); k = split(line, w, " "); c = 0
             for (i = 1; i <= k; i++) if (w[i] == "sm") c = i
             if (c) col = c
             next }
      col && $col ~ /^[0-9]+$/ { if ($col + 0 > max) max = $col + 0; seen = 1 }
      END { if (seen) print max }'
    return
  fi
  f="$dir/nvidia-smi-query-gpu.csv.part"
  [ -s "$f" ] || return
  { head -n 1 "$f"; tail -n "$n" "$f"; } | awk -F', *' '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^utilization\.gpu/) col = i; next }
    col { v = $col; sub(/ *%$/, "", v); if (v ~ /^[0-9]+$/) { if (v + 0 > max) max = v + 0; seen = 1 } }
    END { if (seen) print max }'
}
q_load_file=""
check_load() {
  local pct
  pct=$(load_now)
  [ -n "$pct" ] && ((pct >= load_pct)) || return 0
  say "SM utilization $pct % >= $load_pct %: taking nvidia-smi -q under load"
  run_once nvidia-smi-q-load.txt 60 nvidia-smi -q
  cmd_reason[recorded]="${cmd_reason[recorded]:+${cmd_reason[recorded]}; }taken when SM utilization reached $pct %"
  q_load_file=nvidia-smi-q-load.txt
}

# The rest of the machine's power (docs/collect.md, "Host power"): the CPU packages' and their
# DRAM's energy counters (RAPL, in the kernel's powercap tree; AMD processors appear there under
# the same names on recent kernels) every --interval, and the BMC's reading of the whole system
# at the power supply's input (ipmitool dcmi power reading) every --ipmi-interval. Neither is
# required: what is missing is recorded as skipped, with why.
rapl_dirs=() rapl_zones=() rapl_names=() rapl_ranges=() rapl_rounds=0 rapl_rec=""
rapl_cmd="every $interval s: read $POWERCAP/intel-rapl:*/{name,energy_uj,max_energy_range_uj} (package and dram domains)"
rapl_unreadable=0
for z in "$POWERCAP"/intel-rapl:*; do
  [ -d "$z" ] || continue
  read -r zname <"$z/name" 2>/dev/null || continue
  # Packages and their DRAM only: core and uncore are parts of a package, psys includes it.
  case $zname in package-*|dram) ;; *) continue ;; esac
  if ! read -r _ <"$z/energy_uj" 2>/dev/null; then rapl_unreadable=1; continue; fi
  read -r zrange <"$z/max_energy_range_uj" 2>/dev/null || zrange=0
  rapl_dirs+=("$z") rapl_zones+=("${z##*/}") rapl_names+=("$zname") rapl_ranges+=("$zrange")
done
if ((${#rapl_dirs[@]})); then
  printf '%s\n' "$RAPL_HEADER" >"$dir/rapl-energy.txt.part"
  record "$rapl_cmd" running "" rapl-energy.txt
  rapl_rec=$recorded
elif ((rapl_unreadable)); then
  record "$rapl_cmd" skipped "energy_uj is readable by root only (Linux 5.10 and later, CVE-2020-8694): run as root to measure the CPUs' power"
else
  record "$rapl_cmd" skipped "no package or dram domain under $POWERCAP/intel-rapl:* (no RAPL powercap driver: a VM, a container without /sys, or a CPU without RAPL)"
fi
sample_rapl() {
  local stamp i e rows=""
  stamp=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
  for i in "${!rapl_dirs[@]}"; do
    read -r e <"${rapl_dirs[i]}/energy_uj" 2>/dev/null || continue
    rows+="$stamp ${rapl_zones[i]} ${rapl_names[i]} $e ${rapl_ranges[i]}"$'\n'
  done
  [ -n "$rows" ] || return 0
  printf '%s' "$rows" >>"$dir/rapl-energy.txt.part"
  rapl_rounds=$((rapl_rounds + 1))
}

ipmi_ok=0 ipmi_rec="" ipmi_readings=0 ipmi_failures=0 ipmi_error=""
ipmi_cmd="every $ipmi_interval s: echo \"$IPMI_MARKER \$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)\"; ipmitool dcmi power reading"
# reading_ipmi FILE: one marker and one reading appended to FILE; 1 when ipmitool failed. Like
# every child, ipmitool runs in its own session (Ctrl-C at the terminal is this script's to
# handle) and under a timeout (a BMC can hang).
ipmi_pre=()
have setsid && ipmi_pre+=(setsid -w)
have timeout && ipmi_pre+=(timeout -k 2 15)
reading_ipmi() {
  local snap="$tmp/ipmi.snap"
  { printf '%s %s\n' "$IPMI_MARKER" "$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)" &&
    "${ipmi_pre[@]}" ipmitool dcmi power reading </dev/null; } >"$snap" 2>"$tmp/ipmi.err" &&
    grep -q 'Instantaneous power reading' "$snap" || return 1
  cat "$snap" >>"$1"
}
if ! have ipmitool; then
  record "$ipmi_cmd" skipped "ipmitool is not on PATH (no BMC power reading; install ipmitool on servers)"
elif [ "$(id -u)" != 0 ] && ! { [ -r /dev/ipmi0 ] && [ -w /dev/ipmi0 ]; }; then
  record "$ipmi_cmd" skipped "the BMC (/dev/ipmi0) needs root: run as root to read the whole system's power"
elif reading_ipmi "$dir/ipmi-dcmi-power.txt.part"; then
  ipmi_ok=1 ipmi_readings=1
  record "$ipmi_cmd" running "" ipmi-dcmi-power.txt
  ipmi_rec=$recorded
else
  why=$(reason_of "$tmp/ipmi.err")
  rm -f "$dir/ipmi-dcmi-power.txt.part"
  record "$ipmi_cmd" skipped "no DCMI power reading from the BMC${why:+: $why}"
fi
sample_ipmi() {
  if reading_ipmi "$dir/ipmi-dcmi-power.txt.part"; then
    ipmi_readings=$((ipmi_readings + 1))
  else
    ipmi_failures=$((ipmi_failures + 1))
    ipmi_error=$(reason_of "$tmp/ipmi.err")
  fi
}

# The deadline counts from here, when the collectors run, not from the start: start-up probing
# (a real nvidia-smi without persistence mode takes seconds per call) must not eat the window.
collecting_epoch=$(date +%s)
collecting_since=$(date -u -d "@$collecting_epoch" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
write_manifest collecting

# ---------------------------------------------------------------------------------------------
# Collect until the deadline or a signal. Each round runs before the deadline is checked, so even
# a short --duration gets a ps snapshot and a look at the load.
deadline=""
[ -n "$duration_s" ] && deadline=$((collecting_epoch + duration_s))
next_ps=0 next_load=0 next_rapl=0 next_ipmi=$(($(date +%s) + ipmi_interval))
while [ -z "$stop_reason" ]; do
  now=$(date +%s)
  if ((now >= next_ps)); then snapshot_ps; next_ps=$((now + ps_interval)); fi
  if [ -n "$rapl_rec" ] && ((now >= next_rapl)); then sample_rapl; next_rapl=$((now + interval)); fi
  if ((ipmi_ok)) && ((now >= next_ipmi)); then sample_ipmi; next_ipmi=$((now + ipmi_interval)); fi
  if ((nvsmi_ok)) && [ -z "$q_load_file" ] && ((now >= next_load)); then
    check_load
    next_load=$((now + interval))
  fi
  check_collectors
  if [ -n "$deadline" ] && (($(date +%s) >= deadline)); then stop_reason=deadline; break; fi
  sleep 1
done

# ---------------------------------------------------------------------------------------------
# Finish: stop the collectors, then read what is only complete at the end.
phase=finish
end_epoch=$(date +%s)
end_utc=$(date -u -d "@$end_epoch" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
say "stopping the collection ($stop_reason)"
stop_collectors
if note=$(finish_file "$dir/ps.log.part" "$dir/ps.log"); then
  cmd_status[ps_rec]=ok cmd_reason[ps_rec]="$ps_snapshots snapshots${note:+; $note}"
else
  cmd_status[ps_rec]=failed cmd_file[ps_rec]="" cmd_reason[ps_rec]="no snapshot"
fi
((ps_failures)) && cmd_reason[ps_rec]+="; $ps_failures snapshot(s) failed: $ps_error"
if [ -n "$rapl_rec" ]; then
  sample_rapl  # the last reading closes the last interval
  if ((rapl_rounds)) && note=$(finish_file "$dir/rapl-energy.txt.part" "$dir/rapl-energy.txt"); then
    cmd_status[rapl_rec]=ok cmd_reason[rapl_rec]="$rapl_rounds readings of ${#rapl_dirs[@]} domain(s): ${rapl_names[*]}${note:+; $note}"
  else
    rm -f "$dir/rapl-energy.txt.part"
    cmd_status[rapl_rec]=failed cmd_file[rapl_rec]="" cmd_reason[rapl_rec]="no reading"
  fi
fi
if [ -n "$ipmi_rec" ]; then
  if note=$(finish_file "$dir/ipmi-dcmi-power.txt.part" "$dir/ipmi-dcmi-power.txt"); then
    cmd_status[ipmi_rec]=ok cmd_reason[ipmi_rec]="$ipmi_readings readings${note:+; $note}"
  else
    cmd_status[ipmi_rec]=failed cmd_file[ipmi_rec]="" cmd_reason[ipmi_rec]="no reading"
  fi
  ((ipmi_failures)) && cmd_reason[ipmi_rec]+="; $ipmi_failures reading(s) failed: $ipmi_error"
fi

# skip_if_cut CMD: records CMD as skipped (and returns 0) once a signal cut the finishing short.
skip_if_cut() {
  ((finish_cut)) || return 1
  record "$1" skipped "not run: $stop_signal cut the finishing short"
}

if ((nvsmi_ok)) && [ -z "$q_load_file" ]; then
  if ! skip_if_cut "nvidia-smi -q"; then
    run_once nvidia-smi-q-end.txt 60 nvidia-smi -q
    cmd_reason[recorded]="${cmd_reason[recorded]:+${cmd_reason[recorded]}; }taken at the end: SM utilization never reached $load_pct %"
  fi
fi

# dmesg with its raw stamps (seconds since boot); dmesg_restrict makes it root-only.
if ! skip_if_cut dmesg; then
  if have dmesg; then
    run_once dmesg.txt 60 dmesg
    if [ "${cmd_status[recorded]}" = failed ] && [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ]; then
      cmd_reason[recorded]+=" (kernel.dmesg_restrict=1: only root may read the kernel ring buffer; the journal's kernel messages stand in for it)"
    fi
  else
    record dmesg failed "dmesg is not on PATH"
  fi
fi

# The journal of the collection window (not only this boot: the job may span a reboot).
jargs=(journalctl -o json --no-pager --since "@$start_epoch" --until "@$((end_epoch + 1))" _TRANSPORT=kernel +)
for u in "${JOURNAL_UNITS[@]}"; do jargs+=("_SYSTEMD_UNIT=$u.service"); done
jargs+=(+)
for u in "${JOURNAL_UNITS[@]}"; do jargs+=("UNIT=$u.service"); done
jargs+=(+ SYSLOG_IDENTIFIER=acpid SYSLOG_IDENTIFIER=upowerd SYSLOG_IDENTIFIER=nvidia-persistenced
        SYSLOG_IDENTIFIER=nvidia-powerd SYSLOG_IDENTIFIER=systemd-sleep)
if ! skip_if_cut "${jargs[*]}"; then
  if have journalctl; then
    run_once journal.json 300 "${jargs[@]}"
    if grep -qi 'not seeing messages from other users' "$tmp/once.err" 2>/dev/null; then
      [ "${cmd_status[recorded]}" = ok ] && cmd_status[recorded]=limited
      cmd_reason[recorded]="${cmd_reason[recorded]:+${cmd_reason[recorded]}; }only this user's entries: system and kernel messages need root or the group adm or systemd-journal"
    fi
    if [ -f "$dir/journal.json" ] && ! grep -q '^[[:space:]]*{' "$dir/journal.json"; then
      rm -f "$dir/journal.json"  # "-- No entries --" and nothing else
      cmd_file[recorded]=""
    fi
    if [ -z "${cmd_file[recorded]}" ] && [ "${cmd_status[recorded]}" != failed ]; then
      cmd_reason[recorded]="no entries in the window (no journal kept, or nothing logged)${cmd_reason[recorded]:+; ${cmd_reason[recorded]}}"
    fi
  else
    record journalctl skipped "journalctl is not on PATH (no systemd journal)"
  fi
fi

# Syslog files: the current ones, and rotated ones written to during the collection. Copies keep
# the modification time, which dates stamps without a year.
copy_log() {
  local src=$1 name=${1##*/} dst
  dst="$dir/var-log/$name"
  skip_if_cut "cp -p $src" && return
  if [ ! -r "$src" ]; then
    record "cp -p $src" failed "cannot read $src (permission denied: run as root or as a member of the group adm)"
    return
  fi
  mkdir -p "$dir/var-log"
  if cp -p "$src" "$dst.part" 2>"$tmp/cp.err" && mv -f "$dst.part" "$dst"; then
    record "cp -p $src" ok "" "var-log/$name"
  else
    rm -f "$dst.part"
    if ((finish_cut)); then record "cp -p $src" skipped "cut short by $stop_signal"
    else record "cp -p $src" failed "$(reason_of "$tmp/cp.err")"; fi
  fi
}
found_syslog=0
for f in "$VARLOG"/kern.log* "$VARLOG"/syslog* "$VARLOG"/messages*; do
  [ -f "$f" ] || continue
  found_syslog=1
  case ${f##*/} in
    kern.log|syslog|messages) copy_log "$f" ;;
    *) [ -n "$(find "$f" -newer "$tmp/start.stamp" 2>/dev/null)" ] && copy_log "$f" ;;
  esac
done
((found_syslog)) || record "cp -p $VARLOG/{kern.log,syslog,messages}*" skipped "no such files (no rsyslog: the journal holds these messages)"

state=complete
((finish_cut)) && state=interrupted
write_manifest "$state"
manifest_final=1

# What could not be read (variants that a later one replaced aside).
for i in "${!cmd_text[@]}"; do
  [ -n "${superseded[i]:-}" ] && continue
  case ${cmd_status[i]} in
    ok|running) ;;
    *) say "${cmd_status[i]}: ${cmd_text[i]:0:80}${cmd_reason[i]:+ -- ${cmd_reason[i]}}" ;;
  esac
done
say "done: $dir (analyze with: gpucost analyze $dir)"
((finish_cut)) && exit 130
exit 0
