#!/usr/bin/env bash
# Gather, scatter, the v-collectives and permute against Open MPI's
# counterparts, measured in the same run (trnccl-perf -m 1, blocking calls):
# each (collective, rank count) is run `runs` times, and the table gives, per
# size, the median over the runs of MPI time / trnccl time (above 1: trnccl
# is faster) and the lowest of the runs. Each run starts at 16 KiB, a size
# not reported: a run's first size pays for first touches (of the buffers,
# the connections) in its timed calls, for every collective alike. Each size
# is timed over 100 calls (nccl-tests' default of 20 lets one descheduled
# rank of 8 on 2 cores decide a row, for trnccl and MPI alike).
# Usage: bench/new_collectives_vs_mpi.sh [ranks...]   (default: 2 8; TRNCCL_BUILD: build dir,
#        RUNS: runs per cell, default 3, MAX: the largest size, default 16M)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
max=${MAX:-16M}
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 8)
printf "%-15s %5s %10s %13s %10s\n" collective ranks size median_ratio min_ratio
for coll in gather scatter alltoallv allgatherv reducescatterv permute; do
  for n in "${ranks[@]}"; do
    for run in $(seq "$runs"); do
      mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
        "$build"/bin/trnccl-perf "$coll" -b 16K -e "$max" -f 4 -n 100 -w 10 -m 1 -z 1 >"$out/$coll.$n.$run.txt"
    done
    # The row's last column is MPI time / trnccl time; the first is the size.
    cat "$out/$coll.$n".*.txt | awk -v coll="$coll" -v n="$n" "$list_awk"'
      /^ *[0-9]/ && $1 >= 65536 { r[$1] = r[$1] " " $NF }
      END { for (size in r) printf "%-15s %5d %10d %13.2f %10.2f\n", coll, n, size, median(r[size]), lowest(r[size]) }' | sort -k3,3n
  done
done
