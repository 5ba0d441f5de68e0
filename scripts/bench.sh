#!/usr/bin/env bash
# The main job: the all-reduce benchmark on the emulated trn1.32xlarge (ranks
# on its NeuronCores in torus order; TRNCCL_TOPO overrides), nccl-tests style, with
# Open MPI's MPI_Allreduce measured in the same run for comparison. Calls are
# blocking (-z 1), as MPI_Allreduce is.
# Usage: scripts/bench.sh [ranks] [extra trnccl-perf flags...]   (default 8 ranks)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-8}
shift || true
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge}
# mpirun refuses root and more ranks than cores unless told; both are expected here.
exec mpirun --allow-run-as-root --oversubscribe --bind-to none -x TRNCCL_TOPO -np "$ranks" \
  build/bin/trnccl-perf all_reduce -b 8 -e 64M -f 4 -m 1 -z 1 "$@"
