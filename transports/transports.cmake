# The transports, in the order of the list (factory.h): each is the folder
# transports/<name> (its CMakeLists defines trnccl_transport_<name>), whose
# source registers it with TRNCCL_REGISTER_TRANSPORT(<name>, ...)
# (registration.h), and its tests are tests/transports/<name>/*.cc. Adding a
# transport is its folders and its name here.
set(TRNCCL_TRANSPORTS shm ofi tcp)

# Writes the list of registration functions factory.cc includes.
function(trnccl_transport_list source)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/registry_generated)
  set(lines "// Written by transports/transports.cmake from TRNCCL_TRANSPORTS.\n")
  foreach(transport ${TRNCCL_TRANSPORTS})
    string(APPEND lines "TRNCCL_TRANSPORT_FOLDER(${transport})\n")
  endforeach()
  # CONFIGURE rewrites the file only when it changes: no needless rebuilds.
  file(CONFIGURE OUTPUT ${generated}/registered_transports.inc CONTENT "${lines}" @ONLY)
  set_property(SOURCE ${source} APPEND PROPERTY INCLUDE_DIRECTORIES ${generated})
endfunction()
