# SPDX-License-Identifier: MIT
# The man pages, installed compressed as Debian's policy asks (gzip -9n: no name or time
# stamp inside, so two builds give the same bytes).
find_program(MEMUSAGE_GZIP gzip REQUIRED)
set(memusage_man_pages memusage.1 memusagestat.1)
set(memusage_compressed_pages)
foreach(page IN LISTS memusage_man_pages)
  set(compressed ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${compressed}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${MEMUSAGE_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/man/${page} > ${compressed}
    DEPENDS ${PROJECT_SOURCE_DIR}/man/${page}
    COMMENT "Compressing man/${page}")
  list(APPEND memusage_compressed_pages ${compressed})
endforeach()
add_custom_target(memusage_man_pages ALL DEPENDS ${memusage_compressed_pages})
install(FILES ${memusage_compressed_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
