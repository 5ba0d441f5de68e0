# The library's layers, each an OBJECT library that sees only the layers it
# names (UCX's rule, enforced by the compiler): a layer's headers are reachable
# only through an include root of its own, which holds nothing but a link to
# the layer's folder (or to the headers it exposes). A layer that includes a
# layer it did not name, above it or beside it, fails to build with "No such
# file". src/api folds every layer's objects into libtrnccl.
#
# trnccl_layer(NAME
#   PREFIX  <how its headers are included: "algorithms", "transports/shm">
#   [FOLDER <its folder; default: the current source folder>]
#   [EXPOSE <the only files of its folder it offers; default: the folder>]
#   [SOURCES <files>]    # none: a header-only interface
#   [PUBLIC  <layers and libraries its headers use>]
#   [PRIVATE <layers and libraries only its sources use>]
#   [OUTSIDE_LIBRARY])   # on top of the library, not part of it (the simulator)
#
# The rules also go to ${PROJECT_BINARY_DIR}/layers.txt, a line per layer with
# sources: its folder, its name, then every include path it may use (a folder
# ends in "/"). tests/layering checks every #include of the tree against them,
# including headers that no source compiles.
function(trnccl_layer name)
  cmake_parse_arguments(ARG "OUTSIDE_LIBRARY" "PREFIX;FOLDER" "EXPOSE;SOURCES;PUBLIC;PRIVATE" ${ARGN})
  if(NOT ARG_FOLDER)
    set(ARG_FOLDER ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(root ${PROJECT_BINARY_DIR}/layer_includes/${name})
  set(reach ${root}/${ARG_PREFIX})
  file(REMOVE_RECURSE ${root})
  if(ARG_EXPOSE)
    file(MAKE_DIRECTORY ${reach})
    set(exports)
    foreach(file ${ARG_EXPOSE})
      file(CREATE_LINK ${ARG_FOLDER}/${file} ${reach}/${file} SYMBOLIC)
      list(APPEND exports ${ARG_PREFIX}/${file})
    endforeach()
  else()
    get_filename_component(parent ${reach} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${ARG_FOLDER} ${reach} SYMBOLIC)
    set(exports ${ARG_PREFIX}/)
  endif()

  if(ARG_SOURCES)
    add_library(${name} OBJECT ${ARG_SOURCES})
    target_include_directories(${name} PUBLIC ${root})
    target_link_libraries(${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE} trnccl_warnings)
    if(NOT ARG_OUTSIDE_LIBRARY)
      if(name IN_LIST TRNCCL_LTO_LAYERS)
        target_compile_options(${name} PRIVATE ${TRNCCL_LTO_COMPILE_OPTIONS})
      endif()
      set_property(GLOBAL APPEND PROPERTY TRNCCL_LAYERS ${name})
    endif()
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${root})
    target_link_libraries(${name} INTERFACE ${ARG_PUBLIC})
  endif()

  # What this layer may include, and what a layer that names it may include.
  set(sees ${exports})
  foreach(dep ${ARG_PUBLIC} ${ARG_PRIVATE})
    get_property(is_layer GLOBAL PROPERTY TRNCCL_LAYER_EXPORTS_${dep} SET)
    if(is_layer)
      get_property(dep_exports GLOBAL PROPERTY TRNCCL_LAYER_EXPORTS_${dep})
      list(APPEND sees ${dep_exports})
      if(dep IN_LIST ARG_PUBLIC)
        list(APPEND exports ${dep_exports})
      endif()
    elseif(NOT ARG_OUTSIDE_LIBRARY)
      set_property(GLOBAL APPEND PROPERTY TRNCCL_LINKS ${dep})  # a third-party library
    endif()
  endforeach()
  list(REMOVE_DUPLICATES exports)
  list(REMOVE_DUPLICATES sees)
  set_property(GLOBAL PROPERTY TRNCCL_LAYER_EXPORTS_${name} ${exports})
  if(ARG_SOURCES)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${ARG_FOLDER})
    list(JOIN sees " " sees_text)
    set_property(GLOBAL APPEND_STRING PROPERTY TRNCCL_LAYER_RULES "${folder} ${name} ${sees_text}\n")
  endif()
endfunction()

# Writes layers.txt once every layer is declared.
function(trnccl_write_layer_rules)
  get_property(rules GLOBAL PROPERTY TRNCCL_LAYER_RULES)
  file(WRITE ${PROJECT_BINARY_DIR}/layers.txt "${rules}")
endfunction()
