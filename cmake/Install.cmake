include(CMakePackageConfigHelpers)
install(TARGETS spkit EXPORT spkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS spkit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The harness (include/spkit/harness) is built for the CLI, the Python package and the tests only: not installed.
install(DIRECTORY include/spkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp"
        PATTERN "harness" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/spkit/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spkit)
install(EXPORT spkitTargets NAMESPACE spkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spkit)
configure_package_config_file(cmake/spkitConfig.cmake.in ${PROJECT_BINARY_DIR}/spkitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spkit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spkitConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spkitConfig.cmake ${PROJECT_BINARY_DIR}/spkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spkit)
