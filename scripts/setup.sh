#!/bin/bash
# Installs what vmscale needs on Debian 12 (apt packages, then a Python venv in .venv).
# Safe to re-run: installed packages are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential bc bison flex libelf-dev libssl-dev xz-utils cpio rsync file binutils git
  linux-source-6.12 qemu-system-x86 busybox-static e2fsprogs python3-venv python3-pip stress-ng
  slurmd slurmctld slurm-client munge
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
echo "setup: done (.venv/bin/vmscale)"
