#!/usr/bin/env bash
# What trnccl-top costs a running job: trnccl-perf's all-reduce (4 MiB fp32
# sum, 8 thread ranks on the emulated trn1.32xlarge, out of place) with
# nobody watching, and with trnccl-top attached through TRNCCL_TOP_FILE,
# refreshing every second (its default), each run `rounds` times, alternating
# (and which goes first alternates too).
# Prints each run's time per call (us), both medians, and watched / unwatched.
# Usage: bench/top_cost.sh [rounds] [build dir]   (default 5 rounds, build)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/stats.sh
rounds=${1:-5}
build=${2:-build}
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.32xlarge}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# One run; $1: 1 to attach trnccl-top. Prints the call's time (us) and how
# many snapshots trnccl-top printed.
run() {
  rm -f "$dir/id" "$dir/top"
  TRNCCL_TOP_FILE="$dir/id" "$build/bin/trnccl-perf" all_reduce -t 8 -b 4M -e 4M -n 600 -w 20 >"$dir/perf" &
  local perf=$! top=
  if [[ $1 == 1 ]]; then
    while [[ ! -e $dir/id ]] && kill -0 "$perf" 2>/dev/null; do sleep 0.02; done
    # It refreshes until the job ends, then fails to reach it and exits.
    "$build/bin/trnccl-top" --json --id-file "$dir/id" >"$dir/top" 2>/dev/null &
    top=$!
  fi
  wait "$perf"
  [[ -n $top ]] && { wait "$top" || true; }
  local snapshots=0
  [[ -e $dir/top ]] && snapshots=$(grep -c '^{' "$dir/top" || true)
  echo "$(awk '$1 ~ /^[0-9]+$/ { print $6 }' "$dir/perf") $snapshots"
}


: >"$dir/unwatched"
: >"$dir/watched"
printf '%5s %-10s %10s %9s\n' round mode "time (us)" snapshots
for round in $(seq "$rounds"); do
  for watched in $((round % 2)) $((1 - round % 2)); do
    read -r time snapshots < <(run "$watched")
    mode=$([[ $watched == 1 ]] && echo watched || echo unwatched)
    echo "$time" >>"$dir/$mode"
    printf '%5s %-10s %10s %9s\n' "$round" "$mode" "$time" "$snapshots"
  done
done
unwatched=$(median <"$dir/unwatched")
watched=$(median <"$dir/watched")
echo "median unwatched: $unwatched us, watched: $watched us, watched / unwatched: $(ratio "$watched" "$unwatched")"
