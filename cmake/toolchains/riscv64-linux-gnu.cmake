# SPDX-License-Identifier: MIT
# riscv64 boards (Debian's g++-riscv64-linux-gnu): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET riscv64-linux-gnu)
set(MEMUSAGE_PROCESSOR riscv64)
set(MEMUSAGE_QEMU_ARCH riscv64)
# No riscv64 packages in Debian 12: the board's libraries (libunwind, Boost, ncurses)
# are built from Debian's source packages into a board's root (riscv64_libraries.sh, into the
# MEMUSAGE_BOARD_ROOT the preset names), whose C library is the cross compiler's own. Without
# it, the cross compiler's own C library alone, and no driver.
if(MEMUSAGE_BOARD_ROOT AND EXISTS ${MEMUSAGE_BOARD_ROOT}/.libraries)
  set(MEMUSAGE_QEMU_ROOT ${MEMUSAGE_BOARD_ROOT})
  list(APPEND CMAKE_PREFIX_PATH ${MEMUSAGE_BOARD_ROOT}/usr)
else()
  set(MEMUSAGE_QEMU_ROOT /usr/riscv64-linux-gnu)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
