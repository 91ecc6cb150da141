#!/usr/bin/env bash
# The whole test suite: README.md's second command and CI (.ci/run) run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# The sources keep the root .clang-format's layout.
find libmemusage memusage memusagestat tests -name '*.c' -o -name '*.cpp' -o -name '*.h' |
    xargs clang-format --dry-run --Werror
cmake --workflow --preset asan   # the tools and the unit tests under ASan and UBSan
cmake --workflow --preset tsan   # the collector's threaded tests under TSan
cmake --workflow --preset fuzz   # the data-file reader under libFuzzer, for a bounded time
cmake --workflow --preset test   # release build with -Werror, every test (last: its count closes the run)
