# SPDX-License-Identifier: MIT
# i686 boards (Debian's g++-i686-linux-gnu): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET i686-linux-gnu)
set(MEMUSAGE_PROCESSOR i686)
set(MEMUSAGE_QEMU_ARCH i386)
set(MEMUSAGE_MULTIARCH i386-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
