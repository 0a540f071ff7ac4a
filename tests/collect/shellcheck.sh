#!/usr/bin/env bash
# Lints the project's shell scripts with shellcheck (Debian package shellcheck), installing it
# when missing; exits 77 (ctest's "skipped") where it cannot be installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tests/tools/ensure-package.sh" shellcheck shellcheck || exit $?
cd "$root" || exit 1
shellcheck --version | sed -n 2p
shellcheck scripts/*.sh tests/collect/*.sh tests/collect/fake-bin/* tests/data/gpu/*/capture.sh deploy/*/*.sh \
  tests/integration/*.sh tests/deploy/*.sh && echo "shellcheck: clean"
