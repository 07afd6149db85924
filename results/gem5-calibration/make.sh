#!/bin/bash
# Re-makes the reference board's calibration: ccbench at 10 cores on the e7-8870 board spread
# over its 8-socket wiring (2 cores on each of sockets 0-4: same socket, one and two QPI hops all
# present), then the table and heat map beside mctop's published classes.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-calibration
rm -rf "$out/10c-8sockets"
.venv/bin/vmscale run --backend gem5 --cores 10 --gem5 board=e7-8870 --gem5 sockets=8 --gem5 socket_cores=2 \
    --workload ccbench --param ccbench.socket_cores=2 --param ccbench.homes=8 --out "$out/10c-8sockets"
.venv/bin/vmscale calibrate "$out/10c-8sockets" --out "$out"
(cd "$out/10c-8sockets/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
