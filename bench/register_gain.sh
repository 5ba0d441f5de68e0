#!/usr/bin/env bash
# What registering the buffers (trnccl-perf -R 1: trncclCommRegister of its
# trncclMemAlloc buffers) gains, per collective and size: runs with and
# without registration interleaved, `runs` times, ranks as processes (where
# a peer reads registered memory through its own mapping instead of the
# shared-memory FIFO's two copies). Prints, per collective and size, the
# median over the runs of unregistered time / registered time (above 1:
# registration is faster), out of place and in place, and the median times.
# Usage: bench/register_gain.sh [ranks] [collectives...]   (default 2 ranks; gather
#        broadcast alltoall all_reduce sendrecv; RUNS: runs, default 3;
#        MIN / MAX: sizes, default 256K / 64M; TRNCCL_BUILD: build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/runs.sh
ranks=${1:-2}
shift || true
collectives=${*:-gather broadcast alltoall all_reduce sendrecv}
for run in $(seq "$runs"); do
  for coll in $collectives; do
    for registered in 0 1; do
      mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ranks" "$build"/bin/trnccl-perf "$coll" \
        -b "${MIN:-256K}" -e "${MAX:-64M}" -f 4 -z 1 -R "$registered" |
        awk -v c="$coll" -v r="$registered" '/^ *[0-9]/ { print c, $1, r, $6, $10 }' >>"$out/rows.txt"
    done
  done
done
printf "# %s ranks, %s runs, load average at the end %s\n" "$ranks" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-11s %10s %11s %11s %11s %11s %11s %11s\n" collective size gain gain_inpl us_plain us_reg \
  us_plain_ip us_reg_ip
awk "$list_awk"'
  # Rows come in pairs, unregistered then registered, per run, collective and size.
  { k = $1 " " $2 }
  $3 == 0 { plain[k] = $4; plainIp[k] = $5; tp[k] = tp[k] " " $4; tpi[k] = tpi[k] " " $5 }
  $3 == 1 {
    g[k] = g[k] " " plain[k] / $4; gi[k] = gi[k] " " plainIp[k] / $5
    tr[k] = tr[k] " " $4; tri[k] = tri[k] " " $5
  }
  END {
    for (k in g) {
      split(k, a, " ")
      printf "%-11s %10d %11.2f %11.2f %11.1f %11.1f %11.1f %11.1f\n", a[1], a[2], median(g[k]), median(gi[k]),
        median(tp[k]), median(tr[k]), median(tpi[k]), median(tri[k]) | "sort -k1,1 -k2n"
    }
  }' "$out/rows.txt"
