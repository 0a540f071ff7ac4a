#!/usr/bin/env bash
# Integration test with real components (ctest label `integration`): the textfile timer's script
# (deploy/systemd/gpucost-textfile.sh) writes gpucost's metrics into a directory; Debian's
# prometheus-node-exporter serves it (--collector.textfile.directory) over HTTP on loopback;
# `promtool check metrics` and `promtool check rules deploy/prometheus/rules.yml` accept them;
# Debian's prometheus loads rules.yml, scrapes that node_exporter and answers queries for the
# recording rules through its HTTP API with the values the textfile implies.
# Needs prometheus, prometheus-node-exporter and curl (scripts/run-tests.sh installs them); exit 77
# (skipped) without them. Every process it starts is stopped on exit, failure included.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${GPUCOST_IT_BINARY:-${GPUCOST_BINARY:-$root/build/gpucost}}  # GPUCOST_IT_BINARY: an installed gpucost
need=$root/tests/tools/need-command.sh
"$need" prometheus promtool || exit $?
"$need" prometheus prometheus || exit $?
"$need" prometheus-node-exporter prometheus-node-exporter || exit $?

work=$(mktemp -d "${TMPDIR:-/tmp}/gpucost-prom-it.XXXXXX")
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }  # check DESCRIPTION COMMAND...
no_tmp() { [ -z "$(find "$1" -name '*.tmp.*')" ]; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_http URL SECONDS: until URL answers 200.
wait_http() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}
"$need" curl curl || exit $?

# 1. The timer's script, as systemd runs it, over the bundled example (a window that covers it).
textfile=$work/textfile
if GPUCOST_CONFIG=/dev/null GPUCOST_BIN=$bin GPUCOST_LOG_DIR=$root/examples/laptop-training \
   GPUCOST_TEXTFILE_DIR=$textfile GPUCOST_PROM_WINDOW=$(($(date +%s) - $(date -d 2026-11-01 +%s))) \
   "$root/deploy/systemd/gpucost-textfile.sh" 2>"$work/textfile.err"; then
  ok "gpucost-textfile.sh wrote $textfile/gpucost.prom"
else
  cat "$work/textfile.err" >&2
  fail "gpucost-textfile.sh failed"
fi
[ -s "$textfile/gpucost.prom" ] || { fail "no textfile"; exit 1; }
check "no temporary file left beside it" no_tmp "$textfile"
# Two jobs' info series, as the Slurm prolog writes them (one file per job, the same family).
for j in 4242:alice:0 4243:bob:1; do
  GPUCOST_CONFIG=/dev/null GPUCOST_TEXTFILE_DIR=$textfile GPUCOST_STATE_DIR=$work/state GPUCOST_EPILOG_LOG=$work/slurm.log \
    SLURM_JOB_ID=${j%%:*} SLURM_JOB_USER=$(echo "$j" | cut -d: -f2) SLURM_JOB_GPUS=${j##*:} "$root/deploy/slurm/gpucost-prolog.sh"
done
check "the prolog published gpucost_job_info" test -s "$textfile/gpucost_job_4242.prom" -a -s "$textfile/gpucost_job_4243.prom"

# 2. promtool on the metrics and the rules.
for f in "$textfile"/*.prom; do
  if findings=$(promtool check metrics <"$f" 2>&1) && [ -z "$findings" ]; then ok "promtool check metrics ${f##*/}"
  else fail "promtool check metrics ${f##*/}: $findings"; fi
done
if promtool check rules "$root/deploy/prometheus/rules.yml" >"$work/rules.out" 2>&1; then ok "promtool check rules rules.yml"
else cat "$work/rules.out" >&2; fail "promtool check rules"; fi

# 3. node_exporter serving the textfile directory on loopback.
ne_port=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$textfile" >"$work/node-exporter.log" 2>&1 &
pids+=($!)
if wait_http "http://127.0.0.1:$ne_port/metrics" 30; then ok "node_exporter answers on 127.0.0.1:$ne_port"
else cat "$work/node-exporter.log" >&2; fail "node_exporter did not start"; exit 1; fi
curl -fsS "http://127.0.0.1:$ne_port/metrics" >"$work/scrape.txt"
check "scraped gpucost_gpu_busy_seconds" grep -q '^gpucost_gpu_busy_seconds{' "$work/scrape.txt"
check "scraped gpucost_job_info of both jobs" test "$(grep -c '^gpucost_job_info{.*job_id="424[23]"' "$work/scrape.txt")" = 2
check "node_exporter read the textfiles without error" grep -q '^node_textfile_scrape_error 0' "$work/scrape.txt"

# 4. prometheus with rules.yml, scraping that node_exporter every second.
p_port=$(free_port)
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$ne_port"]
YML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$p_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
if wait_http "http://127.0.0.1:$p_port/-/ready" 60; then ok "prometheus ready on 127.0.0.1:$p_port"
else tail -n 20 "$work/prometheus.log" >&2; fail "prometheus did not start"; exit 1; fi

# query EXPR: the first result's value ("" until there is one), polled for up to 60 s.
query() {
  local i v
  for ((i = 0; i < 120; i++)); do
    v=$(curl -fsS -G "http://127.0.0.1:$p_port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
    [ -n "$v" ] && { echo "$v"; return 0; }
    sleep 0.5
  done
  return 1
}
want=$(awk '/^gpucost_gpu_busy_seconds\{/ { s += $2 } END { printf "%.9g", s / 3600 }' "$textfile/gpucost.prom")
if got=$(query 'gpucost:gpu_busy_hours:sum'); then
  if python3 -c "import sys; sys.exit(abs(float('$got') - float('$want')) > 1e-6 * max(1, float('$want')))"; then
    ok "recording rule gpucost:gpu_busy_hours:sum = $got (the textfile's busy seconds / 3600 = $want)"
  else fail "gpucost:gpu_busy_hours:sum = $got, expected $want"; fi
else fail "no value for gpucost:gpu_busy_hours:sum"; fi
for rule in 'gpucost:gpu_idle_hours:sum' 'currency:gpucost_idle_cost_per_hour:sum' 'host:gpucost_cost_per_effective_hour:avg' \
            'host_model:gpucost_gpu_busy_hours:sum' 'model:gpucost_local_cost_per_effective_hour:avg'; do
  if got=$(query "$rule"); then ok "recording rule $rule = $got"; else fail "no value for $rule"; fi
done
curl -fsS "http://127.0.0.1:$p_port/api/v1/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
bad = [r["name"] for g in groups for r in g["rules"] if r.get("health") != "ok"]
print("rules not healthy: " + ", ".join(bad) if bad else "all rules healthy"); sys.exit(1 if bad else 0)' ||
  fail "a rule failed to evaluate"

if ((failures)); then echo "$failures check(s) failed" >&2; exit 1; fi
echo "all checks passed"
