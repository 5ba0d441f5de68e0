#!/usr/bin/env bash
# The main job: the all-reduce benchmark on the emulated trn1.32xlarge (ranks
# on its NeuronCores in torus order; TRNCCL_TOPO overrides), nccl-tests style,
# with the MPI peers measured in the same run for comparison: first under Open
# MPI's mpirun with its MPI_Allreduce beside trnccl, then under MPICH's
# mpiexec.mpich with MPICH's (bench/mpis.sh), then both ratios side by side.
# Calls are blocking (-z 1), as MPI_Allreduce is. Exits non-zero if any
# result of either run is wrong.
# Usage: scripts/bench.sh [ranks] [extra trnccl-perf flags...]   (default 8 ranks)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/mpis.sh
ranks=${1:-8}
shift || true
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for mpi in "${mpis[@]}"; do
  perf_under "$mpi" "$ranks" all_reduce -b 8 -e 64M -f 4 -m 1 -z 1 "$@" | tee "$out/$mpi.txt" || status=1
  echo
done
echo "# MPI time / trnccl time per size (above 1: trnccl is faster), each MPI against trnccl in its own launch"
printf "# %10s %11s %11s %8s %11s %11s %8s\n" size trnccl_us openmpi_us ratio trnccl_us mpich_us ratio
# A row: size ($1) ... out-of-place time ($6) ... MPI time ($(NF-2)) ... MPI / trnccl ($NF).
awk '/^ *[0-9]/ { row[FILENAME, $1] = sprintf(" %11s %11s %8s", $6, $(NF - 2), $NF); if (FILENAME ~ /openmpi/) sizes[++n] = $1 }
  END { for (i = 1; i <= n; i++) printf "  %10s%s%s\n", sizes[i], row[ARGV[1], sizes[i]], row[ARGV[2], sizes[i]] }' \
  "$out/openmpi.txt" "$out/mpich.txt"
exit "$status"
