#!/bin/sh
# The Debian packages as a packager uses them: cpack builds them from the
# build folder, dpkg installs them into a scratch root (dependencies are
# Debian's, installed on this machine, not in the scratch root), then a
# downstream CMake project builds and runs against the installed files, and
# the library and the tools find the installed topology files beside
# themselves.
# usage: check_packages.sh BUILD_DIR WORK_DIR CONSUMER_DIR
set -eu
build=$1 work=$2 consumer=$3
rm -rf "$work" && mkdir -p "$work/debs" "$work/root/var/lib/dpkg/info" "$work/root/var/lib/dpkg/updates"
touch "$work/root/var/lib/dpkg/status"
(cd "$build" && cpack -G DEB -B "$work/debs" >/dev/null)
for package in libtrnccl0 libtrnccl-dev trnccl-tools; do
  ls "$work/debs/${package}_"*.deb >/dev/null || { echo "no $package package"; exit 1; }
done
dpkg-deb -f "$work/debs"/libtrnccl0_*.deb Depends | grep -q libfabric1 || { echo "libtrnccl0 does not depend on libfabric1"; exit 1; }
# Maintainer scripts (ldconfig) run outside the scratch root, which has no shell.
dpkg --root="$work/root" --force-depends --force-not-root --force-script-chrootless -i "$work/debs"/*.deb >/dev/null 2>&1
root=$work/root
test -f "$root/usr/include/trnccl/trnccl.h"
test -x "$root/usr/bin/trnccl-ls"
test -x "$root/usr/bin/trnccl-top"
dpkg --root="$root" -s libtrnccl0 | grep -q "Status: install ok installed"

# A topology only the installed tree has: found beside the library and beside the tools.
cp "$root/usr/share/trnccl/topologies/trn1.2xlarge.json" "$root/usr/share/trnccl/topologies/packaged-probe.json"
libdir=$(dirname "$(find "$root/usr/lib" -name 'libtrnccl.so.0' | head -1)")
cmake -S "$consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH=$libdir TRNCCL_TOPO=packaged-probe "$work/consumer/consumer"
env -u TRNCCL_TOPO "$root/usr/bin/trnccl-ls" --topo packaged-probe >/dev/null
echo "packages built, installed and used: $(cd "$work/debs" && ls ./*.deb | tr '\n' ' ')"
