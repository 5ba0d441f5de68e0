# Sourced by the bench scripts that repeat runs and report medians: the
# build folder (TRNCCL_BUILD, default build), the number of runs (RUNS,
# default 3), a scratch folder `out` removed on exit, and `list_awk`, the awk
# functions median(list) and lowest(list) of a space-separated list of
# numbers, to prepend to an awk program.
build=${TRNCCL_BUILD:-build}
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
list_awk='
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function lowest(list,   a, n, i, low) {
    n = split(list, a, " "); low = a[1]
    for (i = 2; i <= n; i++) if (a[i] + 0 < low + 0) low = a[i]
    return low
  }'
