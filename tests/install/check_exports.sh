#!/bin/sh
# The installed shared library exports only trnccl* symbols and carries the
# SONAME libtrnccl.so.MAJOR; the installed static library holds machine code
# only (no GCC LTO bytecode, which ties a consumer to this compiler). Usage: check_exports.sh LIBDIR MAJOR
set -eu
lib="$1/libtrnccl.so"
others=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^trnccl' || true)
if [ -n "$others" ]; then
  echo "$lib exports symbols other than trnccl*:"; echo "$others" | head -20; exit 1
fi
echo "$(nm -D --defined-only "$lib" | wc -l) exported symbols, all trnccl*"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libtrnccl.so.$2" ] || { echo "SONAME is '$soname', expected libtrnccl.so.$2"; exit 1; }
[ -e "$1/$soname" ] || { echo "$1/$soname is not installed"; exit 1; }
echo "SONAME $soname"
lto=$(objdump -h "$1/libtrnccl.a" | grep -c '\.gnu\.lto_' || true)
[ "$lto" = 0 ] || { echo "$1/libtrnccl.a carries $lto LTO bytecode sections"; exit 1; }
echo "libtrnccl.a: machine code only"
