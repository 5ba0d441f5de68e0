# Every dependency comes from a Debian 12 package. A missing one stops the
# configuration with the package to install (scripts/setup.sh installs them all).
find_package(PkgConfig REQUIRED)

function(trnccl_missing what debian_pkg)
  message(FATAL_ERROR "trnccl needs ${what}: install the Debian package "
                      "'${debian_pkg}' (apt-get install ${debian_pkg}), "
                      "or run scripts/setup.sh")
endfunction()

pkg_check_modules(LIBFABRIC IMPORTED_TARGET libfabric)
if(NOT LIBFABRIC_FOUND)
  trnccl_missing("libfabric" "libfabric-dev")
endif()

pkg_check_modules(HWLOC IMPORTED_TARGET hwloc)
if(NOT HWLOC_FOUND)
  trnccl_missing("hwloc" "libhwloc-dev")
endif()

find_package(OpenSSL 3 QUIET)  # TLS 1.3 for the bootstrap's and the tcp transport's sockets
if(NOT OpenSSL_FOUND)
  trnccl_missing("OpenSSL 3" "libssl-dev")
endif()

find_package(ZLIB QUIET)  # CRC-32 of the ofi transport's messages (TRNCCL_OFI_CHECKSUM)
if(NOT ZLIB_FOUND)
  trnccl_missing("zlib" "zlib1g-dev")
endif()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  trnccl_missing("nlohmann-json" "nlohmann-json3-dev")
endif()

find_package(CLI11 CONFIG QUIET)  # every tool's and bench's command line
if(NOT CLI11_FOUND)
  trnccl_missing("CLI11" "libcli11-dev")
endif()

find_package(Protobuf 3 QUIET)  # Chakra execution traces (trnccl-sim --chakra)
if(NOT Protobuf_FOUND OR NOT Protobuf_PROTOC_EXECUTABLE)
  trnccl_missing("protobuf" "libprotobuf-dev protobuf-compiler")
endif()

find_package(NLopt 2 CONFIG QUIET)  # trnccl-sim --calibrate's Nelder-Mead
if(NOT NLopt_FOUND)
  trnccl_missing("NLopt" "libnlopt-dev")
endif()

find_package(Threads REQUIRED)

if(TRNCCL_BUILD_BENCH)
  find_package(MPI QUIET COMPONENTS C)
  if(NOT MPI_C_FOUND)
    trnccl_missing("Open MPI" "libopenmpi-dev")
  endif()
  # The second MPI peer, beside Open MPI (which stays the system's mpicc and
  # the MPI::MPI_C above): MPICH through its own pkg-config file.
  pkg_check_modules(MPICH IMPORTED_TARGET mpich)
  if(NOT MPICH_FOUND)
    trnccl_missing("MPICH" "libmpich-dev")
  endif()
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    trnccl_missing("Google Benchmark" "libbenchmark-dev")
  endif()
  find_package(Gloo CONFIG QUIET)  # the all-reduce peer of the tcp transport
  if(NOT Gloo_FOUND)
    trnccl_missing("Gloo" "libgloo-dev")
  endif()
endif()

if(TRNCCL_BUILD_TESTS)
  find_package(Catch2 2.13 QUIET)
  if(NOT Catch2_FOUND)
    trnccl_missing("Catch2 v2" "catch2")
  endif()
  include(Catch)
endif()
