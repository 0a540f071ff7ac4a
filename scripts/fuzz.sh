#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, AddressSanitizer + UndefinedBehaviorSanitizer; installs
# clang-14 and libclang-rt-14-dev when missing) and runs each target for a while.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  default 60; CI's smoke run uses 10 (scripts/run-tests.sh)
#   TARGET              default all: one per log format (the rows of GPUCOST_FORMATS in
#                       include/gpucost/records/formats.hpp, e.g. dmon, syslog, query_gpu_csv)
#                       and detect time align pipeline journal_plain key_prefilter syslog_prefix;
#                       fuzz/CMakeLists.txt makes the list, `scripts/fuzz.sh --list` prints it
# Environment:
#   GPUCOST_FUZZ_BUILD_DIR  build tree (default build-asan, shared with the sanitizer test build)
#   GPUCOST_FUZZ_JOBS       targets run at the same time (default 1)
#   GPUCOST_FUZZ_MAX_LEN    -max_len in bytes (default 8192)
#   GPUCOST_FUZZ_SMOKE=1    CI's smoke run: nearly the same inputs on every machine. A fixed
#                           -seed, a fixed number of runs per target (what takes about 10 s on a
#                           2-core machine; SECONDS_PER_TARGET is then only a cap), and an empty
#                           working corpus, so that it explores what was explored before it landed.
# Seeds come from fuzz/corpus/<target> (read only); new inputs go to <build>/fuzz-corpus/<target>
# (<build>/fuzz-smoke/<target>, emptied first, in smoke runs), logs to <build>/fuzz-logs,
# reproducers to <build>/fuzz-findings/<target>/.
# Exit status: 0 when every target ran its time without a finding; 1 after a crash, leak,
# sanitizer report, broken invariant or timeout, with the reproducer's path printed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
build=${GPUCOST_FUZZ_BUILD_DIR:-build-asan}
jobs=${GPUCOST_FUZZ_JOBS:-1}
max_len=${GPUCOST_FUZZ_MAX_LEN:-8192}
smoke=${GPUCOST_FUZZ_SMOKE:-0}

# Runs of each target in a smoke run (about 10 s each on the development machine).
smoke_runs() {
  case $1 in
    time|key_prefilter) echo 300000 ;;
    journal_plain) echo 100000 ;;
    pipeline) echo 500 ;;
    detect) echo 3000 ;;
    *) echo 7000 ;;
  esac
}

GPUCOST_SETUP_BUILD=0 scripts/setup.sh clang-14 libclang-rt-14-dev
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DGPUCOST_SANITIZE=ON -DGPUCOST_FUZZ=ON >/dev/null
else
  cmake -S . -B "$build" -DGPUCOST_SANITIZE=ON -DGPUCOST_FUZZ=ON >/dev/null
fi

# The targets are the ones fuzz/CMakeLists.txt configured (one per format row, then the rest):
# one home.
mapfile -t all_targets <"$build/fuzz/targets.txt"
((${#all_targets[@]})) || { echo "fuzz: no targets in $build/fuzz/targets.txt" >&2; exit 2; }
if [ "$seconds" = --list ]; then
  printf '%s\n' "${all_targets[@]}"
  exit 0
fi
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (one of: ${all_targets[*]})" >&2; exit 2; }
done
mkdir -p "$build/fuzz-logs"
echo "fuzz: building ${#targets[@]} targets in $build (log: $build/fuzz-logs/build.log)" >&2
if ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/#/fuzz_}" \
     >"$build/fuzz-logs/build.log" 2>&1; then
  grep -E 'error' -A3 "$build/fuzz-logs/build.log" | head -n 40 >&2
  echo "fuzz: build failed; see $build/fuzz-logs/build.log" >&2
  exit 1
fi

dict_of() {
  case $1 in
    dmesg|syslog|syslog_prefix|journal_short|detect|pipeline|time) echo fuzz/dict/kernel.dict ;;
    journal_json|journal_export|journal_plain) echo fuzz/dict/journal.dict ;;
    key_prefilter) echo fuzz/dict/kernel.dict ;;
    dmon|pmon|query_gpu_csv|dcgmi_dmon|nvidia_smi_q|nvidia_smi_q_xml|nvidia_smi_list|nvidia_smi_table) echo fuzz/dict/nvidia.dict ;;
  esac
}

run_one() {
  local t=$1 work="$build/fuzz-corpus/$1" found="$build/fuzz-findings/$1" log="$build/fuzz-logs/$1.log"
  local mode=()
  if [ "$smoke" = 1 ]; then
    work="$build/fuzz-smoke/$1"
    rm -rf "$work"
    mode=(-seed=1 "-runs=$(smoke_runs "$t")")
  fi
  mkdir -p "$work" "$found"
  local dict=() d
  d=$(dict_of "$t")
  [ -n "$d" ] && dict=("-dict=$d")
  # -timeout: one input may take at most 10 s (a hang); -rss_limit_mb: no input may eat the machine.
  # UBSan findings abort (-fno-sanitize-recover); leaks are reported at exit of each input's run.
  if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
     "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$found/" "${mode[@]}" "${dict[@]}" "$work" "fuzz/corpus/$t" >"$log" 2>&1; then
    local execs
    execs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    local how="${seconds} s"
    [ "$smoke" = 1 ] && how="smoke, seed 1, at most ${seconds} s"
    echo "fuzz: $t: ok ($how, $execs runs, corpus $(find "$work" -type f | wc -l) new + $(find "fuzz/corpus/$t" -type f | wc -l) seeds)"
    return 0
  fi
  echo "fuzz: $t: FAILED; log $log" >&2
  grep -E 'ERROR|runtime error|invariant broken|SUMMARY|Test unit written' "$log" | head -n 8 >&2
  for f in "$found"/*; do
    [ -e "$f" ] && echo "fuzz: $t: reproducer $f (replay: $build/fuzz/fuzz_$t $f)" >&2
  done
  return 1
}

failed=0
pids=()
for t in "${targets[@]}"; do
  if ((jobs > 1)); then
    run_one "$t" &
    pids+=($!)
    if ((${#pids[@]} >= jobs)); then
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}")
    fi
  else
    run_one "$t" || failed=1
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
if ((failed)); then
  echo "fuzz: findings above; add each reproducer to fuzz/corpus/<target>/regress-<what> and a test" >&2
  exit 1
fi
if [ "$smoke" = 1 ]; then
  echo "fuzz: all ${#targets[@]} targets ran their smoke runs without a finding"
else
  echo "fuzz: all ${#targets[@]} targets ran ${seconds} s each without a finding"
fi
