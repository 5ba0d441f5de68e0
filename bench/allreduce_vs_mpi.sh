#!/usr/bin/env bash
# All-reduce (fp32 sum, blocking calls) against Open MPI's and MPICH's
# MPI_Allreduce in the same run (trnccl-perf -m 1 under each MPI's launcher,
# bench/mpis.sh; both sides timed as a batch's mean per call), `runs` times,
# the two MPIs taking turns: per size and MPI, the median over the runs of
# MPI time / trnccl time (above 1: trnccl is faster) and the lowest, then the
# median trnccl (out of place, over the launches of both MPIs) and MPI times.
# Sizes up to 32 KiB are timed over 20000 calls (after 500 warm-up calls),
# larger ones over 20, as trnccl-perf does by default.
# Extra arguments go to trnccl-perf (e.g. -R 1: registered buffers).
# Usage: bench/allreduce_vs_mpi.sh [ranks] [trnccl-perf flags...]   (default 2 ranks;
#        RUNS: runs, default 3; MAX: the largest size, default 64M; TRNCCL_BUILD: build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
. bench/mpis.sh
ranks=${1:-2}
shift || true
for run in $(seq "$runs"); do
  for mpi in "${mpis[@]}"; do
    perf_under "$mpi" "$ranks" all_reduce -b 8 -e 32K -f 4 -n 20000 -w 500 -m 1 -z 1 "$@" >"$out/$mpi.small.$run.txt"
    perf_under "$mpi" "$ranks" all_reduce -b 128K -e "${MAX:-64M}" -f 4 -m 1 -z 1 "$@" >"$out/$mpi.large.$run.txt"
  done
done
printf "# %s ranks, %s runs, load average at the end %s\n" "$ranks" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%10s %13s %10s %13s %10s %12s %12s %12s\n" size openmpi_ratio min mpich_ratio min trnccl_us openmpi_us mpich_us
awk "$list_awk"'
  # A row: size ... out-of-place time ($6) ... MPI time ($(NF-2)) ... MPI / trnccl ($NF).
  /^ *[0-9]/ {
    mpi = FILENAME ~ /\/openmpi\./ ? "o" : "m"
    r[mpi, $1] = r[mpi, $1] " " $NF; m[mpi, $1] = m[mpi, $1] " " $(NF - 2); t[$1] = t[$1] " " $6
  }
  END {
    for (s in t)
      printf "%10d %13.2f %10.2f %13.2f %10.2f %12.2f %12.2f %12.2f\n", s, median(r["o", s]), lowest(r["o", s]),
        median(r["m", s]), lowest(r["m", s]), median(t[s]), median(m["o", s]), median(m["m", s]) | "sort -n"
  }' "$out"/*.txt
