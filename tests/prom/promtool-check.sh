#!/usr/bin/env bash
# Runs `promtool check metrics` (Debian's `prometheus` package; scripts/run-tests.sh installs it) on
# the textfile that `gpucost analyze --format prom` writes. Without promtool the unit tests
# PromFormatValidator.* and PromReport.* still check the exposition format.
#
# Usage: tests/prom/promtool-check.sh [LOG_DIR]   (default $GPUCOST_REPORT_EXAMPLE, else
#   tests/data/report/logs); GPUCOST_BINARY defaults to build/gpucost.
# Exit: 0 ok, 1 failure, 77 skipped (promtool missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
logs=${1:-${GPUCOST_REPORT_EXAMPLE:-$root/tests/data/report/logs}}
bin=${GPUCOST_BINARY:-$root/build/gpucost}
"$here/../tools/need-command.sh" prometheus promtool || exit $?
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" analyze "$logs" --max-error-rate 0.5 --format prom -o "$work/gpucost.prom" 2>"$work/err" ||
  { cat "$work/err" >&2; echo "FAIL: gpucost analyze failed" >&2; exit 1; }
# promtool prints lint findings (naming conventions) and exits non-zero on any of them.
if ! findings=$(promtool check metrics <"$work/gpucost.prom" 2>&1) || [ -n "$findings" ]; then
  echo "FAIL: promtool check metrics:" >&2
  echo "$findings" >&2
  exit 1
fi
echo "ok: promtool accepts $(grep -vc '^#' "$work/gpucost.prom") samples"
