#!/usr/bin/env bash
# trnccl's 2-rank all-reduce (fp32 sum, blocking calls, ranks as processes
# under mpirun) against the floor of this host, both measured in the same run
# `runs` times, taking turns (trnccl-floor: a cache line crossing between the
# two processes; memcpy's rate with both processes copying; the floor per
# size is the larger of the crossing and the size at that rate, since each
# rank of a 2-rank all-reduce must read and write at least the size's bytes).
# Per size: the medians over the runs of trnccl's time, the floor, trnccl /
# floor (1 is the floor), and floor / trnccl as a share of the limit; then the
# issue's goals: 8 B within 1.3x of the floor, 64 MiB at 85% of the limit or
# more. Sizes up to 32 KiB are timed over 20000 calls, as in
# bench/allreduce_vs_mpi.sh. Extra arguments go to trnccl-perf.
# Usage: bench/floor.sh [trnccl-perf flags...]   (RUNS: runs, default 3; MAX: the largest
#        size, default 64M; TRNCCL_BUILD: build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
. bench/mpis.sh
max=${MAX:-64M}
# A size with an optional K, M or G suffix, in bytes.
bytes() {
  local n=${1%[KkMmGg]}
  case $1 in
    *[Kk]) echo $((n << 10)) ;; *[Mm]) echo $((n << 20)) ;; *[Gg]) echo $((n << 30)) ;; *) echo "$1" ;;
  esac
}
max_bytes=$(bytes "$max")
small_end=$((max_bytes < 32768 ? max_bytes : 32768))
for run in $(seq "$runs"); do
  # The sweep by 4 from 8 B, and the largest size on its own (64 MiB is not 8 B times a power of 4).
  "$build"/bin/trnccl-floor -b 8 -e "$max" -f 4 >"$out/floor.$run.txt"
  "$build"/bin/trnccl-floor -b "$max" -e "$max" >"$out/floor.max.$run.txt"
  perf_under openmpi 2 all_reduce -b 8 -e "$small_end" -f 4 -n 20000 -w 500 -z 1 "$@" >"$out/perf.small.$run.txt"
  # Sizes from 128 KiB, where there are any.
  if ((max_bytes >= 131072)); then
    perf_under openmpi 2 all_reduce -b 128K -e "$max" -f 4 -z 1 "$@" >"$out/perf.large.$run.txt"
  fi
  perf_under openmpi 2 all_reduce -b "$max" -e "$max" -z 1 "$@" >"$out/perf.max.$run.txt"
done
printf "# 2 ranks, %s runs, load average at the end %s\n" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
awk "$list_awk"'
  /line crossing/ { for (i = 1; i <= NF; i++) if ($i == "crossing") c = c " " $(i + 1) }
  # trnccl-floor rows: size, memcpy GB/s, floor us, bound; trnccl-perf rows: size ... out-of-place time ($6).
  FILENAME ~ /\/floor\./ && /^ *[0-9]/ { f[$1] = f[$1] " " $3; g[$1] = g[$1] " " $2; bound[$1] = $4 }
  FILENAME ~ /\/perf\./ && /^ *[0-9]/ { t[$1] = t[$1] " " $6 }
  END {
    printf "# line crossing %.3f us (median), memcpy with both processes copying as below\n", median(c)
    printf "%10s %11s %11s %9s %11s %8s %6s\n", "size", "trnccl_us", "floor_us", "bound", "memcpy_GBps", "x_floor", "limit"
    for (s in t) {
      ratio = median(t[s]) / median(f[s])
      printf "%10d %11.3f %11.3f %9s %11.2f %8.2f %5.0f%%\n", s, median(t[s]), median(f[s]), bound[s], median(g[s]),
        ratio, 100 / ratio | "sort -n"
      if (s == 8) small = ratio
      if (s == 67108864) large = 100 / ratio
    }
    close("sort -n")
    if (small) printf "# goal 8 B within 1.3x of the floor: %.2fx, %s\n", small, (small <= 1.3 ? "met" : "missed")
    if (large) printf "# goal 64 MiB at 85%% of the limit or more: %.0f%%, %s\n", large, (large >= 85 ? "met" : "missed")
  }' "$out"/*.txt
