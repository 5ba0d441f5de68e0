#!/usr/bin/env bash
# trnccl-sim against the runtime: all-reduce measured with NeuronLink timed
# emulation (TRNCCL_EMULATE_LINKS=1; by default 16 ranks, one per chip of
# trn1.32xlarge's 4x4 torus), then `trnccl-sim --validate` on each
# trnccl-perf JSON file: predicted beside measured per size, with the error
# and the median absolute error over sizes >= 64 KiB.
# Usage: bench/sim/validate.sh [algorithms] [directory to keep the JSON]   (TRNCCL_BUILD: build dir)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${TRNCCL_BUILD:-build}/bin
out=${2:-$(mktemp -d)}
mkdir -p "$out"
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge} TRNCCL_RANK_ORDER=${TRNCCL_RANK_ORDER:-chip}
export TRNCCL_EMULATE_LINKS=1 TRNCCL_EMULATE_SCALE=${TRNCCL_EMULATE_SCALE:-1000}
for algo in ${1:-ring torus2d}; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "${RANKS:-16}" \
    -x TRNCCL_TOPO -x TRNCCL_RANK_ORDER -x TRNCCL_EMULATE_LINKS -x TRNCCL_EMULATE_SCALE \
    "$bin"/trnccl-perf all_reduce -b 64K -e 64M -f 4 -w 1 -n 3 -m 0 -A "$algo" -J "$out/$algo.json" >/dev/null
  "$bin"/trnccl-sim --validate "$out/$algo.json"
done
