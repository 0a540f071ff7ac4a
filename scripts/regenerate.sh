#!/usr/bin/env bash
# Regenerates every generated file that is committed, in the order they depend on each other:
#   1. src/month_names_table.cpp    scripts/gen-month-names.py over glibc's locale sources
#   2. (builds gpucost and gpucost_tests: the rest is made by them)
#   3. examples/laptop-training     gpucost simulate, as examples/README.md says
#   4. docs/features.md, docs/findings.md, docs/events.md and any other doc a doc test writes
#                                   (`gpucost features|findings --format md`, then the tests
#                                   named *Doc* with GPUCOST_REGENERATE_DOCS=1)
#   5. tests/golden/*/expected.out  the golden cases with GPUCOST_UPDATE_GOLDEN=1
#   6. docs/img/report.png          only with --screenshot (headless Chromium: its bytes differ
#                                   from run to run, so it is not made by default)
# then checks that the doc tests and the golden cases pass, and lists what changed. Read every
# diff before committing it (tests/golden/README.md); goldens go in a commit of their own.
# Usage: scripts/regenerate.sh [--screenshot]
# Environment: GPUCOST_BUILD_DIR (default build; configured as Release when it does not exist).
set -euo pipefail
cd "$(dirname "$0")/.."
screenshot=0
for a in "$@"; do
  case $a in
    --screenshot) screenshot=1 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "regenerate: unknown argument '$a' (usage: scripts/regenerate.sh [--screenshot])" >&2; exit 2 ;;
  esac
done
build=${GPUCOST_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
bin=$build/gpucost
tests=$build/tests/gpucost_tests
step() { echo "regenerate: $*" >&2; }

# 1. Before the build: the binary compiles the table in.
locales=/usr/share/i18n/locales
if [ -e "$locales/ja_JP" ] && command -v python3 >/dev/null 2>&1; then
  step "src/month_names_table.cpp from $locales"
  python3 scripts/gen-month-names.py "$locales" >src/month_names_table.cpp.tmp
  # Replaced only when it changed: a new mtime alone would rebuild and relink.
  if cmp -s src/month_names_table.cpp.tmp src/month_names_table.cpp; then rm src/month_names_table.cpp.tmp
  else mv src/month_names_table.cpp.tmp src/month_names_table.cpp; fi
else
  step "src/month_names_table.cpp left as it is: no $locales/ja_JP or no python3 (Debian: locales, python3)"
fi

# 2.
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
step "building gpucost and gpucost_tests in $build"
cmake --build "$build" -j "$jobs" --target gpucost gpucost_tests >"$build/regenerate-build.log" 2>&1 ||
  { tail -n 40 "$build/regenerate-build.log" >&2; step "build failed ($build/regenerate-build.log)"; exit 1; }

# 3. Before the docs and goldens, which read it.
step "examples/laptop-training"
"$bin" simulate --scenario laptop --seed 42 --hours 2.5 --out examples/laptop-training --force >/dev/null

# 4.
step "docs/features.md, docs/findings.md, and the docs the doc tests write"
"$bin" features --format md -o docs/features.md
"$bin" findings --format md -o docs/findings.md
GPUCOST_REGENERATE_DOCS=1 TZ=UTC "$tests" --gtest_filter='*Doc*' --gtest_brief=1 >/dev/null || true

# 5.
step "tests/golden"
GPUCOST_UPDATE_GOLDEN=1 TZ=UTC "$tests" --gtest_filter='Cases/Golden*' --gtest_brief=1 >/dev/null || true

# 6.
if [ "$screenshot" = 1 ]; then
  step "docs/img/report.png (docs/reports.md, \"The README screenshot\")"
  GPUCOST_BINARY=$bin GPUCOST_SCREENSHOT_SIZE=1280,3300 tests/browser/screenshot.sh examples/laptop-training docs/img/report.png
fi

step "checking: the doc tests, the example and the golden cases"
TZ=UTC "$tests" --gtest_filter='*Doc*:SimExample.*:MonthNames.*:Cases/Golden*' --gtest_brief=1 ||
  { step "some checks still fail after regenerating: a generator is not deterministic, or a test reads a file this script does not make"; exit 1; }
step "done; what changed (read every diff: git diff --stat):"
git status --short -- src/month_names_table.cpp examples docs tests/golden >&2
