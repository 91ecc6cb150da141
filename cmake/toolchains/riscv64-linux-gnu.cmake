# riscv64 boards (Debian's g++-riscv64-linux-gnu): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET riscv64-linux-gnu)
set(MEMUSAGE_PROCESSOR riscv64)
set(MEMUSAGE_QEMU_ARCH riscv64)
# No multiarch C library for riscv64 in Debian 12: the cross compiler's own.
set(MEMUSAGE_QEMU_ROOT /usr/riscv64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
