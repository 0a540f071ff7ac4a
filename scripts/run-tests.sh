#!/usr/bin/env bash
# README command 2: set up (install, build) and run every test through ctest.
# The tools the tests run (Chromium, promtool, Slurm, ...: scripts/setup.sh's test_packages) are
# installed here, before ctest: no test installs anything. With CI=true (.ci/run) the build
# treats warnings as errors (-DGPUCOST_WERROR=ON) and a skipped test fails the run
# (scripts/ctest.sh).
# Then, unless GPUCOST_EXTRA_CHECKS=0 (quick local runs; on by default, as in CI), the same tests
# once more built with AddressSanitizer + UndefinedBehaviorSanitizer (clang-14, in build-asan),
# which also replays every fuzz corpus, and a smoke run of every fuzz target: a fixed seed and
# number of runs (about 10 s each here), so that every machine explores nearly the same inputs and CI
# fails on a change, not on luck (GPUCOST_FUZZ_SECONDS caps each, default 60). See
# docs/robustness.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# Set either way, since the build tree's cache would keep an ON of an earlier CI run; an
# explicit -DGPUCOST_WERROR in GPUCOST_CMAKE_ARGS comes after, and wins.
werror=OFF
if [ "${CI:-}" = true ]; then werror=ON; fi
GPUCOST_CMAKE_ARGS="-DGPUCOST_WERROR=$werror ${GPUCOST_CMAKE_ARGS:-}" GPUCOST_SETUP_TEST_TOOLS=1 scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
scripts/ctest.sh build --output-on-failure -j "$jobs" -LE integration "$@"

# The Debian package, installed as an administrator would (apt-get install ./gpucost_*.deb), and
# the integration tests (a real one-node Slurm cluster, node_exporter and Prometheus; label
# `integration`, docs/fleet.md) run against the installed /usr/bin/gpucost. Without root or apt
# they run against build/gpucost.
it_binary=$PWD/build/gpucost
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && command -v cpack >/dev/null 2>&1; then
  rm -f build/gpucost_*.deb
  if (cd build && cpack -G DEB >cpack.log 2>&1) &&
     DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall --no-install-recommends ./build/gpucost_*.deb >/dev/null; then
    it_binary=/usr/bin/gpucost
    echo "run-tests: installed $(ls build/gpucost_*.deb); integration tests use $it_binary" >&2
  else
    echo "run-tests: could not build or install the .deb (build/cpack.log); integration tests use $it_binary" >&2
    exit 1
  fi
fi
GPUCOST_IT_BINARY=$it_binary scripts/ctest.sh build --output-on-failure -L integration "$@"

if [ "${GPUCOST_EXTRA_CHECKS:-1}" = 0 ]; then
  echo "run-tests: sanitizer build and fuzz smoke run skipped (GPUCOST_EXTRA_CHECKS=0)" >&2
  exit 0
fi
scripts/sanitize-tests.sh
GPUCOST_FUZZ_BUILD_DIR=build-asan GPUCOST_FUZZ_JOBS=${GPUCOST_FUZZ_JOBS:-$jobs} GPUCOST_FUZZ_SMOKE=${GPUCOST_FUZZ_SMOKE:-1} \
  scripts/fuzz.sh "${GPUCOST_FUZZ_SECONDS:-60}"
