# SPDX-License-Identifier: MIT
# armv7l boards (Debian's g++-arm-linux-gnueabihf): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET arm-linux-gnueabihf)
set(MEMUSAGE_PROCESSOR armv7l)
set(MEMUSAGE_QEMU_ARCH arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
# GCC says at every std::vector iterator passed by value that ARM's passing of such
# arguments changed in GCC 7.1: it matters only beside code built by an older GCC, and
# every object here and in Debian 12's armhf archive is built by GCC 12.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
