#!/bin/bash
# Re-makes the reference board's calibration: ccbench on the e7-8870 board, then the table and
# heat map beside mctop's published classes.  Two runs:
# - 10c-8sockets: 10 cores spread over the board's 8-socket wiring (2 cores on each of sockets
#   0-4: same socket, one and two QPI hops all present); its table is calibration.md here.
# - 80c: the whole board, 8 sockets of 10 cores as the curves fill them, every ordered pair of
#   sockets sampled (2 pairs each); its table is 80c-report/calibration.md.
# A run with a manifest is kept unless FRESH=1 (the 80-core one takes hours of host time);
# RUNS="80c" makes only that one.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-calibration
for r in ${RUNS:-10c-8sockets 80c}; do
  d=$out/$r
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  case $r in
    10c-8sockets)
      .venv/bin/vmscale run --backend gem5 --cores 10 --gem5 board=e7-8870 --gem5 sockets=8 --gem5 socket_cores=2 \
          --workload ccbench --param ccbench.socket_cores=2 --param ccbench.homes=8 --out "$d"
      .venv/bin/vmscale calibrate "$d" --out "$out" ;;
    80c)
      .venv/bin/vmscale checkpoint --cores 80 --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores 80 --gem5 board=e7-8870 \
          --workload ccbench --param ccbench.socket_cores=10 --param ccbench.homes=8 --out "$d"
      .venv/bin/vmscale calibrate "$d" --out "$out/80c-report" ;;
    *) echo "make.sh: unknown run $r (10c-8sockets or 80c)" >&2; exit 2 ;;
  esac
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
