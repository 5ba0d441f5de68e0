# trnccl_layer(NAME SOURCES ... [LINKS ...]): one architectural layer, built as
# an OBJECT library; src/api folds every layer's objects into libtrnccl (shared
# and static) and links the third-party libraries the layers named.
function(trnccl_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINKS" ${ARGN})
  add_library(${name} OBJECT ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_LINKS} PRIVATE trnccl_warnings)
  set_property(GLOBAL APPEND PROPERTY TRNCCL_LAYERS ${name})
  set_property(GLOBAL APPEND PROPERTY TRNCCL_LINKS ${ARG_LINKS})
endfunction()
