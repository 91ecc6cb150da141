# SPDX-License-Identifier: MIT
# find_package(memusage): the target memusage::api carries the in-process API's header.
include("${CMAKE_CURRENT_LIST_DIR}/memusageTargets.cmake")
