#!/usr/bin/env bash
# ensure-package.sh PACKAGE COMMAND: makes COMMAND available, installing the Debian PACKAGE with
# apt-get when it is missing (as root, or with passwordless sudo).
# Exit 0 when COMMAND is there, 77 (ctest's "skipped") when it cannot be installed: no root, or
# apt cannot reach the archive. Used by the report tests that need chromium and promtool.
set -u
pkg=$1 cmd=$2
command -v "$cmd" >/dev/null 2>&1 && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "SKIP: $cmd is missing and installing $pkg needs root" >&2
    exit 77
  fi
fi
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=1 -o Acquire::http::Timeout=30)
echo "installing $pkg (for $cmd) with apt-get ..." >&2
if ! apt-cache show "$pkg" >/dev/null 2>&1; then
  timeout 300 $SUDO apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || true
fi
if ! timeout 900 $SUDO apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1; then
  echo "SKIP: could not install $pkg (is the Debian archive reachable?)" >&2
  exit 77
fi
command -v "$cmd" >/dev/null 2>&1 || { echo "SKIP: $pkg installed but $cmd is not on PATH" >&2; exit 77; }
