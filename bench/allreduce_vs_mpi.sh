#!/usr/bin/env bash
# All-reduce (fp32 sum, blocking calls) against Open MPI's MPI_Allreduce in the
# same run (trnccl-perf -m 1; both timed as a batch's mean per call), `runs`
# times: per size, the median over the runs of MPI time / trnccl time (above
# 1: trnccl is faster), the lowest, and the median trnccl (out of place) and
# MPI times. Sizes up to 32 KiB are timed over 20000 calls (after 500 warm-up
# calls), larger ones over 20, as trnccl-perf does by default.
# Extra arguments go to trnccl-perf (e.g. -R 1: registered buffers).
# Usage: bench/allreduce_vs_mpi.sh [ranks] [trnccl-perf flags...]   (default 2 ranks;
#        RUNS: runs, default 3; MAX: the largest size, default 64M; TRNCCL_BUILD: build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
ranks=${1:-2}
shift || true
perf() { mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ranks" "$build"/bin/trnccl-perf all_reduce "$@"; }
for run in $(seq "$runs"); do
  perf -b 8 -e 32K -f 4 -n 20000 -w 500 -m 1 -z 1 "$@" >"$out/small.$run.txt"
  perf -b 128K -e "${MAX:-64M}" -f 4 -m 1 -z 1 "$@" >"$out/large.$run.txt"
done
printf "# %s ranks, %s runs, load average at the end %s\n" "$ranks" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%10s %13s %10s %12s %12s\n" size median_ratio min_ratio trnccl_us mpi_us
awk "$list_awk"'
  # A row: size ... out-of-place time ($6) ... MPI time ($16) ... MPI / trnccl ($NF).
  /^ *[0-9]/ { r[$1] = r[$1] " " $NF; t[$1] = t[$1] " " $6; m[$1] = m[$1] " " $16 }
  END {
    for (s in r)
      printf "%10d %13.2f %10.2f %12.2f %12.2f\n", s, median(r[s]), lowest(r[s]), median(t[s]), median(m[s]) | "sort -n"
  }' "$out"/*.txt
