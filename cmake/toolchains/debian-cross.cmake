# SPDX-License-Identifier: MIT
# Cross-building for a board with Debian's cross compilers (g++-<triplet>) and the target's
# libraries from Debian's packages of its architecture (libboost-program-options1.74.0:arm64,
# ...), unpacked into the board's root. Included by the
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
# dynamic loader and libraries under -L: the board's root (MEMUSAGE_BOARD_ROOT, the presets'
# build/<preset>-root: Debian's packages of the board unpacked by
# `board_sysroot.sh --run-time`, never installed), where the driver's cross build finds the
# board's Boost.Program_options and ncurses too; riscv64's files set a root of their own.
if(NOT MEMUSAGE_QEMU_ROOT)
  if(MEMUSAGE_BOARD_ROOT AND EXISTS ${MEMUSAGE_BOARD_ROOT}/.packages)
    set(MEMUSAGE_QEMU_ROOT ${MEMUSAGE_BOARD_ROOT})
    # Debian 12's libraries are at the board's /usr/lib/<triplet> and, for the C library
    # and ncurses, /lib/<triplet>.
    list(APPEND CMAKE_PREFIX_PATH ${MEMUSAGE_BOARD_ROOT}/usr ${MEMUSAGE_BOARD_ROOT})
  else()
    set(MEMUSAGE_QEMU_ROOT /)
  endif()
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
