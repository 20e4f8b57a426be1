# Installer packages: DEB, RPM and TGZ from this one CPack configuration (scripts/package.sh
# builds them all). Included at the end of the top-level CMakeLists.txt, when every install
# rule exists.
#
#   pyramidchat       the programs (desktop app and command-line tools) with the CPU
#                     backend, desktop integration and man pages: every install rule that names
#                     no component
#   pyramidchat-cuda  the CUDA backend plugin (install component `cuda`), only where this tree
#                     builds it (PYRAMID_CUDA_ENABLED). It does not bundle the CUDA runtime or
#                     cuBLAS: it depends on the NVIDIA packages that provide them.
#
# The programs look for the CUDA plugin in the libdir of CMAKE_INSTALL_PREFIX, so packages for
# /usr must come from a tree configured with CMAKE_INSTALL_PREFIX=/usr (scripts/package.sh does).

set(PYRAMID_PACKAGE_MAINTAINER "PyramidChat developers <pyramidchat@users.noreply.github.com>"
    CACHE STRING "Maintainer named in the packages (Name <address>)")
set(PYRAMID_PACKAGE_RELEASE 1 CACHE STRING "Package release number (the Debian revision, the RPM release)")
set(PYRAMID_HOMEPAGE_URL "https://github.com/pyramidchat/pyramidchat" CACHE STRING "The project's web page")
set(PYRAMID_SCREENSHOT_URL "${PYRAMID_HOMEPAGE_URL}/raw/main/docs/screenshots" CACHE STRING
    "Where the files of docs/screenshots are published (AppStream metainfo)")

# Install rules without a COMPONENT land in CMake's default component: that is the main package.
if(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME)
  set(PYRAMID_MAIN_COMPONENT "${CMAKE_INSTALL_DEFAULT_COMPONENT_NAME}")
else()
  set(PYRAMID_MAIN_COMPONENT Unspecified)
endif()
string(TOUPPER "${PYRAMID_MAIN_COMPONENT}" main)

include("${CMAKE_CURRENT_LIST_DIR}/InstallData.cmake")

if(PYRAMID_CUDA_ENABLED AND NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "Packages from this tree install into /usr but its programs look for the CUDA "
                 "backend under ${CMAKE_INSTALL_PREFIX}: use scripts/package.sh for packages to ship")
endif()

set(CPACK_PACKAGE_NAME pyramidchat)
set(CPACK_PACKAGE_VENDOR "PyramidChat developers")
set(CPACK_PACKAGE_CONTACT "${PYRAMID_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PYRAMID_HOMEPAGE_URL}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)  # the tarballs hold usr/... like the packages
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/packages")
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/CPackOptions.cmake")

set(CPACK_GENERATOR DEB TGZ)
find_program(PYRAMID_RPMBUILD rpmbuild)
if(PYRAMID_RPMBUILD)
  list(APPEND CPACK_GENERATOR RPM)
else()
  message(STATUS "rpmbuild not found: no RPM packages (install the Debian package rpm for them)")
endif()

set(CPACK_COMPONENTS_ALL ${PYRAMID_MAIN_COMPONENT})
if(PYRAMID_CUDA_ENABLED)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
else()
  message(STATUS "The CUDA backend is not built: the packages are pyramidchat only, without pyramidchat-cuda")
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)

# Package descriptions: a synopsis line, then the long description wrapped for Debian.
set(main_summary "local LLaMA-family chat with a PyramidInfer-compressed KV cache")
string(JOIN "\n" main_description
  "Chat with SmolLM2, LLaMA-2-Chat and other LLaMA-family models on this"
  "computer. PyramidInfer compresses the KV cache layer by layer, so a"
  "conversation takes far less memory; the desktop app shows the per-layer"
  "cache lengths live. Also"
  "pyramid-cli (chat in a terminal), pyramid-server (a local OpenAI-compatible"
  "HTTP API with continuous batching) and pyramid-eval (perplexity of the"
  "compression policies). Runs on the CPU; pyramidchat-cuda adds NVIDIA GPUs.")
set(cuda_summary "CUDA backend for PyramidChat")
string(JOIN "\n" cuda_description
  "Runs PyramidChat's models on an NVIDIA GPU: fp16 or fp32 weights, cuBLAS"
  "projections and a block-pooled KV cache. pyramidchat, pyramid-cli,"
  "pyramid-server and pyramid-eval load it at start when a GPU is present"
  "(--device cuda or auto).")

# The CUDA runtime and cuBLAS come from their own packages, named after the version this tree
# was built with: Debian's (libcudart12, libcublas12; CUDA 11 has libcudart11.0) or NVIDIA's
# repository's (cuda-cudart-13-0, libcublas-13-0).
if(PYRAMID_CUDA_ENABLED)
  set(cuda_major "${CUDAToolkit_VERSION_MAJOR}")
  set(cuda_series "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  set(cudart_soversion "${cuda_major}")
  if(cuda_major EQUAL 11)
    set(cudart_soversion "11.0")
  endif()
  set(PYRAMID_CUDA_DEB_DEPENDS
      "libcudart${cudart_soversion} | cuda-cudart-${cuda_series}, libcublas${cuda_major} | libcublas-${cuda_series}")
  set(PYRAMID_CUDA_RPM_REQUIRES "cuda-cudart-${cuda_series}, libcublas-${cuda_series}")
endif()
set(package_version "${PROJECT_VERSION}-${PYRAMID_PACKAGE_RELEASE}")

# DEB
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${PYRAMID_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PYRAMID_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_${main}_PACKAGE_NAME pyramidchat)
set(CPACK_DEBIAN_${main}_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_${main}_DESCRIPTION "${main_summary}\n${main_description}")
# Libraries come from dpkg-shlibdeps; QML modules and Qt plugins are loaded at run time, so
# they are named here (Qt's own file dialogs, drawn where no native one exists, need
# Qt.labs.folderlistmodel). The code blocks' highlighting reads Source-highlight's language
# definitions at run time, so their package is named too.
set(CPACK_DEBIAN_${main}_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_${main}_PACKAGE_DEPENDS
    "qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-templates, \
qml6-module-qtquick-layouts, qml6-module-qtquick-window, qml6-module-qtquick-dialogs, \
qml6-module-qtqml-workerscript, qml6-module-qt-labs-folderlistmodel, libqt6sql6-sqlite, libqt6svg6, \
libsource-highlight-common")
# Qt's own translations, for the standard dialogs in German and Chinese; Qt's Wayland client,
# without which a Wayland session runs the app through XWayland (blurred when scaled, and no
# activation token: a second start cannot bring the window forward).
set(CPACK_DEBIAN_${main}_PACKAGE_RECOMMENDS "qt6-translations-l10n, qt6-wayland")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME pyramidchat-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION contrib/utils)  # it depends on non-free packages
set(CPACK_DEBIAN_CUDA_DESCRIPTION "${cuda_summary}\n${cuda_description}")
# dpkg-shlibdeps cannot resolve CUDA libraries that no Debian package owns (NVIDIA's installer),
# so the dependencies are declared; the exact pyramidchat brings the same libraries as the
# programs, and libc6 is named for the plugin's own use of it.
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "pyramidchat (= ${package_version}), libc6, ${PYRAMID_CUDA_DEB_DEPENDS}")

# RPM (library requirements are found by rpmbuild itself)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE ${PYRAMID_PACKAGE_RELEASE})
set(CPACK_RPM_PACKAGE_LICENSE "MIT")
set(CPACK_RPM_PACKAGE_URL "${PYRAMID_HOMEPAGE_URL}")
set(CPACK_RPM_PACKAGE_GROUP "Applications/Productivity")
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")  # no debuginfo packages to link to
set(CPACK_RPM_${main}_PACKAGE_NAME pyramidchat)
set(CPACK_RPM_${main}_PACKAGE_SUMMARY "${main_summary}")
set(CPACK_RPM_${main}_PACKAGE_DESCRIPTION "${main_description}")
set(CPACK_RPM_${main}_PACKAGE_REQUIRES "qt6-qtdeclarative, qt6-qtsvg, source-highlight")
set(CPACK_RPM_CUDA_PACKAGE_NAME pyramidchat-cuda)
set(CPACK_RPM_CUDA_PACKAGE_SUMMARY "${cuda_summary}")
set(CPACK_RPM_CUDA_PACKAGE_DESCRIPTION "${cuda_description}")
set(CPACK_RPM_CUDA_PACKAGE_REQUIRES "pyramidchat = ${package_version}, ${PYRAMID_CUDA_RPM_REQUIRES}")
# Folders the system's own packages own.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/applications /usr/share/metainfo /usr/share/man /usr/share/man/man1 /usr/share/icons
    /usr/share/icons/hicolor /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
foreach(size IN LISTS PYRAMID_ICON_SIZES ITEMS scalable)
  set(folder "${size}x${size}")
  if(size STREQUAL "scalable")
    set(folder "scalable")
  endif()
  list(APPEND CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
       "/usr/share/icons/hicolor/${folder}" "/usr/share/icons/hicolor/${folder}/apps")
endforeach()

# TGZ
set(CPACK_ARCHIVE_${main}_FILE_NAME "pyramidchat-${PROJECT_VERSION}-Linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_ARCHIVE_CUDA_FILE_NAME "pyramidchat-cuda-${PROJECT_VERSION}-Linux-${CMAKE_SYSTEM_PROCESSOR}")

if(PYRAMID_CUDA_ENABLED)
  pyramid_install_package_docs(pyramidchat-cuda cuda)
endif()

include(CPack)
cpack_add_component(${PYRAMID_MAIN_COMPONENT} DISPLAY_NAME "PyramidChat" REQUIRED)
if(PYRAMID_CUDA_ENABLED)
  cpack_add_component(cuda DISPLAY_NAME "PyramidChat CUDA backend" DEPENDS ${PYRAMID_MAIN_COMPONENT})
endif()
