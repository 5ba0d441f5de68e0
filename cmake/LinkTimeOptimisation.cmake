# Link-time optimisation of libtrnccl.so. A small collective crosses every
# layer once (API checks, the turn, the schedule cache, the executor, the
# transport's post and wait, the kernel dispatch): dozens of calls between
# translation units that only whole-library optimisation can inline. Measured
# on 2 ranks, 8 B-2 KiB all-reduces: 1.1-1.2x faster per call (README,
# performance).
#
# Those layers' objects carry GCC's intermediate code beside their machine
# code (fat LTO objects): the shared library is optimised as a whole at its
# link, while the static library and the tests that link it use the machine
# code as it is, so no test link redoes the optimisation. The kernels
# themselves are compiled without it (src/device/kernels/CMakeLists.txt):
# they are reached through a table of pointers.
option(TRNCCL_LTO "Build libtrnccl.so with link-time optimisation" ON)

# The layers a small collective crosses on every call, the only ones compiled
# for the optimised link. The others (topology files, schedule building,
# the tcp and ofi transports) run once per communicator or not at all on one
# host, and optimising them again at every link of the library only made a
# one-file change wait longer (with the kernels, also left out, the link took
# 394 s; now about 16 s: docs/building.md).
set(TRNCCL_LTO_LAYERS trnccl_base trnccl_kernels trnccl_device trnccl_transport_shm trnccl_transports
                      trnccl_runtime trnccl_core trnccl_api)

set(TRNCCL_LTO_COMPILE_OPTIONS)
set(TRNCCL_LTO_LINK_OPTIONS)
if(TRNCCL_LTO)
  include(CheckIPOSupported)
  check_ipo_supported(RESULT ipo_ok OUTPUT ipo_why LANGUAGES CXX)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND ipo_ok)
    set(TRNCCL_LTO_COMPILE_OPTIONS -flto=auto -ffat-lto-objects)
    # GCC 12 re-runs its warnings on the code inlined at the link, where
    # libstdc++'s headers are no longer system headers (GCC bug 116515), and
    # -Wstringop-overflow then reports impossible sizes inside std::vector's
    # and std::string's copies (the false positives -Wno-restrict answers at
    # compile time, CMakeLists.txt).
    set(TRNCCL_LTO_LINK_OPTIONS -flto=auto -Wno-stringop-overflow)
  else()
    message(STATUS "TRNCCL_LTO: link-time optimisation needs GCC with LTO support "
                   "(${CMAKE_CXX_COMPILER_ID}: ${ipo_why}); building without it")
  endif()
endif()

function(trnccl_link_time_optimised target)
  set_property(TARGET ${target} PROPERTY TRNCCL_LTO_LINK ON)
  target_link_options(${target} PRIVATE ${TRNCCL_LTO_LINK_OPTIONS})
endfunction()

# What a program of this build that links the layers' objects statically
# adds to its link: -fno-lto, unless it opted in above (GCC's linker plugin
# would otherwise optimise the whole library again at every such link). Not
# exported: the installed static library holds no bytecode (Install.cmake),
# and a consumer's own link-time optimisation is its business.
function(trnccl_static_link_without_lto target)
  if(TRNCCL_LTO_LINK_OPTIONS)
    target_link_options(${target} INTERFACE
      $<BUILD_INTERFACE:$<$<NOT:$<BOOL:$<TARGET_PROPERTY:TRNCCL_LTO_LINK>>>:-fno-lto>>)
  endif()
endfunction()
