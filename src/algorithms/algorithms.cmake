# The algorithms, in any order (the tuner's tie rule is registry.h's
# preferredOnTie): each is src/algorithms/<name>.cc, which registers what it
# offers with TRNCCL_REGISTER_ALGORITHMS(<name>, ...) (registry.h). Adding an
# algorithm is its file and its name here. Included by src/algorithms and by the fuzz
# targets' own project (tests/fuzz/project).
set(TRNCCL_ALGORITHMS ring bidir_ring torus2d rdh mesh kangaring hierarchical direct)

# Sets `out` to the sources of the algorithms and of the registry, and writes
# the list of algorithm files registry.cc includes.
function(trnccl_algorithm_sources out)
  set(dir ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/registry_generated)
  set(lines "// Written by src/algorithms/algorithms.cmake from TRNCCL_ALGORITHMS.\n")
  set(sources ${dir}/registry.cc)
  foreach(algorithm ${TRNCCL_ALGORITHMS})
    string(APPEND lines "TRNCCL_ALGORITHM_FILE(${algorithm})\n")
    list(APPEND sources ${dir}/${algorithm}.cc)
  endforeach()
  # CONFIGURE rewrites the file only when it changes: no needless rebuilds.
  file(CONFIGURE OUTPUT ${generated}/registered_algorithm_files.inc CONTENT "${lines}" @ONLY)
  set_property(SOURCE ${dir}/registry.cc APPEND PROPERTY INCLUDE_DIRECTORIES ${generated})
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
