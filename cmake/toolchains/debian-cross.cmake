# Cross-building for a board with Debian's cross compilers (g++-<triplet>) and the target's
# libraries from Debian's multiarch packages (libunwind-dev:arm64, ...). Included by the
# per-architecture files, which set MEMUSAGE_TRIPLET and MEMUSAGE_PROCESSOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${MEMUSAGE_PROCESSOR})
set(CMAKE_C_COMPILER ${MEMUSAGE_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${MEMUSAGE_TRIPLET}-g++)
set(CMAKE_STRIP ${MEMUSAGE_TRIPLET}-strip)
# Multiarch: the target's libraries live in /usr/lib/<triplet>, its C library and C++
# runtime in the cross toolchain's own /usr/<triplet>.
# (Debian names 32-bit x86's multiarch i386-linux-gnu, its cross compiler i686-linux-gnu.)
if(NOT MEMUSAGE_MULTIARCH)
  set(MEMUSAGE_MULTIARCH ${MEMUSAGE_TRIPLET})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE ${MEMUSAGE_MULTIARCH})
# Programs of the target run on this machine through qemu-user, which finds the target's
# dynamic loader and libraries under -L: Debian's multiarch C library (at the board's
# paths) where Debian has one; riscv64's files set the cross compiler's own.
if(NOT MEMUSAGE_QEMU_ROOT)
  set(MEMUSAGE_QEMU_ROOT /)
endif()
find_program(MEMUSAGE_QEMU qemu-${MEMUSAGE_QEMU_ARCH}-static)
if(MEMUSAGE_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MEMUSAGE_QEMU} -L ${MEMUSAGE_QEMU_ROOT})
endif()
# memusagestat for a board (the aarch64-stat, armhf-stat and i686-stat presets) compiles
# against a sysroot of the board's -dev packages, unpacked by board_sysroot.sh: pkg-config
# reads the board's .pc files there, and programs (pkg-config, node) are this machine's.
if(CMAKE_SYSROOT)
  if(NOT EXISTS ${CMAKE_SYSROOT}/.packages)
    message(FATAL_ERROR "No sysroot of the board's packages in ${CMAKE_SYSROOT}: make it with "
                        "cmake/toolchains/board_sysroot.sh aarch64|armhf|i686 "
                        "${CMAKE_SYSROOT}")
  endif()
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${CMAKE_SYSROOT})
  set(ENV{PKG_CONFIG_LIBDIR}
      ${CMAKE_SYSROOT}/usr/lib/${MEMUSAGE_MULTIARCH}/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig)
  set(PKG_CONFIG_EXECUTABLE /usr/bin/pkg-config CACHE FILEPATH "this machine's pkg-config")
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
endif()
