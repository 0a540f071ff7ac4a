#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (clang-14, RelWithDebInfo
# at -O1, in build-asan; the fuzz targets are part of this tree) and runs every test through
# ctest: the unit tests, the binary's end-to-end tests (the binary is sanitized too) and a
# replay of every fuzz corpus. Any sanitizer report fails its test.
# Usage: scripts/sanitize-tests.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
GPUCOST_SETUP_BUILD=0 GPUCOST_SETUP_TEST_TOOLS=1 scripts/setup.sh clang-14 libclang-rt-14-dev
build="build-asan"
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DGPUCOST_SANITIZE=ON -DGPUCOST_FUZZ=ON >/dev/null
fi
echo "sanitize: building in $build (log: $build/build.log)" >&2
if ! cmake --build "$build" -j "$jobs" >"$build/build.log" 2>&1; then
  grep -E 'error' -A3 "$build/build.log" | head -n 60 >&2
  echo "sanitize: build failed; see $build/build.log" >&2
  exit 1
fi
# halt_on_error/abort: the first report fails the test. detect_leaks: LeakSanitizer at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The report checks with Chromium and promtool test the output format, not memory safety: they
# run once, in the normal build; so do the integration tests (real Slurm and Prometheus, label
# `integration`), which scripts/run-tests.sh runs against the installed package.
exclude='^report_browser_screenshot$|^report_promtool$'
scripts/ctest.sh "$build" --output-on-failure -j "$jobs" -E "$exclude" -LE integration "$@"
