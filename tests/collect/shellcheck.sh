#!/usr/bin/env bash
# Lints the project's shell scripts with shellcheck (Debian package shellcheck; scripts/run-tests.sh
# installs it); exits 77 (ctest's "skipped") without it.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tests/tools/need-command.sh" shellcheck shellcheck || exit $?
cd "$root" || exit 1
shellcheck --version | sed -n 2p
shellcheck scripts/*.sh tests/collect/*.sh tests/collect/fake-bin/* tests/data/gpu/*/capture.sh deploy/*/*.sh \
  tests/integration/*.sh tests/deploy/*.sh tests/tools/*.sh tests/browser/*.sh tests/prom/*.sh && echo "shellcheck: clean"
