#!/usr/bin/env bash
# Runs ctest in a build tree and, with CI=true, fails when a test was skipped: a test skips itself
# (exit 77, or GoogleTest's GTEST_SKIP) when a tool it needs is missing, which on a developer's
# machine is fine and in CI means a check did not run. scripts/run-tests.sh and
# scripts/sanitize-tests.sh run their tests through it.
# Usage: scripts/ctest.sh BUILD_DIR [ctest arguments...]
# Environment: CI (true: skipped tests fail), GPUCOST_CI_ALLOWED_SKIPS (an extended regular
#   expression of test names that may skip in CI; default: the tests below).
set -euo pipefail
build=$1
shift
# Tests that skip for what the machine is, not for a missing tool: a container that cannot drop
# root, a file system that cannot hold the year 2300, a signal that came after the run ended,
# an address-space limit under AddressSanitizer.
allowed_default='^(RobustHostile\.ThreadsRefusedByAProcessLimitMeanFewerThreadsNotAnAbort'
allowed_default+='|RobustHostile\.OutOfMemoryInAReaderThreadSkipsTheFileNotTheRun'
allowed_default+='|RobustHostile\.ASignalDuringTheWriteRemovesTheTemporaryFile'
allowed_default+='|RobustRegress\.ModificationTimesOutsideTheStampYearsAreNoTime'
allowed_default+='|RobustFiles\.UnreadableFilesAndDirectoriesAreReportedAndTheRestIsRead)$'
allowed=${GPUCOST_CI_ALLOWED_SKIPS:-$allowed_default}

junit=$(mktemp "${TMPDIR:-/tmp}/gpucost-ctest.XXXXXX.xml")
trap 'rm -f "$junit"' EXIT
rc=0
(cd "$build" && ctest --output-junit "$junit" "$@") || rc=$?
[ "${CI:-}" = true ] || exit "$rc"

# ctest's JUnit file marks a skipped test status="notrun" with a <skipped> element; its output
# holds the reason (need-command.sh's "SKIP: ..." line, GoogleTest's "Skipped" message).
skipped=$(python3 - "$junit" <<'PY'
import sys
import xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.get("status") == "notrun" and case.find("skipped") is not None:
        lines = (case.findtext("system-out") or "").splitlines()
        # need-command.sh prints "SKIP: ..."; GoogleTest prints "FILE:LINE: Skipped", then the reason.
        why = [l for l in lines if l.startswith("SKIP")]
        why += [n for l, n in zip(lines, lines[1:]) if l.endswith(": Skipped")]
        print(case.get("name") + "\t" + (why[0].strip() if why else "(no reason printed)"))
PY
)
unexpected=$(printf '%s\n' "$skipped" | allowed=$allowed awk -F '\t' 'NF && $1 !~ ENVIRON["allowed"]')
if [ -n "$unexpected" ]; then
  echo "ctest: CI=true and these tests were skipped (install what they need: scripts/setup.sh's test_packages):" >&2
  printf '%s\n' "$unexpected" | sed 's/^/  /' >&2
  exit 1
fi
exit "$rc"
