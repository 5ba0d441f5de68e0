# Collects the settings the library's sources declare (TRNCCL_SETTING in
# src/base/settings.h) into the list src/core/declared_settings.cc includes,
# a line "TRNCCL_DECLARED(<name>)" per declaration, sorted.
#
# As a function, trnccl_declared_settings(<target>) (called once every layer
# below the target is declared) adds the build step to <target>: it scans the
# sources of every library layer whenever one changes, and rewrites the list
# only when a declaration came or went, so no needless rebuild follows.
# As a script (cmake -P), it is that step: -DSOURCES_FILE=<a file listing the
# sources, one a line> -DOUTPUT=<the list to write>.
if(CMAKE_SCRIPT_MODE_FILE)
  file(STRINGS ${SOURCES_FILE} sources)
  set(names)
  foreach(source ${sources})
    file(STRINGS ${source} lines REGEX "TRNCCL_SETTING\\([A-Za-z0-9_]+, *TRNCCL_[A-Z0-9_]+")
    foreach(line ${lines})
      string(REGEX MATCH "TRNCCL_SETTING\\([A-Za-z0-9_]+, *(TRNCCL_[A-Z0-9_]+)" match "${line}")
      list(APPEND names ${CMAKE_MATCH_1})
    endforeach()
  endforeach()
  list(SORT names)
  set(text "// Written by cmake/DeclaredSettings.cmake from the TRNCCL_SETTING declarations.\n")
  foreach(name ${names})
    string(APPEND text "TRNCCL_DECLARED(${name})\n")
  endforeach()
  file(CONFIGURE OUTPUT ${OUTPUT} CONTENT "${text}" @ONLY)  # rewritten only when it changes
  return()
endif()

function(trnccl_declared_settings target)
  get_property(layers GLOBAL PROPERTY TRNCCL_LAYERS)
  set(sources)
  foreach(layer ${layers})
    get_target_property(dir ${layer} SOURCE_DIR)
    get_target_property(files ${layer} SOURCES)
    foreach(file ${files})
      if(NOT IS_ABSOLUTE ${file})
        set(file ${dir}/${file})
      endif()
      list(APPEND sources ${file})
    endforeach()
  endforeach()
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/declared_settings_generated)
  list(JOIN sources "\n" lines)
  file(CONFIGURE OUTPUT ${generated}/sources.txt CONTENT "${lines}\n" @ONLY)
  add_custom_command(OUTPUT ${generated}/declared_settings.inc
    COMMAND ${CMAKE_COMMAND} -DSOURCES_FILE=${generated}/sources.txt -DOUTPUT=${generated}/declared_settings.inc
            -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    DEPENDS ${sources} ${generated}/sources.txt ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    COMMENT "Collecting the declared TRNCCL_* settings")
  target_sources(${target} PRIVATE ${generated}/declared_settings.inc)
  target_include_directories(${target} PRIVATE ${generated})
endfunction()
