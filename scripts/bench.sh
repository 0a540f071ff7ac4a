#!/usr/bin/env bash
# The throughput benchmark (docs/performance.md). Generates, once, a corpus of each shape of log
# that real machines produce, and times, several times each (median reported), gpucost analyze
# on each against `wc -l` over the same files, with its peak RSS (GNU time); then prints, in one
# table, every target of issue 16 with met / NOT met:
#   noise        a 48 h job in a gigabyte of background noise (`gpucost simulate --hours 48
#                --size SIZE`): almost nothing is kept;
#   event-dense  a day in which a few messages repeat about a million times: nvidia-modeset
#                ERROR spam and AppArmor denials in kern.log (>= 400 MB), cron every few seconds
#                in syslog (bench/make-event-dense.py over a simulated day); and the same day
#                with a tenth of the repeats, whose peak RSS it must stay close to;
#   one large file  one journal JSON of about SIZE (the journal of a bigger noise corpus);
#   dense        the laptop job over as many hours as fill SIZE: almost every line is kept;
#   rotated      the noise corpus's kern.log and syslog cut into five rotations each, four of
#                them gzipped (`gzip -n -6`, as logrotate does), set against the same text plain;
# and the article's preprocessing step, awk '/nvidia|gpu|thermal|power/', with GNU awk and mawk
# over the event-dense day's kernel logs (kern.log*, dmesg.txt), against gpucost over those
# files alone; the decompressors (ISA-L, zlib, zstd, xz) over the rotated archives; and whether
# --threads 1 and 2 give identical bytes.
#
# Usage: scripts/bench.sh [SIZE] [REPETITIONS]      e.g. scripts/bench.sh 1G 5
#   SIZE: size of the noise, dense and single-file corpora as `gpucost simulate --size` reads it
#     (default 1G); REPETITIONS default 3.
#   GPUCOST_BENCH_DIR: where corpora go (default ./bench-corpus, git-ignored); kept between runs
#     (a corpus is made again only when the binary's version, its recipe or its size changes).
#   GPUCOST_BENCH_THREADS: --threads for gpucost analyze (default: all cores).
#   GPUCOST_BENCH_REPEATS: repeats of each event-dense message (default 1000000).
#   GPUCOST_BENCH_CORPORA: which corpora to run (default "noise event-dense large-file dense
#     rotated family").
#   family (issue 37): each shape of bench/make-corpus.py (GPUCOST_BENCH_SHAPES, default
#     "desktop server journal flood rotated huge") at each held-out seed (GPUCOST_BENCH_SEEDS,
#     default "101 102"; seeds 1-3 are the tuning seeds, docs/performance.md), SIZE of text each
#     (the rotated shape: GPUCOST_BENCH_FILES one-line files, default 20000), with every target of
#     issue 37 in one row per shape and seed. `scripts/bench.sh 50M 1` with
#     GPUCOST_BENCH_CORPORA=family is the smoke run.
#   GPUCOST_BENCH_BIN: the gpucost binary (default build/gpucost).
# Not part of ctest: timing belongs here, on a machine as quiet as you can get (the load average
# is printed before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1G}
reps=${2:-3}
dir=${GPUCOST_BENCH_DIR:-bench-corpus}
threads=${GPUCOST_BENCH_THREADS:-0}
repeats=${GPUCOST_BENCH_REPEATS:-1000000}
corpora=${GPUCOST_BENCH_CORPORA:-noise event-dense large-file dense rotated family}
shapes=${GPUCOST_BENCH_SHAPES:-desktop server journal flood rotated huge}
seeds=${GPUCOST_BENCH_SEEDS:-101 102}
small_files=${GPUCOST_BENCH_FILES:-20000}

# GNU time gives the peak RSS; gawk and mawk run the article's step; zstd and xz-utils write the
# decompressor benchmark's archives; libbenchmark-dev builds build/bench (the parser and
# decompressor benchmarks), and libhyperscan-dev (where Debian has it: amd64) the prefilter's.
extra=()
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] && extra+=(libhyperscan-dev)
extra+=(libdeflate-dev)  # compared with ISA-L and zlib by build/bench/gpucost_inflate_bench
# GPUCOST_BENCH_NO_SETUP=1: the tools are there already (setup.sh also builds the whole tree).
[ -n "${GPUCOST_BENCH_NO_SETUP:-}" ] || scripts/setup.sh time gawk mawk zstd xz-utils libbenchmark-dev "${extra[@]}" >/dev/null
bin=${GPUCOST_BENCH_BIN:-build/gpucost}
gnutime=/usr/bin/time
[ -x "$gnutime" ] || { echo "bench: $gnutime missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$dir"
version="$($bin --version 2>/dev/null | head -n1)"

# fresh NAME RECIPE: true when $dir/NAME must be (re)made for RECIPE; then it is emptied.
fresh() {
  local d="$dir/$1" stamp="$version | $2"
  if [ -f "$d/.bench-stamp" ] && [ "$(cat "$d/.bench-stamp")" = "$stamp" ]; then return 1; fi
  rm -rf "$d"
  mkdir -p "$d"
  echo "bench: generating $d ..." >&2
  return 0
}
stamp() { echo "$version | $2" >"$dir/$1/.bench-stamp"; }

# simulate NAME ARGS...: a corpus written by gpucost simulate (seed 1: the same bytes every time).
simulate() {
  local name=$1
  shift
  if fresh "$name" "simulate $*"; then
    "$bin" simulate --scenario laptop "$@" --out "$dir/$name" >&2
    rm -f "$dir/$name/truth.json"
    stamp "$name" "simulate $*"
  fi
}

# A tenth of SIZE, for the peak RSS of the same mix with less noise.
tenth=$(awk -v s="$size" 'BEGIN {
  u = toupper(substr(s, length(s))); n = s + 0;
  if (u == "G") { n = n * 1024; u = "M" } else if (u == "M") { n = n * 1024; u = "K" } else if (u == "K") { n = n * 1024; u = "" }
  printf "%d%s", n / 10, u }')
# One and a quarter SIZE: the journal of such a corpus is about SIZE.
large=$(awk -v s="$size" 'BEGIN { u = toupper(substr(s, length(s))); n = s + 0;
  if (u == "G") { n = n * 1024; u = "M" } printf "%d%s", n * 1.25, u }')

want() { case " $corpora " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

noise=laptop-48h-$size
noise_small=laptop-48h-$tenth
want noise || want rotated && simulate "$noise" --hours 48 --size "$size"
want noise && simulate "$noise_small" --hours 48 --size "$tenth"
want dense && simulate "dense-$size" --size "$size"

# The event-dense day: a simulated day flooded by bench/make-event-dense.py.
recipe_sum=$(md5sum bench/make-event-dense.py | cut -c1-12)
event_dense() {  # NAME REPEATS
  simulate day-24h --hours 24
  if fresh "$1" "event-dense $2 $recipe_sum"; then
    python3 bench/make-event-dense.py "$dir/day-24h" "$dir/$1" "$2"
    stamp "$1" "event-dense $2 $recipe_sum"
  fi
}
if want event-dense; then
  event_dense "event-dense-$repeats" "$repeats"
  event_dense "event-dense-$((repeats / 10))" "$((repeats / 10))"
fi

# One large file: the journal of a 48 h corpus of 1.25 SIZE, alone in its directory.
if want large-file && fresh "large-file-$size" "journal of simulate --hours 48 --size $large"; then
  tmp="$dir/large-file-$size.tmp"
  rm -rf "$tmp"
  "$bin" simulate --scenario laptop --hours 48 --size "$large" --out "$tmp" >&2
  mv "$tmp/journal.json" "$dir/large-file-$size/journal.json"
  rm -rf "$tmp"
  stamp "large-file-$size" "journal of simulate --hours 48 --size $large"
fi

# Rotated archives: kern.log and syslog of the noise corpus in five pieces each (at line ends,
# oldest first: NAME.4.gz .. NAME.1.gz, then NAME), the other small files as they are; its twin
# (beside it: gpucost reads subdirectories) holds the same text plain. Side archives in zstd and
# xz time those decompressors.
rot="$dir/rotated-$size"
if want rotated && fresh "rotated-$size" "rotations of $noise"; then
  rm -rf "$rot-plain" "$rot-archives"
  mkdir -p "$rot-plain" "$rot-archives"
  for f in dmesg.txt dmon.log ps.txt nvidia-smi-q.txt; do
    [ -f "$dir/$noise/$f" ] && cp "$dir/$noise/$f" "$rot/" && ln -s "../$(basename "$rot")/$f" "$rot-plain/$f"
  done
  for f in kern.log syslog; do
    cp "$dir/$noise/$f" "$rot-plain/$f"
    lines=$(wc -l <"$dir/$noise/$f")
    split -d -a1 -l $(((lines + 4) / 5)) "$dir/$noise/$f" "$rot/$f.part"
    for i in 0 1 2 3; do mv "$rot/$f.part$i" "$rot/$f.$((4 - i))"; done
    mv "$rot/$f.part4" "$rot/$f"
    printf '%s\n' "$rot/$f".[1-4] | xargs -P2 -n1 gzip -n -6
    gzip -dc "$rot/$f.1.gz" | zstd -q -3 -o "$rot-archives/$f.1.zst"
    gzip -dc "$rot/$f.1.gz" | xz -6 -T1 >"$rot-archives/$f.1.xz"
  done
  stamp "rotated-$size" "rotations of $noise"
fi

files_of() { find "$1" -maxdepth 1 \( -type f -o -type l \) ! -name '.*' | sort; }
bytes_of() { local n=0 f; for f in "$@"; do n=$((n + $(stat -L -c %s "$f"))); done; echo "$n"; }
# Decompressed bytes, as gpucost and awk see them.
text_bytes_of() {
  local n=0 f
  for f in "$@"; do
    case "$f" in *.gz) n=$((n + $(gzip -dc "$f" | wc -c))) ;; *) n=$((n + $(stat -L -c %s "$f"))) ;; esac
  done
  echo "$n"
}

# once CMD...: one run; prints "seconds peak_rss_kib cpu_seconds" (CPU: user + system, which a
# loaded machine inflates less than wall time).
once() {
  # Wall time to the nanosecond around GNU time, whose own %e has only 10 ms resolution.
  local t0 t1 kib user sys
  t0=$(date +%s%N)
  read -r kib user sys < <("$gnutime" -f '%M %U %S' "$@" 2>&1 >/dev/null | tail -n1)
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" -v k="$kib" -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f %d %.2f\n", (b - a) / 1e9, k, u + s }'
}

median_of() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# summary LABEL "TIMES" "CPUS" MAX_RSS_KIB: logs the runs and prints "median_seconds max_rss_kib
# median_cpu_seconds".
summary() {
  local label=$1 times=$2 cpus=$3 rss=$4 median cpu
  # shellcheck disable=SC2086  # the lists are split on purpose
  median=$(median_of $times)
  # shellcheck disable=SC2086
  cpu=$(median_of $cpus)
  echo "bench: $label: $times s (median $median, CPU $cpus s, peak RSS $((rss / 1024)) MiB)" >&2
  echo "$median $rss $cpu"
}

# run LABEL CMD...: REPETITIONS runs; prints what summary prints.
run() {
  local label=$1
  shift
  local times="" cpus="" rss=0 i t kib cpu
  for ((i = 0; i < reps; i++)); do
    read -r t kib cpu < <(once "$@")
    times="${times:+$times }$t"
    cpus="${cpus:+$cpus }$cpu"
    [ "$kib" -gt "$rss" ] && rss=$kib
  done
  summary "$label" "$times" "$cpus" "$rss"
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
article_gawk() { gawk '/nvidia|gpu|thermal|power/ { n++; print }' "$@"; }
article_mawk() { mawk '/nvidia|gpu|thermal|power/ { n++; print }' "$@"; }
count_lines() { wc -l "$@"; }
export -f over_text article_gawk article_mawk count_lines

analyze=("$bin" analyze --threads "$threads" --format json -o /dev/null)

echo "bench: machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB RAM" >&2
echo "bench: gawk $(gawk --version | head -n1 | cut -d, -f1 | awk '{print $3}'), mawk $(mawk -W version 2>&1 | head -n1 | awk '{print $2}')" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: load before: $load_before" >&2
# Read every corpus once, so that all of them start from the page cache.
for c in "$dir"/*/; do cat "$c"* >/dev/null 2>&1 || true; done

rows=()  # "label|MB|seconds|wc seconds|peak KiB|small peak KiB|target GB/s|target x wc|CPU seconds"
bench_corpus() {  # LABEL DIR TARGET_GBPS TARGET_WC [SMALL_DIR]
  local label=$1 d=$2 gbps=$3 xwc=$4 small=${5:-} files=() f mb t rss cpu t_wc srss=0
  while IFS= read -r f; do files+=("$f"); done < <(files_of "$d")
  mb=$(text_bytes_of "${files[@]}")
  read -r t rss cpu < <(run "gpucost analyze ($label)" "${analyze[@]}" "$d")
  read -r t_wc _ < <(run "wc -l ($label)" bash -c 'over_text count_lines "$@"' _ "${files[@]}")
  [ -n "$small" ] && read -r _ srss < <(run "gpucost analyze ($label, small)" "${analyze[@]}" "$small")
  rows+=("$label|$mb|$t|$t_wc|$rss|$srss|$gbps|$xwc|$cpu")
}

want noise && bench_corpus "noise ($size)" "$dir/$noise" 1 3 "$dir/$noise_small"
want event-dense && bench_corpus "event-dense ($repeats repeats)" "$dir/event-dense-$repeats" 1 4 "$dir/event-dense-$((repeats / 10))"
want large-file && bench_corpus "one large file ($size journal)" "$dir/large-file-$size" 1 4
want dense && bench_corpus "dense ($size)" "$dir/dense-$size" 0.8 -
if want rotated; then
  bench_corpus "rotated .gz ($size noise, no journal)" "$dir/rotated-$size" - -
  bench_corpus "  the same text plain" "$rot-plain" - -
fi

# The article's step over the event-dense day's kernel logs, against gpucost over them alone.
awk_rows=()
if want event-dense; then
  ed="$dir/event-dense-$repeats"
  kernel_logs=()
  for f in "$ed"/kern.log* "$ed"/dmesg.txt; do [ -f "$f" ] && kernel_logs+=("$f"); done
  kernel_dir="$dir/kernel-logs-event-dense-$repeats"
  rm -rf "$kernel_dir"
  mkdir -p "$kernel_dir"
  for f in "${kernel_logs[@]}"; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$kernel_dir/"; done
  kmb=$(text_bytes_of "${kernel_logs[@]}")
  # In rounds (gpucost, wc -l, gawk, mawk, then again), not one tool's runs after another's: a
  # slow or a fast stretch of a shared machine then weighs on all four alike, and the ratios
  # compare runs of the same minutes.
  labels=("gpucost analyze (kernel logs)" "wc -l (kernel logs)" "gawk (article)" "mawk (article)")
  times=("" "" "" "") cpus=("" "" "" "") rsss=(0 0 0 0)
  for ((i = 0; i < reps; i++)); do
    for k in 0 1 2 3; do
      case $k in
        0) read -r t kib cpu < <(once "${analyze[@]}" "$kernel_dir") ;;
        1) read -r t kib cpu < <(once bash -c 'over_text count_lines "$@"' _ "${kernel_logs[@]}") ;;
        2) read -r t kib cpu < <(once bash -c 'over_text article_gawk "$@"' _ "${kernel_logs[@]}") ;;
        3) read -r t kib cpu < <(once bash -c 'over_text article_mawk "$@"' _ "${kernel_logs[@]}") ;;
      esac
      times[k]="${times[k]:+${times[k]} }$t"
      cpus[k]="${cpus[k]:+${cpus[k]} }$cpu"
      [ "$kib" -gt "${rsss[k]}" ] && rsss[k]=$kib
    done
  done
  medians=()
  for k in 0 1 2 3; do
    read -r t _ < <(summary "${labels[k]}" "${times[k]}" "${cpus[k]}" "${rsss[k]}")
    medians+=("$t")
  done
  awk_rows=("$kmb" "${medians[@]}")
fi

# The corpus family (issue 37): every shape at every held-out seed, its targets in one row.
family_rows=()  # "label|bytes|s|wc s|peak KiB|kernel bytes|gpucost kernel s|gawk s|mawk s|same|CPU s|lines|event rows|files|idents"
# family_text DIR CMD...: CMD over DIR's text (plain files as arguments, .gz ones through gzip -dc).
family_text() {
  local d=$1
  shift
  find "$d" -type f ! -name '.*' ! -name '*.gz' -print0 | sort -z | xargs -0 -r "$@" >/dev/null
  if find "$d" -type f -name '*.gz' | grep -q .; then
    find "$d" -type f -name '*.gz' -print0 | sort -z | xargs -0 -r gzip -dc | "$@" >/dev/null
  fi
}
export -f family_text
if want family; then
  corpus_sum=$(md5sum bench/make-corpus.py | cut -c1-12)
  for shape in $shapes; do
    for seed in $seeds; do
      name="family-$shape-$seed-$size"
      recipe="make-corpus $shape $seed $size $small_files $corpus_sum"
      if fresh "$name" "$recipe"; then
        python3 bench/make-corpus.py "$shape" "$seed" "$size" "$dir/$name" "$small_files"
        stamp "$name" "$recipe"
      fi
      d="$dir/$name"
      cat "$d"/* >/dev/null 2>&1 || true
      mb=$(find "$d" -type f ! -name '.*' ! -name '*.gz' -print0 | xargs -0 -r cat | wc -c)
      if find "$d" -type f -name '*.gz' | grep -q .; then
        mb=$((mb + $(find "$d" -type f -name '*.gz' -print0 | xargs -0 -r gzip -dc | wc -c)))
      fi
      read -r t rss cpu < <(run "gpucost analyze ($name)" "${analyze[@]}" "$d")
      # shellcheck disable=SC2016  # "$1" is the inner shell's argument, expanded there
      read -r t_wc _ < <(run "wc -l ($name)" bash -c 'family_text "$1" wc -l' _ "$d")
      # The article's step over the shape's kernel logs, where it has any, in rounds.
      kb=0 tk=- tg=- tm=-
      klogs=()
      for f in "$d"/kern.log*; do [ -f "$f" ] && klogs+=("$f"); done
      if ((${#klogs[@]})); then
        kd="$dir/kernel-logs-$name"
        rm -rf "$kd"
        mkdir -p "$kd"
        for f in "${klogs[@]}"; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$kd/"; done
        kb=$(bytes_of "${klogs[@]}")
        ktimes=("" "" "")
        for ((i = 0; i < reps; i++)); do
          read -r x _ < <(once "${analyze[@]}" "$kd")
          ktimes[0]="${ktimes[0]} $x"
          read -r x _ < <(once bash -c 'over_text article_gawk "$@"' _ "${klogs[@]}")
          ktimes[1]="${ktimes[1]} $x"
          read -r x _ < <(once bash -c 'over_text article_mawk "$@"' _ "${klogs[@]}")
          ktimes[2]="${ktimes[2]} $x"
        done
        # shellcheck disable=SC2086  # the lists are split on purpose
        tk=$(median_of ${ktimes[0]}) tg=$(median_of ${ktimes[1]}) tm=$(median_of ${ktimes[2]})
      fi
      same=yes
      "$bin" analyze "$d" --threads 1 --format json --no-timings -o "$dir/family-t1.json" 2>/dev/null || true
      "$bin" analyze "$d" --threads 2 --format json --no-timings -o "$dir/family-t2.json" 2>/dev/null || true
      cmp -s "$dir/family-t1.json" "$dir/family-t2.json" || same=NO
      # What the run worked on, for the table of how cost grows: lines, event rows, files, idents.
      work=$(python3 - "$dir/family-t1.json" "$d/.corpus-params" <<'PY' 2>/dev/null || echo "- - - -"
import json, re, sys
r = json.load(open(sys.argv[1]))
m = re.search(r"idents=(\d+)", open(sys.argv[2]).read())
print(r["diagnostics"]["lines"], r["timeline"]["event_rows"], r["diagnostics"]["files"], m.group(1) if m else "-")
PY
      )
      family_rows+=("$shape seed $seed|$mb|$t|$t_wc|$rss|$kb|$tk|$tg|$tm|$same|$cpu|${work// /|}")
    done
  done
fi

# Identical bytes whatever the thread count (on the event-dense day when it is run).
same=-
check=$dir/$noise
want event-dense && check=$dir/event-dense-$repeats
if [ -d "$check" ]; then
  same=yes
  "$bin" analyze "$check" --threads 1 --format json --no-timings -o "$dir/report-t1.json" 2>/dev/null || true
  "$bin" analyze "$check" --threads 2 --format json --no-timings -o "$dir/report-t2.json" 2>/dev/null || true
  cmp -s "$dir/report-t1.json" "$dir/report-t2.json" || same=NO
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: load after: $load_after" >&2

echo
echo "gpucost benchmark, median of $reps runs, --threads $threads (0: all cores), load $load_before before, $load_after after"
echo
((${#rows[@]})) && printf '%s\n' "${rows[@]}" | awk -F'|' '
  function verdict(ok) { return ok ? "met" : "NOT met" }
  {
    mb = $2 / 1e6; gbps = mb / $3 / 1000; xwc = $3 / $4; rss = $5 / 1024
    printf "%-40s %8.1f MB %7.3f s (CPU %6.2f s) %6.2f GB/s  %5.2fx wc -l  %5.0f MiB", $1, mb, $3, $9, gbps, xwc, rss
    if ($6 > 0) printf " (%.2fx the tenth)", $5 / $6
    printf "\n"
    t = "    targets:"
    if ($7 != "-") t = t sprintf(" >= %s GB/s %s;", $7, verdict(gbps >= $7))
    if ($8 != "-") t = t sprintf(" <= %sx wc -l %s;", $8, verdict(xwc <= $8))
    if ($7 != "-") t = t sprintf(" <= 256 MiB %s", verdict(rss <= 256))
    if ($6 > 0) t = t sprintf("; <= 1.5x the tenth %s", verdict($5 / $6 <= 1.5))
    if ($7 == "-" && $1 ~ /^rotated/) { rot = $3; t = "    (issue 16: as fast as the same text plain, next row)" }
    if ($1 ~ /same text plain/) t = sprintf("    rotated .gz: %.2fx the time of the same text plain", rot / $3)
    print t
  }'
if ((${#awk_rows[@]})); then
  awk -v kb="${awk_rows[0]}" -v tg="${awk_rows[1]}" -v tw="${awk_rows[2]}" -v tga="${awk_rows[3]}" -v tma="${awk_rows[4]}" 'BEGIN {
    mb = kb / 1e6
    printf "\nthe article'"'"'s step, awk /nvidia|gpu|thermal|power/, over the event-dense day'"'"'s kernel logs (%.1f MB):\n", mb
    printf "  gpucost analyze (kernel logs alone) %7.3f s %6.2f GB/s\n", tg, mb / tg / 1000
    printf "  wc -l                               %7.3f s %6.2f GB/s\n", tw, mb / tw / 1000
    printf "  gawk                                %7.3f s %6.2f GB/s   gpucost at %.2fx its speed (target >= 5x: %s)\n", tga, mb / tga / 1000, tga / tg, tga / tg >= 5 ? "met" : "NOT met"
    printf "  mawk                                %7.3f s %6.2f GB/s   gpucost at %.2fx its speed (target >= 2x: %s)\n", tma, mb / tma / 1000, tma / tg, tma / tg >= 2 ? "met" : "NOT met"
  }'
fi
echo
echo "--threads 1 vs 2 on $(basename "$check"): $([ "$same" = yes ] && echo "identical JSON" || echo "$same")"

if ((${#family_rows[@]})); then
  echo
  # Seeds 1-3 are the tuning seeds (docs/performance.md); any other seed is held out.
  kind="held-out seeds"
  for s in $seeds; do case $s in 1 | 2 | 3) kind="seeds (1-3 are tuning seeds, not held out)" ;; esac; done
  echo "the corpus family (bench/make-corpus.py), $kind $seeds, $size each; targets: >= 1 GB/s, <= 4x wc -l,"
  echo "<= 256 MiB peak RSS, >= 5x gawk and >= 2x mawk over the kernel logs (the article's step), --threads 1 = 2:"
  printf '%s\n' "${family_rows[@]}" | awk -F'|' -v files="$small_files" '
    function v(ok) { return ok ? "met" : "NOT met" }
    {
      mb = $2 / 1e6; gbps = mb / $3 / 1000; xwc = $3 / $4; rss = $5 / 1024
      printf "%-22s %8.1f MB %7.3f s (CPU %6.2f s) %6.2f GB/s %5.2fx wc -l %5.0f MiB", $1, mb, $3, $11, gbps, xwc, rss
      if ($7 != "-") printf "  kernel logs %.1f MB: %.2fx gawk %.2fx mawk", $6 / 1e6, $8 / $7, $9 / $7
      # One-line files: a few MB in all, so a rate in GB/s says nothing; their cost is per file.
      if ($1 ~ /^rotated/) printf "\n    targets: GB/s n/a (%.0f files/s); <= 4x wc -l %s; <= 256 MiB %s;", files / $3, v(xwc <= 4), v(rss <= 256)
      else printf "\n    targets: >= 1 GB/s %s; <= 4x wc -l %s; <= 256 MiB %s;", v(gbps >= 1), v(xwc <= 4), v(rss <= 256)
      if ($7 != "-") printf " >= 5x gawk %s; >= 2x mawk %s;", v($8 / $7 >= 5), v($9 / $7 >= 2)
      else printf " (no kernel logs: no awk step);"
      printf " threads 1 = 2 %s\n", $10 == "yes" ? "met" : "NOT met"
    }'
  echo
  echo "how the cost grows (the same runs): what each run worked on, and its time and peak RSS per unit"
  printf '%s\n' "${family_rows[@]}" | awk -F'|' '
    BEGIN { printf "%-22s %10s %8s %11s %7s %7s %8s %9s %9s\n", "shape", "lines", "idents", "event rows", "files", "MB", "ns/line", "CPU ns/l", "peak MiB" }
    { printf "%-22s %10s %8s %11s %7s %7.1f %8.1f %9.1f %9.0f\n", $1, $12, $15, $13, $14, $2 / 1e6,
             ($12 > 0 ? $3 * 1e9 / $12 : 0), ($12 > 0 ? $11 * 1e9 / $12 : 0), $5 / 1024 }'
fi

if want rotated && [ -x build/bench/gpucost_inflate_bench ]; then
  echo
  echo "decompressors over the rotated archives (one core, decompressed bytes per second):"
  build/bench/gpucost_inflate_bench -r "$reps" "$rot"/*.gz "$rot-archives"/*
fi
if want event-dense && [ -x build/bench/gpucost_read_bench ]; then
  echo
  echo "reading the event-dense day's kern.log and finding its line ends, the floor under the parsers:"
  build/bench/gpucost_read_bench -r "$reps" "$ed/kern.log"
fi
if want event-dense && [ -x build/bench/gpucost_prefilter_bench ]; then
  echo
  echo "the recognizer's key prefilter against Hyperscan, on the kernel messages of the event-dense day and the noise corpus:"
  build/bench/gpucost_prefilter_bench -r "$reps" "$ed/kern.log" "$dir/$noise/kern.log" || echo "(the prefilters disagree)"
fi
if command -v jq >/dev/null && [ -d "${ed:-}" ]; then
  "$bin" analyze "$ed" --threads "$threads" --format json -o "$dir/report.json" 2>/dev/null || true
  echo
  echo "stage timings of one more run on the event-dense day (JSON report, .timings):"
  jq -r '.timings[] | [.stage, (.seconds * 1000 | floor | tostring) + " ms",
          (if .mb_per_s > 0 then (.mb_per_s | floor | tostring) + " MB/s" else "" end),
          (if .peak_rss_bytes then (.peak_rss_bytes / 1048576 | floor | tostring) + " MiB peak" else "" end)] | @tsv' \
    "$dir/report.json" | column -t -s $'\t'
fi
