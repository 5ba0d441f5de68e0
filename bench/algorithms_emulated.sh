#!/usr/bin/env bash
# Every algorithm that runs within one instance (trnccl-sim --list-algorithms:
# ring, bidirectional ring, 2D torus, RDH, mesh, KangaRing, ...), all-reduce on an emulated
# machine: the shm transport paces every message to the topology's links
# (TRNCCL_EMULATE_LINKS=1, host time = modelled time x TRNCCL_EMULATE_SCALE),
# so the measured times show the modelled machine's behaviour; the tuner's
# cost-model prediction for the same algorithm is printed beside each row.
# Usage: bench/algorithms_emulated.sh [ranks] [topology] [rank order]   (TRNCCL_BUILD: build dir)
#        (default: 16 ranks of trn1.32xlarge, one per chip: its 4x4 torus)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-16}
export TRNCCL_TOPO=${2:-trn1.32xlarge}
export TRNCCL_RANK_ORDER=${3:-chip}
export TRNCCL_EMULATE_LINKS=1
export TRNCCL_EMULATE_SCALE=${TRNCCL_EMULATE_SCALE:-1000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build=${TRNCCL_BUILD:-build}
algorithms=$("$build"/bin/trnccl-sim --list-algorithms | awk '$2 == "any-ranks" {print $1}')
for algo in $algorithms; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ranks" \
    -x TRNCCL_TOPO -x TRNCCL_RANK_ORDER -x TRNCCL_EMULATE_LINKS -x TRNCCL_EMULATE_SCALE \
    "$build"/bin/trnccl-perf all_reduce -b 64K -e 64M -f 4 -w 1 -n 3 -m 0 -A "$algo" -J "$out/$algo.json" >/dev/null
done
# shellcheck disable=SC2046  # one JSON file per algorithm, in the registry's order
python3 bench/emulated_table.py "$TRNCCL_EMULATE_SCALE" $(printf "$out/%s.json " $algorithms)
