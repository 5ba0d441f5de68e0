#!/usr/bin/env bash
# Every all-reduce algorithm that runs within one instance (direct has none) on the main job's
# set-up (8 ranks of the emulated trn1.32xlarge on this host, links not
# emulated: the bytes move through this host's shared memory at its speed),
# in alternating rounds, with the tuner's own choice ("auto") as one more
# column: medians of RUNS rounds, in us. Shows whether the tuner's pricing of
# the host picks what this host runs fastest.
# Usage: bench/algorithms_on_host.sh [ranks] [sizes: -b -e -f of trnccl-perf]
#        (RUNS: rounds, default 3; TRNCCL_BUILD: build dir; default 8 ranks, 8 B-32 MiB x4)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
. bench/mpis.sh
ranks=${1:-8}
shift || true
[ $# -gt 0 ] && sizes=("$@") || sizes=(-b 8 -e 32M -f 4)
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge}
algorithms="auto $("$build"/bin/trnccl-sim --list-algorithms | awk '$2 != "instances" && $1 != "direct" {print $1}')"
for ((run = 1; run <= runs; run++)); do
  for algo in $algorithms; do
    flags=()
    [ "$algo" != auto ] && flags=(-A "$algo")
    # A row: size ($1) ... out-of-place time ($6). An algorithm that cannot
    # run on this shape (chip_rdh on one chip) leaves its column "-".
    { perf_under openmpi "$ranks" all_reduce "${sizes[@]}" -m 0 -z 1 "${flags[@]}" 2>/dev/null || true; } |
      awk -v a="$algo" '/^ *[0-9]/ { print a, $1, $6 }' >>"$out/times"
    echo "$algo - -" >>"$out/times"
  done
done
echo "# all-reduce float on $ranks ranks of $TRNCCL_TOPO on this host (links not emulated), median us of $runs rounds"
awk "$list_awk"'
  !($1 in known) { known[$1] = 1; algos[++m] = $1 }
  $2 == "-" { next }
  { t[$1, $2] = t[$1, $2] " " $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++n] = $2 } }
  END {
    printf "%10s", "size"; for (j = 1; j <= m; j++) printf " %11s", algos[j]; printf "\n"
    for (i = 1; i <= n; i++) {
      printf "%10s", sizes[i]
      for (j = 1; j <= m; j++) printf((algos[j], sizes[i]) in t ? " %11.1f" : " %11s", (algos[j], sizes[i]) in t ? median(t[algos[j], sizes[i]]) : "-")
      printf "\n"
    }
  }' "$out/times"
