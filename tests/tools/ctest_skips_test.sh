#!/usr/bin/env bash
# scripts/ctest.sh on a throwaway CMake project (a passing test, one that skips with 77 as
# need-command.sh does, one that skips through GoogleTest's "[  SKIPPED ]" output): without CI
# the skips pass; with CI=true they fail the run and are named with their reason, unless
# GPUCOST_CI_ALLOWED_SKIPS allows them; a failing test fails either way.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpucost-ctest-skips.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

project() {  # project DIR [with_failure]
  mkdir -p "$1"
  cat >"$1/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(skips NONE)
enable_testing()
add_test(NAME passes COMMAND true)
add_test(NAME tool_missing COMMAND sh -c "echo 'SKIP: frob is missing' >&2; exit 77")
set_tests_properties(tool_missing PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME gtest_skip COMMAND sh -c "echo 'x.cpp:1: Skipped'; echo 'no frob here'; echo '[  SKIPPED ] A.B'")
set_tests_properties(gtest_skip PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
CMAKE
  if [ "${2:-}" = with_failure ]; then echo 'add_test(NAME fails COMMAND false)' >>"$1/CMakeLists.txt"; fi
  cmake -S "$1" -B "$1/build" >/dev/null || { echo "cannot configure $1" >&2; exit 1; }
}
project "$work/skips"
project "$work/failing" with_failure

if env -u CI "$root/scripts/ctest.sh" "$work/skips/build" >"$work/out" 2>&1; then ok "skips pass without CI"
else fail "skips failed without CI: $(cat "$work/out")"; fi

if CI=true "$root/scripts/ctest.sh" "$work/skips/build" >"$work/out" 2>&1; then fail "skips passed with CI=true"
else ok "skips fail with CI=true"; fi
if grep -q 'tool_missing.*SKIP: frob is missing' "$work/out"; then ok "the exit-77 skip is named with its reason"
else fail "no 'tool_missing' with its reason in: $(cat "$work/out")"; fi
if grep -q 'gtest_skip.*no frob here' "$work/out"; then ok "the GoogleTest skip is named with its reason"
else fail "no 'gtest_skip' with its reason in: $(cat "$work/out")"; fi

if CI=true GPUCOST_CI_ALLOWED_SKIPS='^(tool_missing|gtest_skip)$' "$root/scripts/ctest.sh" "$work/skips/build" \
  >"$work/out" 2>&1; then ok "allowed skips pass with CI=true"
else fail "allowed skips failed with CI=true: $(cat "$work/out")"; fi

for ci in "" true; do
  if CI=$ci GPUCOST_CI_ALLOWED_SKIPS='.' "$root/scripts/ctest.sh" "$work/failing/build" >"$work/out" 2>&1; then
    fail "a failing test passed (CI='$ci')"
  else ok "a failing test fails (CI='$ci')"; fi
done

((failures == 0)) || { echo "$failures failure(s)" >&2; exit 1; }
