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
# The kernel source the records were built from (kernel-patches/debian-source), while the archive offers it;
# else the newest below, with a warning.
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
pin=$(sed -n 's/^version=//p' kernel-patches/debian-source)
have=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
if [ -n "$pin" ] && [ "$have" != "$pin" ]; then
  apt-cache show "linux-source-6.12=$pin" >/dev/null 2>&1 || $SUDO apt-get update -q >/dev/null || true
  if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends --allow-downgrades \
       "linux-source-6.12=$pin" >/dev/null 2>&1; then
    echo "setup: linux-source-6.12 $pin, the records' kernel source (was ${have:-not installed})"
  else
    echo "setup: warning: linux-source-6.12 $pin (the records' kernel source) is not offered by apt here;" \
         "new gem5 points will not re-make the records' ticks exactly" >&2
  fi
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
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
