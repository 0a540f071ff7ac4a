#!/usr/bin/env bash
# README command 2: set up (install, build) and run every test through ctest.
# Then, unless GPUCOST_EXTRA_CHECKS=0 (quick local runs; on by default, as in CI), the same tests
# once more built with AddressSanitizer + UndefinedBehaviorSanitizer (clang-14, in build-asan),
# which also replays every fuzz corpus, and a smoke run of every fuzz target: a fixed seed and
# number of runs (about 10 s each here), so that every machine explores nearly the same inputs and CI
# fails on a change, not on luck (GPUCOST_FUZZ_SECONDS caps each, default 60). See
# docs/robustness.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
(cd build && ctest --output-on-failure -j "$jobs" "$@")

if [ "${GPUCOST_EXTRA_CHECKS:-1}" = 0 ]; then
  echo "run-tests: sanitizer build and fuzz smoke run skipped (GPUCOST_EXTRA_CHECKS=0)" >&2
  exit 0
fi
scripts/sanitize-tests.sh
GPUCOST_FUZZ_BUILD_DIR=build-asan GPUCOST_FUZZ_JOBS=${GPUCOST_FUZZ_JOBS:-$jobs} GPUCOST_FUZZ_SMOKE=${GPUCOST_FUZZ_SMOKE:-1} \
  scripts/fuzz.sh "${GPUCOST_FUZZ_SECONDS:-60}"
