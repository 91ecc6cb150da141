# armv7l boards (Debian's g++-arm-linux-gnueabihf): see debian-cross.cmake.
set(MEMUSAGE_TRIPLET arm-linux-gnueabihf)
set(MEMUSAGE_PROCESSOR armv7l)
set(MEMUSAGE_QEMU_ARCH arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
