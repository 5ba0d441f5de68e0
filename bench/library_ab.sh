#!/usr/bin/env bash
# Two builds of libtrnccl.so against each other in one series: the same
# trnccl-perf (this build's) runs a 2-rank fp32 all-reduce with Open MPI's
# MPI_Allreduce beside it, loading library A and library B in turn through
# LD_LIBRARY_PATH, RUNS rounds of A then B. Per size: each library's median
# trnccl time and median MPI time / trnccl time. For before/after figures of
# a change to the library's build or code (docs/building.md).
# Usage: bench/library_ab.sh LIB_DIR_A LIB_DIR_B [trnccl-perf flags...]
#        (default flags: -b 8 -e 32K -f 4 -n 20000 -w 500; RUNS default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
runs=${RUNS:-5}
a=$(realpath "$1")
b=$(realpath "$2")
shift 2
flags=("$@")
((${#flags[@]})) || flags=(-b 8 -e 32K -f 4 -n 20000 -w 500)
for lib in "$a" "$b"; do
  [ -e "$lib/libtrnccl.so.0" ] || { echo "library_ab: no libtrnccl.so.0 in $lib" >&2; exit 2; }
done
for run in $(seq "$runs"); do
  for side in A B; do
    lib=$a
    [ "$side" = B ] && lib=$b
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x LD_LIBRARY_PATH="$lib" \
      "$build"/bin/trnccl-perf all_reduce -m 1 -z 1 "${flags[@]}" >"$out/$side.$run.txt"
  done
done
printf "# A = %s\n# B = %s\n# %s rounds, load average at the end %s\n" "$a" "$b" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%10s %12s %12s %12s %12s %10s\n" size A_trnccl_us B_trnccl_us A_mpi_ratio B_mpi_ratio B_over_A
awk "$list_awk"'
  # A row: size ... out-of-place time ($6) ... MPI / trnccl ($NF).
  FNR == 1 { match(FILENAME, /[AB][.][0-9]+[.]txt$/); side = substr(FILENAME, RSTART, 1) }
  /^ *[0-9]/ { t[side, $1] = t[side, $1] " " $6; r[side, $1] = r[side, $1] " " $NF; sizes[$1] = 1 }
  END {
    for (s in sizes) {
      ta = median(t["A", s]); tb = median(t["B", s])
      printf "%10d %12.2f %12.2f %12.2f %12.2f %10.2f\n", s, ta, tb, median(r["A", s]), median(r["B", s]), ta / tb | "sort -n"
    }
  }' "$out"/A.*.txt "$out"/B.*.txt
