#!/usr/bin/env bash
# Cross-builds the collector, the driver and the fixtures for ARCH (aarch64, armhf, riscv64,
# i686: the presets of the same names) and runs the collector's integration tests on them
# under qemu-user: the tests themselves are this machine's (build/, the release build, made
# first), and start the other machine's fixtures through qemu with its collector preloaded
# (tests/integration/collector/collector_run.h). What a fixture execs (itself, or a board's
# program started by a shell or timeout(1)) the kernel starts through qemu too, as a
# board's kernel starts it: tests/cross/binfmt.sh registers qemu for the tests' run only.
#   tests/cross/run.sh ARCH [--smoke]
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:?usage: tests/cross/run.sh aarch64|armhf|riscv64|i686 [--smoke]}
smoke=${2:-}
# The board's C library: Debian's multiarch one (libc6:arm64, ...; at the paths a board has
# it) where Debian has it, the cross compiler's own otherwise (riscv64). Not the cross
# compiler's for all: with it as qemu's -L, pthread_create never returns under qemu 7.2.
case "$arch" in
    aarch64) triplet=aarch64-linux-gnu qemu=aarch64 libc=/usr/lib/aarch64-linux-gnu ;;
    armhf) triplet=arm-linux-gnueabihf qemu=arm libc=/usr/lib/arm-linux-gnueabihf ;;
    riscv64) triplet=riscv64-linux-gnu qemu=riscv64 libc=/usr/riscv64-linux-gnu/lib ;;
    i686) triplet=i686-linux-gnu qemu=i386 libc=/usr/lib/i386-linux-gnu ;;
    *)
        echo "tests/cross/run.sh: unknown architecture '$arch' (aarch64, armhf, riscv64, i686)" >&2
        exit 2
        ;;
esac
native=build
for tool in "$native/tests/integration/collector/collector_integration_tests" \
    "$native/tests/integration/sites/sites_integration_tests" \
    "$native/tests/integration/stack/stack_integration_tests" "$native/bin/memusagestat"; do
    [ -x "$tool" ] || {
        echo "tests/cross/run.sh: $tool is missing: build the release build first" >&2
        exit 2
    }
done
emulator=$(command -v "qemu-$qemu-static") || {
    echo "tests/cross/run.sh: qemu-$qemu-static is missing (Debian's qemu-user-static)" >&2
    exit 2
}
if [ "$arch" = riscv64 ]; then sysroot=/usr/$triplet; else sysroot=/; fi
[ -f "$libc/libc.so.6" ] || {
    echo "tests/cross/run.sh: no C library for $arch in $libc (bash .ci/deps installs it)" >&2
    exit 2
}

cmake --preset "$arch" >/dev/null
cmake --build --preset "$arch"

export MEMUSAGE_TEST_BUILD_DIR=$PWD/build/$arch
export MEMUSAGE_TEST_COLLECTOR=$PWD/build/$arch/lib/libmemusage.so
# glibc's own collector for that machine, beside its C library.
export MEMUSAGE_TEST_GLIBC_COLLECTOR=$libc/libmemusage.so
export MEMUSAGE_TEST_EMULATOR="$emulator -L $sysroot"

# The kernel runs i686's programs itself; the others' it starts through qemu in the tests'
# run (their execs: /proc/self/exe, a shell or timeout(1) starting a fixture).
case "$arch" in
    i686) under_emulation=() ;;
    *) under_emulation=(tests/cross/binfmt.sh "$arch") ;;
esac

# What runs under emulation as on the board: fork and exec, the signals (the program's
# handlers beside the collector's, each function that sets a disposition once with the
# timer running, fatal signals and overflows on the alternate stack), the process's state.
# Left out: what measures the memory of the process (qemu's, under emulation), what
# compares with programs of this machine (perl, sqlite3, zip), and the siblings started by
# a shell that must carry the run's start from one to the next (this machine's shell,
# which the board's collector cannot be loaded into).
collector_tests='Compatibility.Fixture*:Compatibility.PossibleRequests*:HostileSizes.*:Threads.*:Crashes.*:Sigprof.*'
collector_tests+=':Processes.*:DataFile.*:Stack.*:Aligned.*:MmapTracing.*:ThreadTable.*'
collector_tests+=':Ways/SignalHandler.AllocationsInAHandlerAreCounted/*'
collector_tests+=':Ways/SignalHandler.ExitFromAHandlerThatInterruptedTheCollectorCompletes/data_file'
collector_tests+=':Collector/SigprofDisposition.*_data_file:Collector/FatalSignal.*'
collector_tests+=':Collector/CrashWithoutRoom.*:Collector/ProcessState.*'
collector_tests+=':-Processes.TheFirstProcessOfTheNameKeepsTheFileFromItsSiblings'
collector_tests+=':Threads.ThreadsComingAndGoingKeepMemoryFlatAndCountsExact'
# glibc's collector keeps 32-bit totals on 32-bit machines: the edge cases' impossible
# requests (3 GiB each) wrap its heap total, not ours.
case "$arch" in armhf | i686) collector_tests+=':Compatibility.FixtureWithEdgeCases*' ;; esac
# qemu-arm cannot grow a map in place (mremap without MREMAP_MAYMOVE fails there, without
# any collector).
[ "$arch" = armhf ] && collector_tests+=':MmapTracing.RemapsAndPartialUnmapsKeepTheHeapExact'
# Nor can qemu 7.2 keep a SIGFPE that kill() sent pending while the program blocks it: the
# fixture dies of SIGSEGV without any collector (the same check in a thread runs).
collector_tests+=':Collector/ProcessState.IsAsTheProgramSetIt/sigprocmask_pending_*'
if [ "$smoke" = --smoke ]; then
    collector_tests='Compatibility.FixtureNumbers*:Compatibility.PossibleRequests*:HostileSizes.*'
    collector_tests+=':Threads.CountsAreExact:Crashes.*'
fi
"${under_emulation[@]}" "$native/tests/integration/collector/collector_integration_tests" \
    --gtest_brief=1 --gtest_filter="$collector_tests"

# Allocation sites and stack peaks, aarch64: the board's sites files, read here (the
# reports, the exports, --diff, fork and exec, modules changed since the run). Left out:
# what runs this machine's driver on the board's program; the traced maps' report (its
# fixture hangs under qemu-aarch64 with mmap tracing and sites, not yet understood); the
# handler on an alternate stack (under qemu the summary's stack peak misses the handler's
# 24 KiB there); the program's descriptors (libunwind's aarch64 guess of a frame without
# unwind tables repeats that function where its caller should be). armhf runs none: under
# qemu-arm its stacks end at the first frame libunwind must guess (platform/unwinder_abi.h
# says why), so no report has lines.
if [ "$smoke" != --smoke ] && [ "$arch" = aarch64 ]; then
    sites_tests='SitesReport.*:SitesEndings.*:Leaks.MemusagestatPrintsTheSameReportFromTheFile'
    sites_tests+=':Folded.*:FoldedNames.*:Pprof.*:Diff.TotalsAndOnlyTheGrownSiteMatchedByLineNotAddress'
    sites_tests+=':Temporary.TheReportCountsThemPerSiteAndInTotal:Temporary.AnotherThreadsAllocationDoesNotCount'
    sites_tests+=':SitesSampling.ExactSitesStayExact:SitesSampling.ABlockFarLargerThanTheIntervalIsAlwaysSampledAsItself'
    sites_tests+=':Massif.EveryTenthSnapshotBetweenIsATreeOfWhatTheSitesHeldThen'
    sites_tests+=':ForkAndExec/ChildProcesses.*:ChangedAndGone/ModuleSinceTheRun.*'
    sites_tests+=':-SitesReport.BytesAtThePeakThatNoSiteHoldsAreSaidToBeTracedMaps'
    "${under_emulation[@]}" "$native/tests/integration/sites/sites_integration_tests" \
        --gtest_brief=1 --gtest_filter="$sites_tests"
    "${under_emulation[@]}" "$native/tests/integration/stack/stack_integration_tests" \
        --gtest_brief=1 --gtest_filter='-*Driver*:StackPeak.AHandlerOnAnAlternateStackIsMeasuredOnIt'
fi

# The board's driver runs a program with the board's collector (the program is qemu running
# a fixture: qemu-user follows no exec), its data file drawn here; it refuses -p before the
# run, saying where to draw.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "tests/cross/run.sh: $arch: $1:" >&2
    cat "$work/err" >&2
    exit 1
}
driver=build/$arch/bin/memusage
if [ -x "$driver" ]; then
    # shellcheck disable=SC2086 # the emulator is a command with its arguments
    $MEMUSAGE_TEST_EMULATOR "$driver" -d "$work/run.dat" $MEMUSAGE_TEST_EMULATOR \
        "build/$arch/tests/integration/collector/collector_fixture_calls" 2>"$work/err" ||
        fail "the driver's run failed"
    grep -q "Memory usage summary" "$work/err" || fail "the driver's run printed no summary"
    "$native/bin/memusagestat" "$work/run.dat" "$work/run.png" 2>"$work/err" ||
        fail "the board's data file does not draw here"
    # shellcheck disable=SC2086
    ! $MEMUSAGE_TEST_EMULATOR "$driver" -p "$work/x.png" /bin/true 2>"$work/err" &&
        grep -q "on the desktop" "$work/err" || fail "the board's driver did not refuse -p"
    echo "$arch: the board's driver runs a program, and says to draw on the desktop"
fi

# --leaks on the desktop names the leaks of a board's run, at their lines: the board's sites
# file, symbolised here from the board's binaries (libdw reads any ELF machine's).
[ "$smoke" != --smoke ] && [ "$arch" = aarch64 ] || exit 0
fixtures=build/$arch/tests/integration/sites
sources=tests/integration/sites/fixtures
sites=$work/run.sites
MEMUSAGE_SITES=$sites LD_PRELOAD=$MEMUSAGE_TEST_COLLECTOR $MEMUSAGE_TEST_EMULATOR \
    "$fixtures/sites_fixture_c" "$PWD/$fixtures/libsites_library_debug.so" >/dev/null 2>&1
report=$("$native/bin/memusagestat" --sites="$sites" --leaks)
line_of() { grep -n "SITE($2)" "$sources/$1" | cut -d: -f1; }
for want in "at leak_direct ($PWD/$sources/sites_leaks.c:$(line_of sites_leaks.c direct))" \
    "at xmalloc ($PWD/$sources/sites_leaks.c:$(line_of sites_leaks.c wrapper_inside))" \
    "by leak_through_wrapper ($PWD/$sources/sites_leaks.c:$(line_of sites_leaks.c wrapper_call))" \
    "at lib_leak ($PWD/$sources/sites_library.c:$(line_of sites_library.c library))" \
    "at after_peak ($PWD/$sources/sites_leaks.c:$(line_of sites_leaks.c after_peak))"; do
    grep -qF "$want" <<<"$report" || {
        printf 'tests/cross/run.sh: the %s leak report lacks "%s":\n%s\n' "$arch" "$want" "$report" >&2
        exit 1
    }
done
echo "$arch: memusagestat --leaks names the board's leaks at their lines"
