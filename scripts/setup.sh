#!/usr/bin/env bash
# Installs what is missing (Debian 12, as root or with sudo) and builds gpucost (Release) in build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Usage: scripts/setup.sh [extra packages...]
# GPUCOST_SETUP_BUILD=0 installs packages only (scripts/fuzz.sh builds its own tree).
# GPUCOST_SETUP_TARGET=gpucost builds only the binary (scripts/run-example.sh: the first report
# does not wait for the tests to compile); the default builds everything (tests, man page, bench).
# GPUCOST_SETUP_TEST_TOOLS=1 also installs the tools the tests run (scripts/run-tests.sh): the
# tests never install anything themselves, and report themselves skipped (77) without them.
set -euo pipefail
cd "$(dirname "$0")/.."

# locales: glibc's locale sources, only for scripts/gen-month-names.py and the test that checks the
# month table generated from them (tests/unit/month_names_test.cpp); the build does not need them.
packages=(build-essential cmake pkg-config libcli11-dev libfmt-dev libspdlog-dev libsimdjson-dev
          libgtest-dev zlib1g-dev libzstd-dev liblzma-dev libhowardhinnant-date-dev tzdata jq python3 locales
          help2man "$@")
# ISA-L inflates .gz logs three times as fast as zlib; Debian builds it for amd64 and arm64
# among others (elsewhere the build falls back to zlib).
case "$(dpkg --print-architecture 2>/dev/null)" in amd64 | arm64) packages+=(libisal-dev) ;; esac
# The tools the tests run, each test's own check of them in tests/tools/need-command.sh:
# chromium and libxml2-utils (report_browser_screenshot), prometheus (promtool: report_promtool,
# PromReport.*; prometheus and promtool: integration_prometheus), prometheus-node-exporter and
# curl (integration_prometheus), shellcheck (shellcheck), munge and slurm-wlm (integration_slurm).
test_packages=(chromium libxml2-utils prometheus prometheus-node-exporter curl shellcheck munge slurm-wlm)

# install_missing PACKAGE...: apt-get install those not installed yet; fails when apt does.
install_missing() {
  local p missing=()
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}" >&2
  local SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || $SUDO apt-get update
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
install_missing "${packages[@]}"
if [ "${GPUCOST_SETUP_TEST_TOOLS:-0}" = 1 ] && ! install_missing "${test_packages[@]}"; then
  # CI must run every test; a developer's machine without the archive runs the rest.
  if [ "${CI:-}" = true ]; then echo "setup: could not install the tests' tools" >&2; exit 1; fi
  echo "setup: could not install the tests' tools; the tests that need them will be skipped" >&2
fi

if [ "${GPUCOST_SETUP_BUILD:-1}" = 0 ]; then exit 0; fi

jobs=$(nproc 2>/dev/null || echo 2)
build_dir=${GPUCOST_BUILD_DIR:-build}
# shellcheck disable=SC2086  # GPUCOST_CMAKE_ARGS holds several arguments
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${GPUCOST_CMAKE_ARGS:-} >/dev/null
target=${GPUCOST_SETUP_TARGET:-all}
echo "setup: building $target in $build_dir (log: $build_dir/build.log)" >&2
if ! cmake --build "$build_dir" -j "$jobs" --target "$target" >"$build_dir/build.log" 2>&1; then
  grep -E 'error|Error' -A3 "$build_dir/build.log" | head -n 60 >&2
  echo "setup: build failed; see $build_dir/build.log" >&2
  exit 1
fi
test -x "$build_dir/gpucost"
