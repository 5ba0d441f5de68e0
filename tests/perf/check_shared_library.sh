#!/bin/sh
# Every collective through the shared library as users link it (built with
# link-time optimisation; the other tests link the static library's objects):
# trnccl-perf checks each result element by element against its own double
# computation and exits non-zero on any wrong element. Reducing collectives
# run every type, all_reduce every op too; 3 ranks as threads, sizes from the
# one-shot path to the pipelined ring. Usage: check_shared_library.sh TRNCCL_PERF
set -eu
perf="$1"
run() { echo "trnccl-perf $*"; "$perf" "$@" -t 3 -b 8 -e 1M -f 32 -n 1 -w 1 -c 1 >/dev/null; }
run all_reduce -d all -o all
for c in reduce_scatter reduce reducescatterv; do run $c -d all; done
for c in all_gather broadcast alltoall sendrecv gather scatter alltoallv allgatherv permute; do run $c; done
ldd "$perf" | grep libtrnccl
