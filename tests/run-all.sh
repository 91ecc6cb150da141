#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite: README.md's second command and CI (.ci/run) run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says how long it took, so that a slow CI run shows where its time went.
timed() {
    local start=$SECONDS
    "$@"
    echo "run-all.sh: $* took $((SECONDS - start)) s" >&2
}
# The product's line and branch coverage by the asan preset's tests (gcovr): the totals,
# then the ten files least covered. Branches the compiler adds for exceptions are left out:
# they are not the code's own decisions.
coverage() {
    local report
    report=$(gcovr --root . --filter 'libmemusage/' --filter 'memusage/' --filter 'memusagestat/' \
        --exclude-throw-branches --exclude-unreachable-branches --sort-percentage --gcov-ignore-parse-errors \
        --print-summary build-asan)
    echo "run-all.sh: the product's coverage by the asan preset's tests, then the ten files least covered (lines, lines run, share):"
    grep -E '^(lines|branches): ' <<<"$report"
    # gcovr's table (file, lines, lines run, percentage, the lines missed) between its rules,
    # the least covered last (--sort-percentage).
    awk '/^-+$/ { rules++; next } rules == 3 { row[n++] = sprintf("  %-60s %6s %6s %5s", $1, $2, $3, $4) }
        END { for (i = n - 1; i >= 0 && i >= n - 10; i--) print row[i] }' <<<"$report"
}
# The sources keep the root .clang-format's layout.
find libmemusage memusage memusagestat tests -name '*.c' -o -name '*.cpp' -o -name '*.h' |
    xargs clang-format --dry-run --Werror
# The HTML report's page and its browser tests keep prettier's layout and pass eslint
# (eslint.config.mjs), with the versions package-lock.json pins.
npx --no-install prettier --check memusagestat/web tests/browser
npx --no-install eslint memusagestat/web tests/browser
# The tools and the unit tests under ASan and UBSan; the same build counts the lines and
# branches its tests run (MEMUSAGE_COVERAGE), from counters zeroed first.
[ ! -d build-asan ] || find build-asan -name '*.gcda' -delete
timed cmake --workflow --preset asan
timed coverage
timed cmake --workflow --preset tsan   # the collector's threaded tests under TSan
timed cmake --workflow --preset fuzz   # the three readers under libFuzzer, for a bounded time
timed cmake --workflow --preset default  # the release build with -Werror
# clang-tidy (.clang-tidy: its checks, and why some are left out) on the product's sources,
# from the release build's compile database: any finding fails the run, a function past 80
# lines or a cognitive complexity of 40 among them.
timed run-clang-tidy -p build -j2 -quiet "^$PWD/(libmemusage|memusage|memusagestat)/.*\.(c|cpp)\$"
# The Debian package from the release build: lintian, installed beside glibc's tools, run,
# removed (tests/package/check.sh).
timed tests/package/check.sh
# The boards: the collector, the driver and the fixtures cross-built, the collector's
# integration tests run on them under qemu-user (tests/cross/run.sh), in full on aarch64
# (64-bit) and armhf (32-bit, ARM's unsigned char, and memusagestat built for it). i686 and
# riscv64 are run by hand before a release (docs/boards.md): riscv64's libraries alone are
# built from source, and neither catches what these two do not. Two lanes at a time: a
# board's tests run one program at a time under qemu, so armhf's lane (the longer) leaves a
# core to the other, which runs aarch64 and then the HTML report's tests in headless
# Chromium (tests/browser: a fixture's report against its run's text outputs, the 25 MB
# bound on 10 million events, the README's screenshot). Each lane's output is printed when
# it is done (each step's time is then its share of the machine).
lane() { # LOG STEP...: the steps in turn (a board ARCH, or "browser"), their output in LOG
    local log=$1 step start status failed=0
    shift
    for step in "$@"; do
        local run=(tests/cross/run.sh "$step")
        [ "$step" != browser ] || run=(env MEMUSAGE_BUILD_DIR=build node --test tests/browser/)
        start=$SECONDS
        status=0
        "${run[@]}" || status=$?
        echo "run-all.sh: ${run[*]} took $((SECONDS - start)) s"
        [ "$status" = 0 ] || failed=$status
    done >"$log" 2>&1
    return "$failed"
}
logs=$(mktemp -d)
lane "$logs/first" armhf &
first=$!
lane "$logs/second" aarch64 browser &
second=$!
failed=0
wait "$first" || failed=1
cat "$logs/first"
wait "$second" || failed=1
cat "$logs/second"
rm -rf "$logs"
[ "$failed" = 0 ] || {
    echo "run-all.sh: a board's or the browser's tests failed (above)" >&2
    exit 1
}
cmake --workflow --preset test   # every test of the release build (last: its count closes the run)
