#!/usr/bin/env bash
# What outsiders on a job's ports cost its own ranks: trnccl-perf's
# all-reduce (1 MiB fp32 sum, 4 thread ranks on two emulated trn1.2xlarge
# instances, so the tcp transport carries the traffic between them) with
# nobody attacking, and with bench/outsider_flood.py attacking from before
# the job starts to its end, on every port the job listens on: garbage,
# hellos with a wrong secret, and connections held silent or trickling a
# byte a second. The job runs some 7 s on a quiet 2-core machine, longer
# than the greeting limit (TRNCCL_GREETING_TIMEOUT_MS, 5 s), so held
# connections are dropped while it runs. A third run, `decoy`, has the
# flood attack a stand-in process (outsider_flood.py --decoy) while the job
# runs unattacked: on a machine with few cores the attacker's own work
# slows the job too, and attacked / decoy is what trnccl's refusing costs
# beyond it. Each run `rounds` times, rotating the order. Prints each
# run's wall time (set-up included, s) and time per call (us), the medians,
# and attacked / quiet, decoy / quiet and attacked / decoy.
# root: `ephemeral` (the default, as a job runs unless told otherwise): the
# root answers status queries on its own port all job long, and the flood
# finds it, as the ranks' ports, with ss; `fixed`: TRNCCL_COMM_ID fixes the
# root's port, so the flood is at it before the job starts, and the root
# ends after the rendezvous.
# Usage: bench/outsiders.sh [rounds] [build dir] [root]   (default 5, build, ephemeral)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/stats.sh
rounds=${1:-5}
build=${2:-build}
root=${3:-ephemeral}
export TRNCCL_TOPO=${TRNCCL_TOPO:-trn1.2xlarge:2} TRNCCL_TRANSPORT=${TRNCCL_TRANSPORT:-tcp}
export TRNCCL_DEBUG=${TRNCCL_DEBUG:-WARN}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One run; $1: quiet, attacked or decoy. Prints the wall time (s), the
# call's time (us), the outsiders' connections opened, and how many of
# those it held their target closed (by the limit, or as the job ended).
run() {
  local port=0 start end flood= decoy=
  [[ $root == fixed && $1 == attacked ]] && port=$(free_port)
  rm -f "$dir/pid" "$dir/decoy"
  if [[ $1 == decoy ]]; then
    python3 bench/outsider_flood.py --decoy "$dir/decoy" &
    decoy=$!
  fi
  if [[ $1 != quiet ]]; then
    local target=$dir/pid # where the job writes its pid
    [[ $1 == decoy ]] && target=$dir/decoy
    python3 bench/outsider_flood.py "$port" "$target" >"$dir/flood" &
    flood=$!
  fi
  sleep 0.5 # the flood is at a fixed root port before the job starts
  start=$(date +%s.%N)
  (
    [[ $port != 0 ]] && export TRNCCL_COMM_ID=127.0.0.1:$port
    echo $BASHPID >"$dir/pid.new" && mv "$dir/pid.new" "$dir/pid"
    exec "$build/bin/trnccl-perf" all_reduce -t 4 -b 1M -e 1M -n 5000 -w 20 >"$dir/perf" 2>"$dir/log"
  )
  end=$(date +%s.%N)
  local opened=0 closed=0
  if [[ -n $flood ]]; then
    kill -TERM "$flood"
    wait "$flood" || true
    read -r opened closed <"$dir/flood"
  fi
  if [[ -n $decoy ]]; then
    kill -TERM "$decoy"
    wait "$decoy" || true
  fi
  cat "$dir/log" >>"$dir/$1.log"
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') \
$(awk '$1 ~ /^[0-9]+$/ { print $6 }' "$dir/perf") $opened $closed"
}


modes=(quiet attacked decoy)
for mode in "${modes[@]}"; do : >"$dir/$mode.wall" && : >"$dir/$mode.call" && : >"$dir/$mode.log"; done
printf '%5s %-9s %8s %10s %8s %8s\n' round mode "wall (s)" "call (us)" opened closed
for round in $(seq "$rounds"); do
  for i in 0 1 2; do
    mode=${modes[(round + i) % 3]}
    read -r wall call opened closed < <(run "$mode")
    echo "$wall" >>"$dir/$mode.wall"
    echo "$call" >>"$dir/$mode.call"
    printf '%5s %-9s %8s %10s %8s %8s\n' "$round" "$mode" "$wall" "$call" "$opened" "$closed"
  done
done
for what in wall call; do
  q=$(median <"$dir/quiet.$what") a=$(median <"$dir/attacked.$what") d=$(median <"$dir/decoy.$what")
  unit=$([[ $what == wall ]] && echo s || echo us)
  echo "median $what: quiet $q $unit, attacked $a $unit, decoy $d $unit;" \
    "attacked / quiet $(ratio "$a" "$q"), decoy / quiet $(ratio "$d" "$q"), attacked / decoy $(ratio "$a" "$d")"
done
count() { grep -c "$1" "$dir/attacked.log" || true; }
echo "trnccl's warnings in the attacked runs: refused $(count 'refused a'), dropped unfinished" \
  "$(count 'dropped a connection') (of them when the limit passed: $(count ': it sent \|no whole hello'))"
