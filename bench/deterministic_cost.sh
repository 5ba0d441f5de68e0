#!/usr/bin/env bash
# What deterministic mode costs per algorithm: trnccl-perf's all-reduce (fp32
# sum, 8 thread ranks on the emulated trn1.32xlarge, out of place) with
# TRNCCL_DETERMINISTIC=0 and =1 for each algorithm, each run twice,
# interleaved, the faster kept. Prints algorithm, size, time without and with
# the mode (us), and their ratio.
# Usage: bench/deterministic_cost.sh [path/to/trnccl-perf]
set -euo pipefail
cd "$(dirname "$0")/.."
perf=${1:-build/bin/trnccl-perf}
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge}
declare -A best
for round in 1 2; do
  for algo in ring bidir_ring torus2d rdh mesh kangaring; do
    for det in 0 1; do
      while read -r size time; do
        key="$algo $size $det"
        if [[ -z ${best[$key]:-} ]] || awk -v a="$time" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
          best[$key]=$time
        fi
      done < <(TRNCCL_DETERMINISTIC=$det "$perf" all_reduce -b 64K -e 16M -f 16 -t 8 -A "$algo" -n 10 -w 3 |
        awk '$1 ~ /^[0-9]+$/ { print $1, $6 }')
    done
  done
done
printf '%-11s %10s %12s %12s %6s\n' algorithm bytes "time (us)" "determ. (us)" ratio
for algo in ring bidir_ring torus2d rdh mesh kangaring; do
  for size in 65536 1048576 16777216; do
    off=${best["$algo $size 0"]:-nan} on=${best["$algo $size 1"]:-nan}
    printf '%-11s %10s %12s %12s %6s\n' "$algo" "$size" "$off" "$on" "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')"
  done
done
