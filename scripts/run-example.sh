#!/usr/bin/env bash
# README command 1: set up (install, build) and analyze the bundled example logs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/gpucost analyze examples/laptop-training "$@"
