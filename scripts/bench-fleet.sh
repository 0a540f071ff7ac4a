#!/usr/bin/env bash
# bench-fleet.sh: generates per-job rows (docs/fleet.md schema) and times `gpucost fleet` on them:
# wall time, rows per second and peak resident memory. A benchmark, not a test: nothing fails on
# the figures. docs/fleet.md quotes its output.
#
#   scripts/bench-fleet.sh [ROWS] [DIR]     (default 1000000 rows, a temporary directory)
#
# Rows go to DIR/DATE/HOST/JOBS.ndjson, 1000 rows per file, 4 GPU rows and 1 node row per job,
# 50 000 jobs' worth of keys per million rows, 300 users, 200 nodes, 3 GPU models.
# GPUCOST_BINARY defaults to build/gpucost.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-1000000}
bin=${GPUCOST_BINARY:-$root/build/gpucost}
if [ -n "${2:-}" ]; then dir=$2; mkdir -p "$dir"; keep=1; else dir=$(mktemp -d); keep=0; fi
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
[ -x "$bin" ] || { echo "bench-fleet: $bin is not built" >&2; exit 1; }

echo "bench-fleet: generating $rows rows in $dir" >&2
python3 - "$rows" "$dir" <<'PY'
import json, os, random, sys
rows, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(17)
models = ["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"]
per_file, written, job, f, in_file = 1000, 0, 0, None, 0
def row(kind, job, user, host, gpu, model, alloc, busy):
    idle = alloc - busy
    r = {"schema": "gpucost.job_row", "schema_version": 2, "row": kind, "job_id": str(job), "user": user,
         "host": host, "gpu_index": gpu, "gpu_uuid": None if gpu is None else f"GPU-{job:08x}-{gpu}",
         "gpu_pci_bus_id": None if gpu is None else f"0000:{gpu + 1:02x}:00", "gpu_model": model,
         "gpu_count": 1 if kind == "gpu" else 4, "window_start": "2026-11-29T08:00:00.000000Z",
         "window_end": "2026-11-29T10:00:00.000000Z", "window_source": "since_until",
         "first_record": "2026-11-29T08:00:01.000000Z", "last_record": "2026-11-29T09:59:59.000000Z",
         "allocated_gpu_hours": alloc, "sampled_gpu_hours": alloc, "busy_gpu_hours": busy, "idle_gpu_hours": idle, "unmeasured_gpu_hours": 0,
         "energy_kwh": round(busy * 0.35 + idle * 0.06, 6), "busy_fraction": busy / alloc,
         "effective_utilization": busy / alloc * 0.95, "effective_gpu_hours": busy * 0.95,
         "xid_events": 0 if rng.random() < 0.98 else 1, "incidents": 0 if kind == "gpu" else int(rng.random() < 0.01),
         "gpu_lost_s": None, "time_above_temp_s": 0, "currency": "USD", "local_cost_per_wall_hour": 1.1,
         "local_cost_per_effective_hour": 1.1 / max(busy / alloc * 0.95, 0.01), "cloud_hourly_rate": 4.1,
         "cloud_cost_per_effective_hour": 4.5, "local_cost": alloc * 1.1, "idle_cost": idle * 1.1,
         "cloud_cost": busy * 0.95 * 4.5, "verdict": "crossover", "local_preset": "a100", "cloud_preset": "aws-p4d",
         "price_seen": "2026-11-29", "gpucost_version": "0.1.0",
         "null_reasons": {"gpu_lost_s": "feature gpu_lost_s is not in this build's feature catalog"}}
    return json.dumps(r, separators=(",", ":"))
while written < rows:
    job += 1
    user, host, model = f"user{rng.randrange(300)}", f"node{rng.randrange(200):03d}", models[job % 3]
    alloc = round(rng.uniform(0.1, 12), 4)
    lines = [row("gpu", job, user, host, g, model, alloc, round(alloc * rng.random(), 4)) for g in range(4)]
    lines.append(row("node", job, user, host, None, model, alloc * 4, 0))
    for l in lines[: rows - written]:
        if f is None or in_file == per_file:
            if f: f.close()
            d = os.path.join(out, f"2026-11-{1 + (written // per_file) % 28:02d}", host)
            os.makedirs(d, exist_ok=True)
            f, in_file = open(os.path.join(d, f"{job}.ndjson"), "w"), 0
        f.write(l + "\n")
        in_file += 1
        written += 1
if f: f.close()
PY
bytes=$(du -sb "$dir" | cut -f1)
echo "bench-fleet: $(find "$dir" -name '*.ndjson' | wc -l) files, $((bytes / 1000000)) MB; wc -l (the floor):" >&2
/usr/bin/time -f '  %e s wall, %M KiB peak RSS' sh -c "find '$dir' -name '*.ndjson' -print0 | xargs -0 cat | wc -l" 2>&1
echo "bench-fleet: gpucost fleet --format json:" >&2
/usr/bin/time -f '  %e s wall, %M KiB peak RSS' "$bin" fleet "$dir" --format json -o "$dir.fleet.json" 2>&1
python3 - "$dir.fleet.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
i = r["input"]
print(f"  rows {i['rows']}, malformed {i['malformed']}, jobs {len(r['by_job'])}, users {len(r['by_user'])}, "
      f"nodes {len(r['by_node'])}, models {len(r['by_gpu_model'])}")
PY
rm -f "$dir.fleet.json"
