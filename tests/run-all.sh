#!/usr/bin/env bash
# The whole test suite: README.md's second command and CI (.ci/run) run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says how long it took, so that a slow CI run shows where its time went.
timed() {
    local start=$SECONDS
    "$@"
    echo "run-all.sh: $* took $((SECONDS - start)) s" >&2
}
# The sources keep the root .clang-format's layout.
find libmemusage memusage memusagestat tests -name '*.c' -o -name '*.cpp' -o -name '*.h' |
    xargs clang-format --dry-run --Werror
# The HTML report's page and its browser tests keep prettier's layout and pass eslint
# (eslint.config.mjs), with the versions package-lock.json pins.
npx --no-install prettier --check memusagestat/web tests/browser
npx --no-install eslint memusagestat/web tests/browser
timed cmake --workflow --preset asan   # the tools and the unit tests under ASan and UBSan
timed cmake --workflow --preset tsan   # the collector's threaded tests under TSan
timed cmake --workflow --preset fuzz   # the data-file, sites-file and event-recording readers under libFuzzer, for a bounded time
timed cmake --workflow --preset default  # the release build with -Werror
# The Debian package from the release build: lintian, installed beside glibc's tools, run,
# removed (tests/package/check.sh).
timed tests/package/check.sh
# The HTML report in headless Chromium (tests/browser: a fixture's report against its run's
# text outputs, the 25 MB bound on 10 million events, the README's screenshot).
MEMUSAGE_BUILD_DIR=build timed node --test tests/browser/
# The boards: the collector, the driver and the fixtures cross-built, the collector's
# integration tests run on them under qemu-user (tests/cross/run.sh).
for arch in aarch64 armhf riscv64; do timed tests/cross/run.sh "$arch"; done
timed tests/cross/run.sh i686 --smoke
cmake --workflow --preset test   # every test of the release build (last: its count closes the run)
