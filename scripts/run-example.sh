#!/usr/bin/env bash
# README command 1: set up (install, build the gpucost binary only) and analyze the bundled
# example logs. The tests are built by README command 2 (scripts/run-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
GPUCOST_SETUP_TARGET=gpucost scripts/setup.sh
exec build/gpucost analyze examples/laptop-training "$@"
