# SPDX-License-Identifier: MIT
# MEMUSAGE_COVERAGE (the asan preset): the product's code is compiled with --coverage, so
# that the tests' runs leave the counts gcovr reads (tests/run-all.sh prints them). Only
# what runs in the tools and in the tests: never the collector that is preloaded into
# programs (libmemusage.so and the core it links), whose writing of its counts at the
# program's exit would be allocations in the profiled program; its code is counted through
# the copy of its core the unit tests link. The test programs and fixtures are not counted.
# Every link takes --coverage: a program linking a counted library needs gcov's run time.
# The counters are updated atomically: the threaded tests would otherwise race on them and
# leave counts gcov cannot read (negative branch counts).
add_link_options(--coverage)

function(memusage_coverage_of_directory dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(source_dir ${target} SOURCE_DIR)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$"
       AND (NOT source_dir MATCHES "/libmemusage$" OR target MATCHES "_sanitized$"))
      target_compile_options(${target} PRIVATE --coverage -fprofile-update=atomic)
    endif()
  endforeach()
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    memusage_coverage_of_directory(${subdirectory})
  endforeach()
endfunction()
