# Sourced by the bench scripts that repeat runs and report medians: the
# build folder (TRNCCL_BUILD, default build), the number of runs (RUNS,
# default 3), a scratch folder `out` removed on exit, and bench/stats.sh's
# functions (list_awk's median and lowest, median, ratio).
build=${TRNCCL_BUILD:-build}
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. bench/stats.sh
