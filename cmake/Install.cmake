# cmake --install: the library (shared + static), the header, a CMake package
# (find_package(trnccl) -> trnccl::trnccl, trnccl::trnccl_static) and trnccl.pc.
include(CMakePackageConfigHelpers)

# Components, one Debian package each (cmake/Packaging.cmake): runtime (the
# shared library and the topologies it reads), dev (everything to build
# against it), tools, torch.
install(TARGETS trnccl trnccl_static EXPORT trncclTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The static library's objects carry GCC's LTO bytecode beside their machine
# code (cmake/LinkTimeOptimisation.cmake). The installed copy keeps only the
# machine code, as Debian's dh_strip does for static libraries: a program
# linked against it gets that code whatever compiler builds it, not a
# bytecode-version error or a whole-library optimisation at every link.
if(TRNCCL_LTO_LINK_OPTIONS)
  install(CODE "execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --wildcard -R .gnu.lto_* -R .gnu.debuglto_*
                  -N __gnu_lto_v1 -N __gnu_lto_slim
                  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:trnccl_static>\"
                  COMMAND_ERROR_IS_FATAL ANY)"
          COMPONENT dev)
endif()
install(DIRECTORY include/trnccl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

set(TRNCCL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/trnccl)
install(EXPORT trncclTargets NAMESPACE trnccl:: DESTINATION ${TRNCCL_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/trncclConfig.cmake.in
  ${PROJECT_BINARY_DIR}/trncclConfig.cmake INSTALL_DESTINATION ${TRNCCL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trncclConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/trncclConfig.cmake ${PROJECT_BINARY_DIR}/trncclConfigVersion.cmake
  DESTINATION ${TRNCCL_CMAKE_DIR} COMPONENT dev)

file(RELATIVE_PATH TRNCCL_PC_INCLUDE_FROM_PC
  ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(cmake/trnccl.pc.in ${PROJECT_BINARY_DIR}/trnccl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/trnccl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
