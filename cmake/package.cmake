# SPDX-License-Identifier: MIT
# The Debian package: `cpack -G DEB` in a release build (tests/package/check.sh builds it,
# checks it with lintian, installs, runs and removes it).
#
# glibc's memusage and memusagestat (libc-devtools) and their man pages (manpages) own the
# command names. The package takes them with dpkg-divert --rename: glibc's files move to
# memusage.glibc and memusagestat.glibc while ours is installed, and come back when it is
# removed. (update-alternatives cannot do this: it manages names that every provider
# registers, and libc-devtools installs plain files that dpkg would then fight over.) The
# collector lives in its own directory (MEMUSAGE_COLLECTOR_DIR), never at libc6's
# /usr/lib/<multiarch>/libmemusage.so.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME memusage)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The memusage authors")
set(CPACK_PACKAGE_CONTACT "The memusage authors <maintainers@memusage.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "memory profiler, a drop-in replacement for glibc's memusage")
# The synopsis is the summary above; these are the extended description's paragraphs, which
# CPack indents and whose empty lines it writes as " .", as Debian's control files want.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "memusage tells how much heap and stack a program uses, when, in which
sizes and where in the code, without recompiling it. It keeps the options,
the summary and the data files of the GNU C Library's memusage,
libmemusage.so and memusagestat, and adds allocation sites, leaks, an HTML
report, a live view and exports to pprof, massif, DHAT and folded stacks.

Installing this package moves glibc's memusage and memusagestat aside as
memusage.glibc and memusagestat.glibc; removing it puts them back.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/cmake/debian/preinst ${PROJECT_SOURCE_DIR}/cmake/debian/postrm)

# What Debian's policy asks of every package's documentation: the copyright and a changelog.
set(memusage_package_doc ${PROJECT_BINARY_DIR}/package-doc)
file(MAKE_DIRECTORY ${memusage_package_doc})
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/copyright.in ${memusage_package_doc}/copyright
  @ONLY)
string(TIMESTAMP memusage_package_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${memusage_package_doc}/changelog
  @ONLY)
add_custom_command(OUTPUT ${memusage_package_doc}/changelog.gz
  COMMAND ${MEMUSAGE_GZIP} -9n -c ${memusage_package_doc}/changelog
    > ${memusage_package_doc}/changelog.gz
  DEPENDS ${memusage_package_doc}/changelog)
add_custom_target(memusage_package_doc ALL DEPENDS ${memusage_package_doc}/changelog.gz)
install(FILES ${memusage_package_doc}/copyright ${memusage_package_doc}/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/memusage)

include(CPack)
