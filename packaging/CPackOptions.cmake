# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE), after CPackConfig.cmake.

# The DEB generator puts the project-wide summary in front of every package's description;
# each package here has a description with its own synopsis line.
if(CPACK_GENERATOR STREQUAL "DEB")
  unset(CPACK_PACKAGE_DESCRIPTION_SUMMARY)
endif()
