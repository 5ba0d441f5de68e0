#!/usr/bin/env bash
# Both MPI peers as the bench scripts run them (bench/mpis.sh): trnccl-perf
# under Open MPI's mpirun and trnccl-perf-mpich under MPICH's mpiexec.mpich,
# 2 ranks, all-reduce with -m 1. Each run must check every result (exit 0),
# name its MPI in the table's first line, and time that MPI (a number, not
# n/a, in the peer column of every row). Then the system's mpirun and mpicc
# must still be Open MPI's: installing MPICH beside it must not take them.
# Usage: check_mpi_peers.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build="$1"
. bench/mpis.sh
check() {
  mpi=$1 name=$2
  table=$(perf_under "$mpi" 2 all_reduce -b 8 -e 64K -f 16 -n 2 -w 1 -m 1 -z 1)
  echo "$table"
  echo "$table" | head -1 | grep -q "(mpirun, $name" || { echo "FAIL: the $mpi table does not name $name"; exit 1; }
  rows=$(echo "$table" | grep -c '^ *[0-9]')
  timed=$(echo "$table" | awk '/^ *[0-9]/ && $(NF - 2) + 0 > 0' | wc -l)
  [ "$rows" -eq 4 ] && [ "$timed" -eq "$rows" ] || { echo "FAIL: $mpi: $timed of $rows rows (4 expected) timed MPI"; exit 1; }
}
check openmpi "Open MPI"
check mpich "MPICH"
mpirun --version | grep -q "Open MPI" || { echo "FAIL: mpirun is not Open MPI's"; exit 1; }
mpicc --showme:version 2>&1 | grep -q "Open MPI" || { echo "FAIL: mpicc is not Open MPI's"; exit 1; }
echo "both MPI peers timed; mpirun and mpicc are Open MPI's"
