# Debian packages from the build (cpack -G DEB, run from the build folder):
#   libtrnccl0          the shared library and the topology files it reads
#   libtrnccl-dev       header, static library, CMake package, pkg-config file
#   trnccl-tools        trnccl-ls, trnccl-sim, trnccl-doctor, trnccl-trace, trnccl-perf,
#                       trnccl-nccom-test
#   python3-trnccl-torch  the PyTorch backend, when it is built
# Each installs under /usr; the library finds its topologies relative to
# itself (src/topology/load.cc), so the build's own install prefix does not
# matter. dpkg-shlibdeps works out the dependencies on Debian's libraries
# (libfabric, hwloc, Open MPI, libtorch) from what each file links.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trnccl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Who packaged it: set it to a real address when building packages to ship.
set(TRNCCL_DEB_MAINTAINER "trnccl developers <trnccl@localhost>" CACHE STRING "Maintainer of the Debian packages")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TRNCCL_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/trnccl")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A shlibs file and the ldconfig trigger for libtrnccl0; stripped binaries.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
# The packages' own libtrnccl.so.0 is found here while the others' dependencies are worked out.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/src/api)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libtrnccl${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/triggers)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "trnccl collective communication library")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libtrnccl-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
# What a static link and trnccl.pc's Requires.private need.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libfabric-dev, libhwloc-dev, libssl-dev, zlib1g-dev, nlohmann-json3-dev")
set(CPACK_COMPONENT_DEV_DESCRIPTION "trnccl collective communication library (development files)")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME trnccl-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)  # the topology files
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "trnccl tools: ls, sim, doctor, trace, perf, nccom-test")

if(TRNCCL_TORCH_BUILT)
  list(APPEND CPACK_COMPONENTS_ALL torch)
  set(CPACK_DEBIAN_TORCH_PACKAGE_NAME python3-trnccl-torch)
  set(CPACK_DEBIAN_TORCH_PACKAGE_SECTION python)
  set(CPACK_COMPONENT_TORCH_DEPENDS runtime)
  set(CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS "python3, python3-torch")
  set(CPACK_COMPONENT_TORCH_DESCRIPTION "trnccl PyTorch process-group backend (trnccl_torch)")
endif()

# Each package's Debian changelog (a native package's, compressed as policy asks).
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${PROJECT_BINARY_DIR}/debian/changelog @ONLY)
execute_process(COMMAND gzip -9nf ${PROJECT_BINARY_DIR}/debian/changelog)
foreach(component ${CPACK_COMPONENTS_ALL})
  string(TOUPPER ${component} upper)
  install(FILES ${PROJECT_BINARY_DIR}/debian/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${CPACK_DEBIAN_${upper}_PACKAGE_NAME} COMPONENT ${component})
endforeach()

include(CPack)
