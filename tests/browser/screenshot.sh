#!/usr/bin/env bash
# Loads the HTML report in headless Chromium (Debian's `chromium`; scripts/run-tests.sh installs
# it), saves a screenshot, and fails when the page shows a script error, a blocked load or any
# console message, or when the DOM Chromium builds lacks a section of the file.
#
# Usage: tests/browser/screenshot.sh [LOG_DIR] [OUT.png]
#   LOG_DIR  default $GPUCOST_REPORT_EXAMPLE, else tests/data/report/logs
#   OUT.png  default a temporary file (printed at the end)
# Environment: GPUCOST_BINARY (default build/gpucost), GPUCOST_SCREENSHOT_SIZE (default 1280,2000),
#   GPUCOST_REPORT_ARGS (extra `gpucost analyze` options, e.g. "--local rtx-4060-laptop").
# Exit: 0 ok, 1 failure, 77 skipped (chromium missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
logs=${1:-${GPUCOST_REPORT_EXAMPLE:-$root/tests/data/report/logs}}
bin=${GPUCOST_BINARY:-$root/build/gpucost}
size=${GPUCOST_SCREENSHOT_SIZE:-1280,2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${2:-}" ]; then out=$2; else out=$(mktemp --suffix=.png); fi

fail() { echo "FAIL: $*" >&2; exit 1; }

"$here/../tools/need-command.sh" chromium chromium || exit $?
[ -x "$bin" ] || fail "no gpucost binary at $bin (build first, or set GPUCOST_BINARY)"

html=$work/report.html
# shellcheck disable=SC2086
"$bin" analyze "$logs" --max-error-rate 0.5 --no-timings ${GPUCOST_REPORT_ARGS:-} --format html -o "$html" 2>"$work/analyze.err" ||
  { cat "$work/analyze.err" >&2; fail "gpucost analyze failed"; }

# The page needs no script at all, and must name nothing outside itself.
grep -qi '<script' "$html" && fail "the page contains a <script>"
grep -Eqi '(src|href)="[a-z]+:' "$html" && fail "the page refers to something outside itself"
if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$html" || fail "the page is not well-formed XML"; fi

chrome() {
  # --enable-logging=stderr --v=0 prints console messages (script errors, CSP refusals) as
  # "INFO:CONSOLE" lines; the flags keep Chromium from calling home.
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --user-data-dir="$(mktemp -d -p "$work")" --enable-logging=stderr --v=0 "$@"
}
page_errors() { grep -E 'CONSOLE|Uncaught|Refused to' "$1" || true; }

# Self-test: the check must see a script error and a blocked external load.
cat >"$work/bad.html" <<'BAD'
<!DOCTYPE html><html><head><meta charset="utf-8"/></head><body><p>x</p><script>no_such_function();</script></body></html>
BAD
chrome --dump-dom "file://$work/bad.html" >/dev/null 2>"$work/bad.err" || true
[ -n "$(page_errors "$work/bad.err")" ] || fail "self-test: a page with a script error went unnoticed"

chrome --screenshot="$out" --window-size="$size" --hide-scrollbars "file://$html" >/dev/null 2>"$work/shot.err" ||
  { cat "$work/shot.err" >&2; fail "chromium could not take the screenshot"; }
errors=$(page_errors "$work/shot.err")
[ -z "$errors" ] || fail "the page logged: $errors"
[ -s "$out" ] || fail "no screenshot written"
[ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$out is not a PNG"
[ "$(stat -c %s "$out")" -gt 20000 ] || fail "$out is suspiciously small (blank page?)"

# The DOM Chromium built has every section of the file, and the footer (the page's last element).
chrome --dump-dom "file://$html" >"$work/dom.html" 2>"$work/dom.err" || fail "chromium could not load the page"
errors=$(page_errors "$work/dom.err")
[ -z "$errors" ] || fail "the page logged: $errors"
for id in answer findings cost break-even sensitivity timeline features diagnostics; do
  grep -q "<section id=\"$id\">" "$work/dom.html" || fail "section $id missing from the DOM"
done
file_sections=$(grep -o '<section ' "$html" | wc -l)
dom_sections=$(grep -o '<section ' "$work/dom.html" | wc -l)
[ "$file_sections" = "$dom_sections" ] || fail "$file_sections sections in the file, $dom_sections in the DOM"
file_svgs=$(grep -o '<svg ' "$html" | wc -l)
dom_svgs=$(grep -o '<svg ' "$work/dom.html" | wc -l)
[ "$file_svgs" = "$dom_svgs" ] || fail "$file_svgs charts in the file, $dom_svgs in the DOM"
grep -q '<footer>' "$work/dom.html" || fail "the DOM has no footer: the page was cut short"

echo "ok: $out ($(stat -c %s "$out") bytes; $file_sections sections, $file_svgs charts, no console message)"
