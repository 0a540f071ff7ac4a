#!/usr/bin/env bash
# The throughput benchmark (docs/performance.md): generates a corpus with `gpucost simulate`,
# then times, several times each (median reported):
#   gpucost analyze on the corpus (the whole pipeline: ingest, align, features, cost, report);
#   wc -l over the same files (the floor: reading the bytes and counting lines);
#   the article's preprocessing step, awk '/nvidia|gpu|thermal|power/' over the kernel logs,
#   against gpucost analyze and wc -l over the kernel logs alone;
# and prints MB/s, the ratios, peak RSS (GNU time), the peak RSS for a corpus a tenth the size
# (memory must not grow with the raw logs), and whether --threads 1 and 2 give identical bytes.
#
# Usage: scripts/bench.sh [SIZE] [REPETITIONS]      e.g. scripts/bench.sh 1G 5
#   SIZE: corpus size as `gpucost simulate --size` reads it (default 1G); REPETITIONS default 3.
#   GPUCOST_BENCH_DIR: where corpora go (default ./bench-corpus, git-ignored); kept between runs.
#   GPUCOST_BENCH_THREADS: --threads for gpucost analyze (default: all cores).
#   GPUCOST_BENCH_HOURS: hours of the training job in the corpus (default 48: dmon at 1 s, ps
#     snapshots every minute, the job's kernel and journal messages); the rest of SIZE is the
#     machine's background noise (cron, network, desktop, firewall, audit) in kern.log, syslog,
#     dmesg and the journal, as in the article's 1.2 GB that filtered down to 8.7 MB. The smaller
#     corpus has the same job and less noise. 0: no fixed job, the span grows with SIZE instead
#     (a dense corpus: everything in it is kept, so memory grows with it).
# Not part of ctest: timing belongs here, on a machine as quiet as you can get (see `uptime`).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1G}
reps=${2:-3}
dir=${GPUCOST_BENCH_DIR:-bench-corpus}
threads=${GPUCOST_BENCH_THREADS:-0}
hours=${GPUCOST_BENCH_HOURS:-48}

scripts/setup.sh time libbenchmark-dev >/dev/null  # builds gpucost (and build/bench/gpucost_bench); GNU time gives the peak RSS
bin=build/gpucost
gnutime=/usr/bin/time
[ -x "$gnutime" ] || { echo "bench: $gnutime missing (apt-get install time)" >&2; exit 1; }

# A corpus per size and simulator version, made once.
make_corpus() {  # SIZE -> prints the directory
  local s=$1 d="$dir/laptop-${hours}h-$1"
  local stamp span=()
  stamp="$($bin --version 2>/dev/null | head -n1) size=$s hours=$hours"
  [ "$hours" != 0 ] && span=(--hours "$hours")
  if [ ! -f "$d/.bench-stamp" ] || [ "$(cat "$d/.bench-stamp")" != "$stamp" ]; then
    rm -rf "$d"
    mkdir -p "$d"
    echo "bench: generating a $s corpus in $d ..." >&2
    "$bin" simulate --scenario laptop "${span[@]}" --size "$s" --out "$d" >&2
    echo "$stamp" >"$d/.bench-stamp"
  fi
  echo "$d"
}

corpus=$(make_corpus "$size")
# A tenth of the size, same mix: peak RSS must stay close (bounded by what is kept).
small_size=$(awk -v s="$size" 'BEGIN {
  u = toupper(substr(s, length(s))); n = s + 0;
  if (u == "G") { n = n * 1024; u = "M" } else if (u == "M") { n = n * 1024; u = "K" } else if (u == "K") { n = n * 1024; u = "" }
  printf "%d%s", n / 10, u }')
small=$(make_corpus "$small_size")

files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$corpus" -maxdepth 1 -type f ! -name '.*' | sort)
kernel_logs=()
for f in "$corpus"/kern.log* "$corpus"/dmesg.txt; do [ -f "$f" ] && kernel_logs+=("$f"); done

bytes_of() { local n=0 f; for f in "$@"; do n=$((n + $(stat -c %s "$f"))); done; echo "$n"; }
# Decompressed bytes, as gpucost and awk see them.
text_bytes_of() {
  local n=0 f
  for f in "$@"; do
    case "$f" in *.gz) n=$((n + $(gzip -dc "$f" | wc -c))) ;; *) n=$((n + $(stat -c %s "$f"))) ;; esac
  done
  echo "$n"
}
all_bytes=$(text_bytes_of "${files[@]}")
kernel_bytes=$(text_bytes_of "${kernel_logs[@]}")

# run LABEL CMD...: REPETITIONS runs; prints "median_seconds max_rss_kib"
run() {
  local label=$1
  shift
  local times=() rss=0 i
  for ((i = 0; i < reps; i++)); do
    # Wall time to the nanosecond around GNU time, whose own %e has only 10 ms resolution.
    local t0 t1 kib
    t0=$(date +%s%N)
    kib=$("$gnutime" -f '%M' "$@" 2>&1 >/dev/null | tail -n1)
    t1=$(date +%s%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')")
    [ "$kib" -gt "$rss" ] && rss=$kib
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
  echo "bench: $label: ${times[*]} s (median $median)" >&2
  echo "$median $rss"
}

# The article's preprocessing step. awk reads the plain files itself (as the article's
# log-prep.sh did); only a rotated .gz comes through gzip -dc. over_text CMD FILES: CMD over the
# files, the .gz ones decompressed.
over_text() {
  local cmd=$1 plain=() gz=() f
  shift
  for f in "$@"; do case "$f" in *.gz) gz+=("$f") ;; *) plain+=("$f") ;; esac; done
  if ((${#gz[@]})); then
    "$cmd" "${plain[@]}" <(gzip -dc "${gz[@]}")
  else
    "$cmd" "${plain[@]}"
  fi >/dev/null
}
article_awk() { awk '/nvidia|gpu|thermal|power/ { n++; print }' "$@"; }
count_lines() { wc -l "$@"; }
export -f over_text article_awk count_lines

# gpucost over the kernel logs alone, to set against awk over the same files.
kernel_dir="$dir/kernel-logs-$(basename "$corpus")"
rm -rf "$kernel_dir"
mkdir -p "$kernel_dir"
for f in "${kernel_logs[@]}"; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$kernel_dir/"; done

echo "bench: machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB RAM" >&2
echo "bench: awk is $(readlink -f "$(command -v awk)")" >&2
echo "bench: load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

read -r t_gpucost rss_gpucost < <(run "gpucost analyze" "$bin" analyze "$corpus" --threads "$threads" --format json -o /dev/null)
read -r t_wc _ < <(run "wc -l" wc -l "${files[@]}")
read -r t_gpucost_kern _ < <(run "gpucost analyze (kernel logs)" "$bin" analyze "$kernel_dir" --threads "$threads" --format json -o /dev/null)
read -r t_wc_kern _ < <(run "wc -l (kernel logs)" bash -c 'over_text count_lines "$@"' _ "${kernel_logs[@]}")
read -r t_awk _ < <(run "awk (article)" bash -c 'over_text article_awk "$@"' _ "${kernel_logs[@]}")
read -r t_awk_all _ < <(run "awk (article), all files" bash -c 'over_text article_awk "$@"' _ "${files[@]}")
read -r _ rss_small < <(run "gpucost analyze (small corpus)" "$bin" analyze "$small" --threads "$threads" --format json -o /dev/null)

# Identical bytes whatever the thread count.
same=yes
"$bin" analyze "$corpus" --threads 1 --format json --no-timings -o "$dir/report-t1.json" 2>/dev/null || true
"$bin" analyze "$corpus" --threads 2 --format json --no-timings -o "$dir/report-t2.json" 2>/dev/null || true
cmp -s "$dir/report-t1.json" "$dir/report-t2.json" || same=NO
# Stage timings of one more run, from the JSON report.
"$bin" analyze "$corpus" --threads "$threads" --format json -o "$dir/report.json" 2>/dev/null || true
echo "bench: load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

awk -v all="$all_bytes" -v kern="$kernel_bytes" -v tg="$t_gpucost" -v tgk="$t_gpucost_kern" -v twk="$t_wc_kern" -v tw="$t_wc" -v ta="$t_awk" \
    -v taa="$t_awk_all" -v rss="$rss_gpucost" -v rss_small="$rss_small" -v size="$size" -v small="$small_size" -v reps="$reps" \
    -v same="$same" -v job="$([ "$hours" != 0 ] && echo "a ${hours} h job in noise" || echo "dense")" 'BEGIN {
  mb = all / 1e6; kmb = kern / 1e6
  g = mb / tg; w = mb / tw; a = kmb / ta; aa = mb / taa
  printf "\ngpucost benchmark: %s corpus, %s (%.1f MB of text, %d files), median of %d runs\n\n", size, job, mb, 0, reps
  printf "%-46s %10s %10s %10s %12s\n", "", "MB", "seconds", "MB/s", "peak RSS"
  printf "%-46s %10.1f %10.3f %10.0f %9.0f MiB\n", "gpucost analyze (whole pipeline)", mb, tg, g, rss / 1024
  printf "%-46s %10.1f %10.3f %10.0f %12s\n", "wc -l (same files)", mb, tw, w, ""
  printf "%-46s %10.1f %10.3f %10.0f %12s\n", "gpucost analyze (the kernel logs alone)", kmb, tgk, kmb / tgk, ""
  printf "%-46s %10.1f %10.3f %10.0f %12s\n", "wc -l (the kernel logs alone)", kmb, twk, kmb / twk, ""
  printf "%-46s %10.1f %10.3f %10.0f %12s\n", "awk /nvidia|gpu|thermal|power/ (kernel logs)", kmb, ta, a, ""
  printf "%-46s %10.1f %10.3f %10.0f %12s\n", "awk /nvidia|gpu|thermal|power/ (all files)", mb, taa, aa, ""
  printf "%-46s %10s %10s %10s %9.0f MiB\n", "gpucost analyze, " small " corpus", "", "", "", rss_small / 1024
  printf "\n"
  printf "gpucost vs wc -l:         %.2fx the time (target <= 4x, stretch 2x)\n", tg / tw
  printf "gpucost vs awk:           %.1fx the speed of awk over the same kernel logs (target >= 5x);\n", ta / tgk
  printf "                          throughput %.1fx awk'"'"'s over the kernel logs, %.1fx over all files\n", g / a, g / aa
  printf "gpucost throughput:       %.2f GB/s (target >= 1 GB/s)\n", g / 1000
  printf "peak RSS:                 %.0f MiB (target < 256 MiB)\n", rss / 1024
  printf "peak RSS vs %s corpus: %.2fx (target <= 1.5x)\n", small, rss / rss_small
  printf "--threads 1 vs 2:         %s\n", same == "yes" ? "identical JSON" : "DIFFERENT JSON"
}' | sed "s/, 0 files)/, ${#files[@]} files)/"
if command -v jq >/dev/null && [ -s "$dir/report.json" ]; then
  echo
  echo "stage timings of one more run (JSON report, .timings):"
  jq -r '.timings[] | [.stage, (.seconds * 1000 | floor | tostring) + " ms",
          (if .mb_per_s > 0 then (.mb_per_s | floor | tostring) + " MB/s" else "" end),
          (if .peak_rss_bytes then (.peak_rss_bytes / 1048576 | floor | tostring) + " MiB peak" else "" end)] | @tsv' \
    "$dir/report.json" | column -t -s $'\t'
fi
