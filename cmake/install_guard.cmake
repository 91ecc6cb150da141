# SPDX-License-Identifier: MIT
# Run by `cmake --install` before anything is written: stops when a file the project would
# install is already owned by a Debian package (libc-devtools owns /usr/bin/memusage and
# /usr/bin/memusagestat, manpages-dev their pages). Writing over them would silently replace
# glibc's tools until the next update of that package put them back, wrong. The Debian
# package (cpack -G DEB in the build) moves them aside with dpkg-divert instead.
# A staged install (DESTDIR, as cpack does) writes no system path: nothing to check.
if(NOT "$ENV{DESTDIR}" STREQUAL "")
  return()
endif()
find_program(memusage_dpkg_query dpkg-query)
if(NOT memusage_dpkg_query)
  return()
endif()
foreach(relative IN LISTS memusage_guarded_paths)
  if(IS_ABSOLUTE "${relative}")
    set(path "${relative}")
  else()
    set(path "${CMAKE_INSTALL_PREFIX}/${relative}")
  endif()
  execute_process(COMMAND ${memusage_dpkg_query} -S "${path}"
    OUTPUT_VARIABLE owners RESULT_VARIABLE not_owned ERROR_QUIET)
  if(NOT not_owned)
    # "package: /path" lines; diversion lines name the diverting package too.
    string(REGEX MATCH "(^|\n)([^:\n]+): ${path}" owner_line "${owners}")
    set(owner "${CMAKE_MATCH_2}")
    message(FATAL_ERROR "memusage: not installing: ${path} belongs to the Debian package "
      "'${owner}'. Install memusage's Debian package instead (cpack -G DEB in the build "
      "directory; it keeps glibc's tools aside and puts them back on removal), or choose "
      "another prefix (cmake --install BUILD --prefix /usr/local).")
  endif()
endforeach()
