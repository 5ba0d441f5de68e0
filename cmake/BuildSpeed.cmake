# What keeps a fresh build short on a 2-core machine (docs/building.md;
# scripts/build_profile.sh shows where the time goes).

# Unity builds: each target's sources compiled eight to a translation unit,
# so the headers they share (the layers', the standard library's, nlohmann
# json's, CLI11's) are parsed once per eight files instead of once per file.
# Most of a small source's compile was those headers. A source whose own
# options differ (the kernel parts, compiled per ISA) stays on its own, as
# does one marked SKIP_UNITY_BUILD_INCLUSION.
option(TRNCCL_UNITY_BUILD "Compile each target's sources in batches of eight" ON)
set(CMAKE_UNITY_BUILD ${TRNCCL_UNITY_BUILD})
set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
if(TRNCCL_UNITY_BUILD)
  # A class with a member of a type from an anonymous namespace is reported
  # when it is defined outside the main file, which every source of a batch
  # is; it is right where each source is compiled alone.
  add_compile_options(-Wno-subobject-linkage)
endif()

# mold, where Debian's package is installed, links every program and the
# shared library (GCC's link-time optimisation included, through GCC's linker
# plugin): the 40-odd test and tool programs each link the library's objects.
option(TRNCCL_MOLD "Link with mold when it is installed" ON)
find_program(TRNCCL_MOLD_PROGRAM mold)
if(TRNCCL_MOLD AND TRNCCL_MOLD_PROGRAM AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_link_options(-fuse-ld=mold)
endif()
