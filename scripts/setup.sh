#!/usr/bin/env bash
# Installs exactly the Debian 12 packages trnccl needs (only those missing),
# then configures and builds into ./build. Idempotent: run it as often as you
# like; a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config git   # toolchain
  ninja-build mold                # the generator and linker setup.sh builds with
  libfabric-dev libfabric-bin     # ofi transport (fi_info for diagnostics)
  libopenmpi-dev openmpi-bin      # trnccl-perf launcher and MPI peer figures
  # The second MPI peer (trnccl-perf-mpich, run with mpiexec.mpich). Its
  # alternatives have priority 40 to Open MPI's 50, so mpirun, mpiexec and
  # mpicc stay Open MPI's.
  libmpich-dev mpich
  libhwloc-dev                    # host discovery
  iproute2                        # the two-host test (network namespaces)
  libbenchmark-dev libgloo-dev    # kernel benchmarks; the Gloo all-reduce peer
  catch2                          # tests (v2.13 on Debian 12)
  nlohmann-json3-dev              # topology files, JSON output
  libssl-dev openssl              # TLS 1.3 sockets (trncclSetEncryption); openssl speed in bench
  zlib1g-dev                      # CRC-32 of the ofi transport's messages (TRNCCL_OFI_CHECKSUM)
  libcli11-dev                    # every tool's and bench's command line
  clang libclang-rt-14-dev        # libFuzzer targets for every parser of outside bytes
  clang-format                    # the format test: every C++ file as .clang-format says
  gnuplot-nox                     # trnccl-sim --plot
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (trnccl-sim --chakra)
  libnlopt-dev                    # trnccl-sim --calibrate's optimiser
  dpkg-dev                        # dpkg-shlibdeps, for the Debian packages cpack builds
  python3-torch libtorch-dev      # the PyTorch process-group backend (python/)
  pybind11-dev python3-dev python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
# Ninja for a new build folder (it keeps both cores busy to the end); one
# configured before keeps the generator it has.
generator=()
[ -f "$BUILD_DIR/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
