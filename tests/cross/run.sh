#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-builds the collector, the driver and the fixtures for ARCH (aarch64, armhf, riscv64,
# i686: the presets of the same names) and runs the collector's integration tests on them
# under qemu-user: the tests themselves are this machine's (build/, the release build, made
# first), and start the other machine's fixtures through qemu with its collector preloaded
# (tests/integration/collector/collector_run.h). What a fixture execs (itself, or a board's
# program started by a shell or timeout(1)) the kernel starts through qemu too, as a
# board's kernel starts it: tests/cross/binfmt.sh registers qemu for the tests' run only.
# memusagestat built for the board runs there too, on the 32-bit boards, in their full runs
# (CI runs armhf's).
#   tests/cross/run.sh ARCH [--smoke]
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:?usage: tests/cross/run.sh aarch64|armhf|riscv64|i686 [--smoke]}
smoke=${2:-}
# The board's files: Debian's packages of its architecture (the C library, libunwind,
# Boost.Program_options, ncurses) unpacked into a root in the build tree by
# cmake/toolchains/board_sysroot.sh --run-time, never installed; riscv64's are built (below).
# Not the cross compiler's C library for all: with it as qemu's root, pthread_create never
# returns under qemu 7.2.
case "$arch" in
    aarch64) qemu=aarch64 triplet=aarch64-linux-gnu ;;
    armhf) qemu=arm triplet=arm-linux-gnueabihf ;;
    riscv64) qemu=riscv64 triplet=riscv64-linux-gnu ;;
    i686) qemu=i386 triplet=i386-linux-gnu ;;
    *)
        echo "tests/cross/run.sh: unknown architecture '$arch' (aarch64, armhf, riscv64, i686)" >&2
        exit 2
        ;;
esac
native=build
needed=("$native/tests/integration/collector/collector_integration_tests" "$native/bin/memusagestat")
[ "$smoke" = --smoke ] || needed+=("$native/tests/integration/sites/sites_integration_tests"
    "$native/tests/integration/stack/stack_integration_tests")
for tool in "${needed[@]}"; do
    [ -x "$tool" ] || {
        echo "tests/cross/run.sh: $tool is missing: build the release build first" >&2
        exit 2
    }
done
emulator=$(command -v "qemu-$qemu-static") || {
    echo "tests/cross/run.sh: qemu-$qemu-static is missing (Debian's qemu-user-static)" >&2
    exit 2
}
# Every start of qemu takes the root as the board's files (QEMU_LD_PREFIX): the tests' own
# and those the kernel makes for a fixture's exec, where the board's loader finds
# libunwind.so.8 in the board's /usr/lib/<triplet>, as on a board. riscv64 has no Debian 12
# packages: its libraries (libunwind, Boost.Program_options, ncurses) are built from Debian's
# source packages into a root whose lib is the cross compiler's C library.
if [ "$arch" = riscv64 ]; then
    sysroot=$PWD/build/riscv64-libraries
    cmake/toolchains/riscv64_libraries.sh "$sysroot"
    libc=$sysroot/lib
else
    sysroot=$PWD/build/$arch-root
    cmake/toolchains/board_sysroot.sh --run-time "$arch" "$sysroot"
    libc=$sysroot/lib/$triplet
fi
export QEMU_LD_PREFIX=$sysroot
# The desktop's memusagestat names the board's libraries from the same root. (Not
# riscv64's: its root's C library is the cross compiler's, without the board's paths.)
[ "$arch" = riscv64 ] || export MEMUSAGE_SYSROOT=$sysroot
[ -f "$libc/libc.so.6" ] || {
    echo "tests/cross/run.sh: no C library for $arch in $libc" >&2
    exit 2
}

cmake --preset "$arch" >/dev/null
cmake --build --preset "$arch"

export MEMUSAGE_TEST_BUILD_DIR=$PWD/build/$arch
# The collector's directory in the build tree mirrors the installed one, the board's
# lib/<multiarch>/memusage: the build's cache names it.
collector_dir=$(sed -n 's/^MEMUSAGE_COLLECTOR_DIR:INTERNAL=//p' "build/$arch/CMakeCache.txt")
export MEMUSAGE_TEST_COLLECTOR=$PWD/build/$arch/$collector_dir/libmemusage.so
# glibc's own collector for that machine, beside its C library.
export MEMUSAGE_TEST_GLIBC_COLLECTOR=$libc/libmemusage.so
export MEMUSAGE_TEST_EMULATOR="$emulator -L $sysroot"

# The kernel starts the board's programs through qemu in the tests' run (their execs:
# /proc/self/exe, a shell or timeout(1) starting a fixture); i686's too, which it could run
# itself, but then with this machine's files: the board's C library is only in its root.
under_emulation=(tests/cross/binfmt.sh "$arch")

# What runs under emulation as on the board: fork and exec, the signals (the program's
# handlers beside the collector's, each function that sets a disposition once with the
# timer running, fatal signals and overflows on the alternate stack), the process's state.
# Left out: what measures the memory of the process (qemu's, under emulation), what
# compares with programs of this machine (perl, sqlite3, zip), and the siblings started by
# a shell that must carry the run's start from one to the next (this machine's shell,
# which the board's collector cannot be loaded into).
collector_tests='Compatibility.Fixture*:Compatibility.PossibleRequests*:HostileSizes.*:Threads.*:Crashes.*:Sigprof.*'
collector_tests+=':Processes.*:DataFile.*:Stack.*:Aligned.*:MmapTracing.*:ThreadTable.*'
collector_tests+=':Collector/ForkSafety.*'
# A program with an allocator of its own, mapping under its lock as threads start.
collector_tests+=':OwnAllocator.ThreadsMappingUnderTheProgramsLockRunToTheEnd'
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
# Nor does qemu-arm keep the old mapping of an mremap with MREMAP_DONTUNMAP: the fixture's
# read of it dies of SIGSEGV without any collector.
[ "$arch" = armhf ] && collector_tests+=':MmapTracing.RemapWithoutUnmapKeepsTheOldMapping'
# Nor does qemu-arm always come back from fork() while other threads run: the stdio
# fixture (threads forking beside threads reading) hangs without any collector too (1 run
# in 8 of its 2 seconds never ended; none on qemu-aarch64).
[ "$arch" = armhf ] && collector_tests+=':Collector/ForkSafety.ForkWhileOtherThreadsUseStdio/*'
# The board's C library is at no board's path on this machine: qemu finds the board's loader
# through QEMU_LD_PREFIX, which a program started with an empty environment has lost.
collector_tests+=':Processes.AProgramStartedWithoutTheCollectorMeetsNoSigprof'
# Nor can qemu 7.2 keep a SIGFPE that kill() sent pending while the program blocks it: the
# fixture dies of SIGSEGV without any collector (the same check in a thread runs).
collector_tests+=':Collector/ProcessState.IsAsTheProgramSetIt/sigprocmask_pending_*'
if [ "$smoke" = --smoke ]; then
    collector_tests='Compatibility.FixtureNumbers*:Compatibility.PossibleRequests*:HostileSizes.*'
    collector_tests+=':Threads.CountsAreExact:Crashes.*'
fi
"${under_emulation[@]}" "$native/tests/integration/collector/collector_integration_tests" \
    --gtest_brief=1 --gtest_filter="$collector_tests"

# Allocation sites and stack peaks, aarch64, armhf and riscv64: the board's sites files,
# read here (the reports, the exports, --diff, fork and exec, modules changed since the
# run). Left out: what runs this machine's driver on the board's program; the traced maps'
# report (its fixture hangs under qemu-aarch64 with mmap tracing and sites, not yet
# understood); the handler on an alternate stack (under qemu the summary's stack peak
# misses the handler's 24 KiB there); the program's descriptors (libunwind's aarch64 guess
# of a frame without unwind tables repeats that function where its caller should be).
if [ "$smoke" != --smoke ] && { [ "$arch" = aarch64 ] || [ "$arch" = armhf ] || [ "$arch" = riscv64 ]; }; then
    sites_tests='SitesReport.*:SitesEndings.*:Leaks.MemusagestatPrintsTheSameReportFromTheFile'
    sites_tests+=':Folded.*:FoldedNames.*:Pprof.*:Diff.TotalsAndOnlyTheGrownSiteMatchedByLineNotAddress'
    sites_tests+=':Temporary.TheReportCountsThemPerSiteAndInTotal:Temporary.AnotherThreadsAllocationDoesNotCount'
    sites_tests+=':SitesSampling.ExactSitesStayExact:SitesSampling.ABlockFarLargerThanTheIntervalIsAlwaysSampledAsItself'
    sites_tests+=':Massif.EveryTenthSnapshotBetweenIsATreeOfWhatTheSitesHeldThen'
    sites_tests+=':ForkAndExec/ChildProcesses.*:ChangedAndGone/ModuleSinceTheRun.*'
    # The same stacks from libunwind's fast trace and from its step-by-step unwind (each
    # thread past the 16th): they differed by one on aarch64, and the step-by-step gave
    # nothing on armhf.
    sites_tests+=':LiveThreads.HaveTheSameStackWhicheverWayTheyUnwind'
    # aarch64 walks along unwind rows: the verify mode compares every walked stack with
    # libunwind's on the fixtures whose stacks leave the usual call order. Not here: the
    # libraries of two frame shapes (x86-64 assembly), and sqlite3 and python3 (the board's
    # own are not installed on this machine).
    [ "$arch" = aarch64 ] && sites_tests+=':SitesVerify.*'
    sites_tests+=':-SitesReport.BytesAtThePeakThatNoSiteHoldsAreSaidToBeTracedMaps'
    [ "$arch" = aarch64 ] && sites_tests+=':SitesVerify.RowsOfUnloadedCode*:SitesVerify.Sqlite3*:SitesVerify.Python3Json'
    # armhf: the cases that expect a 64-bit machine (sizeof(std::vector<int>) is 24, a
    # lambda takes an unsigned long where size_t is); the board's dynamic loader, stripped
    # and with unwind tables for few of its functions (dlopen's allocations are named by
    # module and offset there, and their stacks end in it); the exact sites of 2 million
    # allocations, each unwound step by step (libunwind has no fast trace on ARM): minutes
    # under qemu-arm.
    [ "$arch" = armhf ] && sites_tests+=':SitesReport.CppLeaksThroughOperatorNewAndTheStandardLibraryNameTheProgramsLine:FoldedNames.AnonymousNamespacesAndLambdasKeepTheirNames:Pprof.InuseSpaceIsTheHeapAtItsPeakSiteBySite:Pprof.TracesHaveTheCallersAndTheInlinedFrames:SitesSampling.ExactSitesStayExact'
    # riscv64: the board's C and C++ libraries and its loader are at the board's /lib only
    # in qemu's root (its C library the cross compiler's), where the desktop's memusagestat
    # does not look: their frames are named by module and offset (operator new, dlopen).
    [ "$arch" = riscv64 ] && sites_tests+=':SitesReport.CppLeaksThroughOperatorNewAndTheStandardLibraryNameTheProgramsLine:Pprof.InuseSpaceIsTheHeapAtItsPeakSiteBySite:Pprof.TracesHaveTheCallersAndTheInlinedFrames'
    # riscv64, as armhf: libunwind has no fast trace there either, so the exact sites of 2
    # million allocations are each unwound step by step under qemu (riscv64's sites tests
    # took 199 s with it, aarch64's 46 s). What it adds to the other sites tests (an
    # unsampled run's figures are exact and say no estimate) is the same code on every
    # machine; riscv64's unwinding is what the others check.
    [ "$arch" = riscv64 ] && sites_tests+=':SitesSampling.ExactSitesStayExact'
    "${under_emulation[@]}" "$native/tests/integration/sites/sites_integration_tests" \
        --gtest_brief=1 --gtest_filter="$sites_tests"
    stack_tests='-*Driver*:StackPeak.AHandlerOnAnAlternateStackIsMeasuredOnIt'
    # armhf: under qemu-arm the fixture's clock_gettime (an emulated system call) is where a
    # profiling tick lands deepest, and the board's C library has no unwind table for it: the
    # depth is measured right, the frames above it are not named.
    [ "$arch" = armhf ] && stack_tests+=':StackPeak.TicksBeforeTheFirstAllocationAreMeasured'
    "${under_emulation[@]}" "$native/tests/integration/stack/stack_integration_tests" \
        --gtest_brief=1 --gtest_filter="$stack_tests"
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

# The board's run of the events fixture under the board's collector: its data, sites,
# events and summary files, and on stderr the summary it printed.
board=$work/board
board_run() {
    local fixture=build/$arch/tests/integration/collector/collector_fixture_events
    MEMUSAGE_OUTPUT=$board.dat MEMUSAGE_SITES=$board.sites MEMUSAGE_EVENTS=$board.events \
        MEMUSAGE_SUMMARY_FILE=$board.summary MEMUSAGE_COLOR=never \
        LD_PRELOAD=$MEMUSAGE_TEST_COLLECTOR $MEMUSAGE_TEST_EMULATOR "$fixture" burn 2>"$work/err" ||
        fail "the board's run of the events fixture failed"
}

# The desktop's memusagestat takes every file of a board's run (aarch64, armhf): each of its
# outputs is made from them, and the HTML report puts the data file's times (the board's
# wall-clock microseconds, as glibc writes them there) on the recording's clock (the board's
# counter), checked against the run's own files and printed summary. Not riscv64 yet: under
# qemu its counter (rdtime) and the data file's clock were tied 1.2 ms apart in 1 run of 2,
# past the 1 ms the report's check allows.
if [ "$smoke" != --smoke ] && { [ "$arch" = aarch64 ] || [ "$arch" = armhf ]; }; then
    board_run
    printed=$(grep "Memory usage summary" "$work/err") || fail "the board's run printed no summary"
    heap_total=$(sed -n 's/.*heap total: \([0-9]*\),.*/\1/p' <<<"$printed")
    heap_peak=$(sed -n 's/.*heap peak: \([0-9]*\),.*/\1/p' <<<"$printed")
    stat=$native/bin/memusagestat
    made() { # OUTPUT COMMAND...: the command succeeds and writes OUTPUT, not empty
        local output=$1
        shift
        "$@" >"$work/out" 2>"$work/err" && [ -s "$output" ] || fail "'$*' made no $output"
    }
    made "$work/g.png" "$stat" "$board.dat" "$work/g.png"
    made "$work/t.png" "$stat" -t -T "$board.dat" "$work/t.png"
    made "$work/g.svg" "$stat" -t "$board.dat" "$work/g.svg"
    made "$work/out" "$stat" --sites="$board.sites"
    made "$work/out" "$stat" --sites="$board.sites" --stack-peak
    made "$work/out" "$stat" --sites="$board.sites" --leaks
    made "$work/folded" "$stat" --sites="$board.sites" --folded="$work/folded"
    made "$work/dhat.json" "$stat" --sites="$board.sites" --events="$board.events" --dhat="$work/dhat.json"
    made "$work/pprof" "$stat" --sites="$board.sites" --pprof="$work/pprof"
    made "$work/massif" "$stat" --sites="$board.sites" --events="$board.events" --massif="$work/massif"
    made "$work/flame.png" "$stat" --sites="$board.sites" --flame="$work/flame.png"
    made "$work/stacked.png" "$stat" --sites="$board.sites" --events="$board.events" --stacked="$work/stacked.png"
    made "$work/map.png" "$stat" --sites="$board.sites" --events="$board.events" --block-map="$work/map.png"
    made "$work/out" "$stat" --diff "$board.sites" "$board.sites"
    made "$work/out" "$stat" --diff "$board.dat" "$board.dat"
    # The block held while the fixture burns 0.3 s of CPU time lived longer than 200 ms,
    # on the board's clock, and (where the board's collector unwinds: aarch64) the report
    # says where it was allocated.
    made "$work/out" "$stat" --sites="$board.sites" --events="$board.events" --long-lived=200ms
    grep -qF "1 block (1000 bytes) lived longer than 200.0 ms" "$work/out" ||
        fail "the long-lived report of the board's run lacks the block held: $(cat "$work/out")"
    burn_line=$(grep -n 'char\* held = malloc(1000)' tests/integration/collector/fixtures/events.c | cut -d: -f1)
    [ "$arch" != aarch64 ] || grep -qF "fixtures/events.c:$burn_line)" "$work/out" ||
        fail "the long-lived report of the board's run lacks the block of events.c:$burn_line"
    # The report from each set of files that ties the two clocks: the recording (at the run's
    # end), the summary file (at its start), or the sites file's stamp alone (the data file's
    # own clock, in microseconds); and the same with a window from 100 ms.
    for files in "--events=$board.events --sites=$board.sites --summary=$board.summary" \
        "--summary=$board.summary" "--sites=$board.sites"; do
        # shellcheck disable=SC2086 # a set of options
        made "$work/report.html" "$stat" --html="$work/report.html" "$board.dat" $files
        # shellcheck disable=SC2086
        made "$work/window.html" "$stat" --html="$work/window.html" --html-window=100ms.. \
            "$board.dat" $files
        total=-
        [[ $files == *--summary* ]] && total=$heap_total
        node tests/cross/board_report_check.mjs "$work/report.html" "$board.dat" 1000 \
            "$heap_peak" "$total" "$work/window.html" 2>"$work/err" || fail "the report of $files"
    done
    echo "$arch: memusagestat makes every output of a board's files; its report's clocks agree"
fi

# memusagestat on the board itself (armhf in the full run, i686 in every run): cross-built
# against a sysroot of the board's -dev packages
# (cmake/toolchains/board_sysroot.sh), it draws the board's data file and reports its sites
# file under qemu-user, with the sysroot as the board's files. Under qemu on i686 too,
# though the kernel would run it itself: qemu's -L makes the sysroot the board's whole file
# system (its loader, libraries, fonts and fontconfig's configuration), where a native run
# would fall back to this machine's i386 libraries and fonts for whatever the sysroot lacks.
# The 32-bit boards are where its sizes and its reading of the files' 64-bit fields differ
# from the desktop's; armhf has ARM's unsigned char too. On aarch64 (64-bit as the desktop,
# unsigned char as armhf) it would prove nothing the others do not, for a build as long as
# theirs: its preset, aarch64-stat, is there to run by hand.
if [ "$smoke" != --smoke ] && { [ "$arch" = armhf ] || [ "$arch" = i686 ]; }; then
    [ -f "$board.dat" ] || board_run
    stat=$native/bin/memusagestat
    stat_sysroot=$PWD/build/$arch-sysroot
    cmake/toolchains/board_sysroot.sh "$arch" "$stat_sysroot"
    cmake --preset "$arch-stat" >/dev/null
    cmake --build --preset "$arch-stat"
    board_stat="$emulator -L $stat_sysroot $PWD/build/$arch-stat/bin/memusagestat"
    # shellcheck disable=SC2086 # the emulator is a command with its arguments
    $board_stat -t "$board.dat" "$work/board-drawn.png" 2>"$work/err" ||
        fail "the board's memusagestat did not draw the board's data file"
    # A PNG's IHDR: its width and height, big-endian, at bytes 16 to 23.
    [ "$(od -An -tx1 -j16 -N8 "$work/board-drawn.png" | tr -d ' \n')" = 0000032000000258 ] ||
        fail "the board's memusagestat drew no PNG of 800x600"
    # The same sites report as the desktop's, from the same file.
    # shellcheck disable=SC2086
    $board_stat --sites="$board.sites" >"$work/board-sites" 2>"$work/err" ||
        fail "the board's memusagestat did not report the board's sites"
    "$stat" --sites="$board.sites" >"$work/desktop-sites" 2>"$work/err"
    cmp -s "$work/board-sites" "$work/desktop-sites" ||
        fail "the board's sites report differs from the desktop's: $(diff "$work/board-sites" "$work/desktop-sites")"
    echo "$arch: memusagestat built for the board draws and reports there"
fi

# The board's live view: the desktop's tests of --live and --watch in a tmux pane, with the
# board's driver and fixture started through qemu-user (the pane's view is the board's
# ncurses, drawing the figures the board's collector publishes).
live_tests=$native/tests/integration/live/memusage_live_integration_tests
if [ "$smoke" != --smoke ] && [ -x "$driver" ] &&
    { [ "$arch" = aarch64 ] || [ "$arch" = armhf ] || [ "$arch" = riscv64 ]; }; then
    MEMUSAGE_TEST_LIVE_DRIVER="$MEMUSAGE_TEST_EMULATOR $PWD/$driver" \
        MEMUSAGE_TEST_LIVE_FIXTURE="$MEMUSAGE_TEST_EMULATOR $PWD/build/$arch/tests/integration/live/live_fixture" \
        "$live_tests" --gtest_brief=1 --gtest_filter='LiveView.ShowsTheHeapStepByStep*:LiveView.RefusesWithoutATerminal:LiveView.SaysWhenAProcessIsNotProfiled'
    echo "$arch: the board's live view shows the board's program"
fi

# --leaks on the desktop names the leaks of a board's run, at their lines: the board's sites
# file, symbolised here from the board's binaries (libdw reads any ELF machine's).
[ "$smoke" != --smoke ] && { [ "$arch" = aarch64 ] || [ "$arch" = armhf ] || [ "$arch" = riscv64 ]; } ||
    exit 0
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
