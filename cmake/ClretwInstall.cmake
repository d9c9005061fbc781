# Install rules: the runtime libraries and headers, the built-in decoders, the
# tools, a CMake package (find_package(clretw) with clretw_generate()), a
# pkg-config file, the documentation and examples, and a Debian package through
# cpack -G DEB.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CLRETW_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/clretw" CACHE STRING
    "Where clretwConfig.cmake is installed, relative to the prefix")

# Exported as clretw::core, clretw::nettrace, ..., clretw::runtime, clretw::builtin, clretw::stacks,
# clretw::model, clretw::print, clretw::clretw.
set(clretw_libraries clretw_core clretw_nettrace clretw_etl clretw_diagnostics clretw_inproc clretw_open clretw_runtime
                     clretw_builtin clretw_stacks clretw_model clretw_print clretw)
foreach(lib IN LISTS clretw_libraries)
  string(REGEX REPLACE "^clretw_" "" export_name "${lib}")
  set_target_properties(${lib} PROPERTIES EXPORT_NAME "${export_name}")
endforeach()
install(TARGETS ${clretw_libraries} EXPORT clretwTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
foreach(part core nettrace etl diagnostics inproc open stacks model print)
  install(DIRECTORY "${CLRETW_SOURCE_DIR}/runtime/${part}/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endforeach()
install(DIRECTORY "${CLRETW_SOURCE_DIR}/generated/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")

# The tools; clretw-gen is exported too, as the executable clretw_generate() runs.
if(TARGET clretw-gen)
  set_target_properties(clretw-gen PROPERTIES EXPORT_NAME clretw-gen)
  install(TARGETS clretw-gen EXPORT clretwTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
if(TARGET clretw-dump)
  install(TARGETS clretw-dump clretw-trace clretw-sample RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
# The documentation and the examples, laid out as in the source tree so that README.md's links to docs/ and
# examples/ hold: share/doc/clretw/{README.md,docs/,examples/}.
install(FILES "${CLRETW_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${CLRETW_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")
install(DIRECTORY "${CLRETW_SOURCE_DIR}/examples/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples")
install(DIRECTORY "${CLRETW_SOURCE_DIR}/manifest/" DESTINATION "${CMAKE_INSTALL_DATADIR}/clretw/manifest"
        FILES_MATCHING PATTERN "*.man" PATTERN "*.xml")

install(EXPORT clretwTargets NAMESPACE clretw:: DESTINATION "${CLRETW_INSTALL_CMAKEDIR}")
configure_package_config_file("${CLRETW_SOURCE_DIR}/cmake/clretwConfig.cmake.in"
                              "${CMAKE_CURRENT_BINARY_DIR}/clretwConfig.cmake"
                              INSTALL_DESTINATION "${CLRETW_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/clretwConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/clretwConfig.cmake" "${CMAKE_CURRENT_BINARY_DIR}/clretwConfigVersion.cmake"
              "${CLRETW_SOURCE_DIR}/cmake/ClretwGenerate.cmake"
        DESTINATION "${CLRETW_INSTALL_CMAKEDIR}")

# pkg-config: relocatable (paths relative to the .pc file), static libraries in link order.
set(clretw_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH clretw_pc_to_prefix "/prefix/${clretw_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" clretw_pc_to_prefix "${clretw_pc_to_prefix}")
configure_file("${CLRETW_SOURCE_DIR}/cmake/clretw.pc.in" "${CMAKE_CURRENT_BINARY_DIR}/clretw.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/clretw.pc" DESTINATION "${clretw_pc_dir}")

# cpack -G DEB (run from the build directory): one package with everything above.
set(CPACK_PACKAGE_NAME clretw)
set(CPACK_PACKAGE_VENDOR "clretw")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "clretw developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_STRIP_FILES TRUE)  # debug info stays in the build tree
find_program(CLRETW_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(CLRETW_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the tools' shared libraries (libpugixml, libstdc++, ...)
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), pkg-config")
include(CPack)
