#!/usr/bin/env bash
# Builds trnccl from scratch into a build folder of its own and prints where
# the time went: the wall-clock total, then the CPU seconds of every compile
# and link (measured per step with /usr/bin/time, so other work on the machine
# lengthens the total but not a step's figure), slowest first.
# Usage: scripts/build_profile.sh [BUILD_DIR] [TOP]   (default build-profile, 25)
# Extra CMake arguments: CMAKE_ARGS="-DTRNCCL_LTO=OFF".
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-build-profile}")
top=${2:-25}
for tool in ninja /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "build_profile: needs $tool (apt-get install ninja-build time)" >&2; exit 2; }
done

rm -rf "$dir"
mkdir -p "$dir"
# Each compile or link appends "<CPU seconds> <output>" to steps.txt.
cat >"$dir/cpu_time.sh" <<'SH'
#!/bin/sh
out=unknown
prev=
for arg in "$@"; do
  [ "$prev" = "-o" ] && out=$arg
  prev=$arg
done
/usr/bin/time -a -o "$(dirname "$0")/steps.txt" -f "%U %S $out" "$@"
SH
chmod +x "$dir/cpu_time.sh"

# mold (cmake/FastLinking.cmake) forks and returns before its work is done
# unless told not to, which would hide a link's CPU time (and the link-time
# optimisation it runs) from the measurement.
link_flags=()
if command -v mold >/dev/null && [[ "${CMAKE_ARGS:-}" != *TRNCCL_MOLD=OFF* ]]; then
  no_fork="-fuse-ld=mold -Wl,--no-fork"  # with mold named, or CMake's compiler checks use ld
  link_flags=(-DCMAKE_EXE_LINKER_FLAGS="$no_fork" -DCMAKE_SHARED_LINKER_FLAGS="$no_fork"
              -DCMAKE_MODULE_LINKER_FLAGS="$no_fork")
fi

start=$(date +%s.%N)
# shellcheck disable=SC2086
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER="$dir/cpu_time.sh" \
  -DCMAKE_CXX_LINKER_LAUNCHER="$dir/cpu_time.sh" "${link_flags[@]}" ${CMAKE_ARGS:-} >/dev/null
configured=$(date +%s.%N)
ninja -C "$dir" -j"$(nproc)" >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; exit 1; }
built=$(date +%s.%N)

python3 - "$dir" "$start" "$configured" "$built" "$top" <<'PY'
import collections, os, sys
dir, start, configured, built, top = sys.argv[1], *map(float, sys.argv[2:5]), int(sys.argv[5])
steps = []
for line in open(os.path.join(dir, 'steps.txt')):
    fields = line.split(maxsplit=2)
    if len(fields) == 3 and fields[0][0].isdigit():   # skips "Command exited with ..." lines
        out = fields[2].strip()
        steps.append((float(fields[0]) + float(fields[1]), os.path.relpath(out, dir) if os.path.isabs(out) else out))
def kind(out):
    if out.endswith('.gch'):
        return 'precompiled headers'
    if out.endswith('.o'):
        return 'compiles'
    return 'links'
by_kind = collections.Counter()
for sec, out in steps:
    by_kind[kind(out)] += sec
total = sum(by_kind.values())
print(f"configure {configured - start:5.1f} s, build {(built - configured) / 60:5.1f} min wall; "
      f"{total:.0f} CPU s in {len(steps)} steps: " + ", ".join(f"{k} {v:.0f}" for k, v in by_kind.most_common()))
print("(the fuzz targets' own build, an external project, counts its compiles under their objects)")
print(f"\nslowest {top} steps, CPU seconds:")
for sec, out in sorted(steps, reverse=True)[:top]:
    print(f"{sec:8.1f}  {out}")
PY
