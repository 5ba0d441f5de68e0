#!/bin/sh
# trnccl-floor as bench/floor.sh runs it, on a short sweep: it must print
# the line crossing and one row per size, every figure above zero, the floor
# never below the crossing nor below the size at the memcpy rate.
# Usage: check_floor.sh TRNCCL_FLOOR
set -eu
table=$("$1" -b 8 -e 64K -f 8 -n 200 -r 3)
echo "$table"
echo "$table" | awk '
  /line crossing/ { for (i = 1; i <= NF; i++) if ($i == "crossing") crossing = $(i + 1) }
  /^ *[0-9]/ {
    rows++
    copy_us = $1 / ($2 * 1e3)
    if ($2 <= 0 || $3 + 1e-3 < crossing || $3 + 1e-3 < copy_us) bad = bad " " $1
  }
  END {
    if (crossing <= 0) { print "FAIL: no line crossing"; exit 1 }
    if (rows != 5) { print "FAIL: " rows " rows, 5 expected"; exit 1 }
    if (bad != "") { print "FAIL: rows whose floor is wrong:" bad; exit 1 }
    print "ok: crossing " crossing " us, " rows " rows"
  }'
