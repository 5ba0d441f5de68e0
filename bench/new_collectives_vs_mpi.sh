#!/usr/bin/env bash
# Gather, scatter, the v-collectives and permute against Open MPI's and
# MPICH's counterparts, measured in the same run (trnccl-perf -m 1 under each
# MPI's launcher, bench/mpis.sh; blocking calls): each (collective, rank
# count, MPI) is run `runs` times, and the table gives, per size, the median
# over the runs of MPI time / trnccl time (above 1: trnccl is faster) and the
# lowest of the runs. Each run starts at 16 KiB, a size
# not reported: a run's first size pays for first touches (of the buffers,
# the connections) in its timed calls, for every collective alike. Each size
# is timed over 100 calls (nccl-tests' default of 20 lets one descheduled
# rank of 8 on 2 cores decide a row, for trnccl and MPI alike).
# Usage: bench/new_collectives_vs_mpi.sh [ranks...]   (default: 2 8; TRNCCL_BUILD: build dir,
#        RUNS: runs per cell, default 3, MAX: the largest size, default 16M)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
. bench/mpis.sh
max=${MAX:-16M}
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 8)
printf "%-15s %5s %-8s %10s %13s %10s\n" collective ranks mpi size median_ratio min_ratio
for coll in gather scatter alltoallv allgatherv reducescatterv permute; do
  for n in "${ranks[@]}"; do
    for mpi in "${mpis[@]}"; do
      for run in $(seq "$runs"); do
        perf_under "$mpi" "$n" "$coll" -b 16K -e "$max" -f 4 -n 100 -w 10 -m 1 -z 1 >"$out/$coll.$n.$mpi.$run.txt"
      done
      # The row's last column is MPI time / trnccl time; the first is the size.
      cat "$out/$coll.$n.$mpi".*.txt | awk -v coll="$coll" -v n="$n" -v mpi="$mpi" "$list_awk"'
        /^ *[0-9]/ && $1 >= 65536 { r[$1] = r[$1] " " $NF }
        END {
          for (size in r) printf "%-15s %5d %-8s %10d %13.2f %10.2f\n", coll, n, mpi, size, median(r[size]), lowest(r[size])
        }' | sort -k4,4n
    done
  done
done
