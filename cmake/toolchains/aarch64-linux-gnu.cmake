# SPDX-License-Identifier: MIT
# aarch64 boards (Debian's g++-aarch64-linux-gnu): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET aarch64-linux-gnu)
set(MEMUSAGE_PROCESSOR aarch64)
set(MEMUSAGE_QEMU_ARCH aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
