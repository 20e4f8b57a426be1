# Install rules for everything the packages hold besides the programs: desktop integration
# (desktop entry, AppStream metainfo, icons), man pages, and the Debian copyright, changelog
# and lintian overrides.
# The files that need a build step (PNG icons, compressed man pages) are made by the target
# `pyramid_package_data`, part of the default build.
#
# Inputs: PYRAMID_MAIN_COMPONENT (the install component of the main package),
#         PYRAMID_PACKAGE_MAINTAINER, PYRAMID_PACKAGE_RELEASE, PYRAMID_HOMEPAGE_URL,
#         PYRAMID_SCREENSHOT_URL.

set(PYRAMID_APP_ID "org.pyramidchat.PyramidChat")
set(PYRAMID_ICON_SIZES 16 22 24 32 48 64 128 256 512)  # bitmap sizes of the hicolor icon
set(pyramid_data_dir "${CMAKE_BINARY_DIR}/packaging")
set(pyramid_data_outputs "")

# Man pages, compressed the way Debian wants them (gzip -9n: no name, no time stamp): man/NAME.1
# for each program NAME that this tree builds (lintian reports a program without one).
set(pyramid_man_pages "")
file(GLOB man_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/man/*.1")
foreach(source IN LISTS man_sources)
  get_filename_component(program "${source}" NAME_WE)
  if(TARGET ${program})
    set(page "${pyramid_data_dir}/man/${program}.1")
    add_custom_command(OUTPUT "${page}.gz"
      COMMAND "${CMAKE_COMMAND}" -E copy "${source}" "${page}"
      COMMAND gzip -9nf "${page}"
      DEPENDS "${source}"
      COMMENT "Compressing the man page of ${program}"
      VERBATIM)
    list(APPEND pyramid_man_pages "${page}.gz")
  endif()
endforeach()
list(APPEND pyramid_data_outputs ${pyramid_man_pages})
install(FILES ${pyramid_man_pages} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT ${PYRAMID_MAIN_COMPONENT})

# Debian wants a copyright file and a compressed changelog in every package's doc folder.
configure_file("${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in" "${pyramid_data_dir}/debian/changelog.Debian" @ONLY)
add_custom_command(OUTPUT "${pyramid_data_dir}/debian/changelog.Debian.gz"
  COMMAND gzip -9nkf "${pyramid_data_dir}/debian/changelog.Debian"
  DEPENDS "${pyramid_data_dir}/debian/changelog.Debian"
  VERBATIM)
list(APPEND pyramid_data_outputs "${pyramid_data_dir}/debian/changelog.Debian.gz")

# pyramid_install_package_docs(PACKAGE COMPONENT): the doc files of one package, and its
# lintian overrides.
function(pyramid_install_package_docs package component)
  install(FILES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/debian/copyright" "${pyramid_data_dir}/debian/changelog.Debian.gz"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/${package}" COMPONENT ${component})
  install(FILES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/lintian/${package}"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/lintian/overrides" COMPONENT ${component})
endfunction()
pyramid_install_package_docs(pyramidchat ${PYRAMID_MAIN_COMPONENT})

# Desktop integration, only with the desktop app.
if(TARGET pyramidchat)
  install(FILES "${PROJECT_SOURCE_DIR}/resources/${PYRAMID_APP_ID}.desktop"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/applications" COMPONENT ${PYRAMID_MAIN_COMPONENT})

  configure_file("${PROJECT_SOURCE_DIR}/resources/${PYRAMID_APP_ID}.metainfo.xml.in"
                 "${pyramid_data_dir}/${PYRAMID_APP_ID}.metainfo.xml" @ONLY)
  install(FILES "${pyramid_data_dir}/${PYRAMID_APP_ID}.metainfo.xml"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo" COMPONENT ${PYRAMID_MAIN_COMPONENT})

  # Bitmap icons for the hicolor theme, drawn from the SVG (which app/desktop installs as the
  # scalable icon) by a small Qt program.
  find_package(Qt6 6.4 REQUIRED COMPONENTS Gui Svg)
  add_executable(pyramid-render-icon "${CMAKE_CURRENT_LIST_DIR}/render_icon.cpp")
  target_link_libraries(pyramid-render-icon PRIVATE Qt6::Gui Qt6::Svg)
  set(icon_svg "${PROJECT_SOURCE_DIR}/resources/pyramidchat.svg")
  foreach(size IN LISTS PYRAMID_ICON_SIZES)
    set(png "${pyramid_data_dir}/icons/${size}x${size}/pyramidchat.png")
    add_custom_command(OUTPUT "${png}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${pyramid_data_dir}/icons/${size}x${size}"
      COMMAND pyramid-render-icon "${icon_svg}" ${size} "${png}"
      DEPENDS pyramid-render-icon "${icon_svg}"
      VERBATIM)
    list(APPEND pyramid_data_outputs "${png}")
    install(FILES "${png}" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps"
            COMPONENT ${PYRAMID_MAIN_COMPONENT})
  endforeach()
endif()

add_custom_target(pyramid_package_data ALL DEPENDS ${pyramid_data_outputs})
