#!/usr/bin/env bash
# need-command.sh PACKAGE COMMAND: exit 0 when COMMAND is on PATH, else 77 (ctest's "skipped",
# SKIP_RETURN_CODE) with the Debian PACKAGE that provides it. Tests never install anything:
# scripts/run-tests.sh installs every test's tools beforehand (scripts/setup.sh's
# test_packages), and with CI=true a skipped test fails the run (scripts/ctest.sh).
set -u
pkg=$1 cmd=$2
command -v "$cmd" >/dev/null 2>&1 && exit 0
echo "SKIP: $cmd is missing (Debian package $pkg; scripts/run-tests.sh installs it)" >&2
exit 77
