# Sourced by the bench scripts that report medians and ratios; defines only
# functions and a string, no state:
#   list_awk       the awk functions median(list) and lowest(list) of a
#                  space-separated list of numbers, to prepend to an awk program;
#   median         the median of the numbers on standard input, one a line;
#   ratio A B      A / B to three decimals.
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
median() { awk "$list_awk"'{ list = list " " $1 } END { print median(list) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
