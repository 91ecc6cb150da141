# SPDX-License-Identifier: MIT
# Writes OUTPUT, a header naming the commit the sources were built from, at every build
# (`--version` prints it, so it must not go stale the way a configure-time reading would),
# and touches it only when the commit changed, so nothing rebuilds for nothing.
# Sources outside a git checkout (a release tarball) say "unknown".
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P cmake/commit_id.cmake
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(content "#define MEMUSAGE_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
