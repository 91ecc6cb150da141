#!/usr/bin/env bash
# Cross-builds the collector, the driver and the fixtures for ARCH (aarch64, armhf, riscv64,
# i686: the presets of the same names) and runs the collector's integration tests on them
# under qemu-user: the tests themselves are this machine's (build/, the release build, made
# first), and start the other machine's fixtures through qemu with its collector preloaded
# (tests/integration/collector/collector_run.h). No binfmt_misc is needed: qemu-user
# follows no exec by itself, so what a fixture execs must be this machine's.
#   tests/cross/run.sh ARCH [--smoke]
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:?usage: tests/cross/run.sh aarch64|armhf|riscv64|i686 [--smoke]}
smoke=${2:-}
case "$arch" in
    aarch64) triplet=aarch64-linux-gnu qemu=aarch64 ;;
    armhf) triplet=arm-linux-gnueabihf qemu=arm ;;
    riscv64) triplet=riscv64-linux-gnu qemu=riscv64 ;;
    i686) triplet=i686-linux-gnu qemu=i386 ;;
    *)
        echo "tests/cross/run.sh: unknown architecture '$arch' (aarch64, armhf, riscv64, i686)" >&2
        exit 2
        ;;
esac
native=build
for tool in "$native/tests/integration/collector/collector_integration_tests" \
    "$native/tests/integration/sites/sites_integration_tests" "$native/bin/memusagestat"; do
    [ -x "$tool" ] || {
        echo "tests/cross/run.sh: $tool is missing: build the release build first" >&2
        exit 2
    }
done
emulator=$(command -v "qemu-$qemu-static") || {
    echo "tests/cross/run.sh: qemu-$qemu-static is missing (Debian's qemu-user-static)" >&2
    exit 2
}
sysroot=/usr/$triplet

cmake --preset "$arch" >/dev/null
cmake --build --preset "$arch"

export MEMUSAGE_TEST_BUILD_DIR=$PWD/build/$arch
export MEMUSAGE_TEST_COLLECTOR=$PWD/build/$arch/lib/libmemusage.so
# glibc's own collector for that machine, from its cross C library (libc6-<arch>-cross).
export MEMUSAGE_TEST_GLIBC_COLLECTOR=$sysroot/lib/libmemusage.so
export MEMUSAGE_TEST_EMULATOR="$emulator -L $sysroot"

# What runs under emulation as on the board. Left out: fixtures that exec themselves
# (qemu-user cannot follow an exec without binfmt_misc), what compares with programs of
# this machine (perl, sqlite3, zip), and glibc's malloc debugging library's tests.
collector_tests='Compatibility.Fixture*:HostileSizes.*:Threads.*:Crashes.*:Sigprof.*'
collector_tests+=':Processes.*:DataFile.*:Stack.*:Aligned.*:MmapTracing.*:ThreadTable.*'
collector_tests+=':-Processes.*Exec*:*Exec*'
sites_tests='Leaks.MemusagestatPrintsTheSameReportFromTheFile:SitesReport.*'
if [ "$smoke" = --smoke ]; then
    collector_tests='Compatibility.FixtureNumbersAreTheExpectedOnes:HostileSizes.*:Threads.*'
    sites_tests=''
fi
"$native/tests/integration/collector/collector_integration_tests" --gtest_brief=1 \
    --gtest_filter="$collector_tests"
if [ -n "$sites_tests" ]; then
    "$native/tests/integration/sites/sites_integration_tests" --gtest_brief=1 \
        --gtest_filter="$sites_tests"
fi
