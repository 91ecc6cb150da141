#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: every analysis step of memusagestat on one large run, beside heaptrack_print on
# the same program's heaptrack file.
#
#   tests/bench/stat/bench_analysis.sh [BUILD_DIR]
#
# Builds memusagestat, memusage and the collector into BUILD_DIR (default: build-bench beside
# the sources) and the fixture many_objects.c (an interpreter-like run: OBJECTS blocks from
# 16,384 stacks about 40 frames deep, built and dropped ROUNDS times; the default makes about
# 48 million events and a 6.5 MB sites file). Records it once with
#   memusage --data --sites-file --events
# and, when HEAPTRACK names it, once under heaptrack; then runs each step RUNS times in
# turns and prints, per step, the medians of its maximum resident set, wall time and CPU time
# (user + system). The steps: --sites, --leaks, --long-lived, --html, --dhat, --pprof,
# --massif, --folded, --diff (the sites file against itself), and heaptrack_print FILE.
# Memory- and CPU-heavy (the recording alone takes minutes): run it on a quiet machine.
# Environment: OBJECTS (default 4000000), ROUNDS (default 3), RUNS (default 3), STEPS (the
# steps to run, default all), WORK_DIR (default a temporary directory; a recording already
# there, of the same OBJECTS and ROUNDS, is used again), HEAPTRACK (heaptrack to record the
# fixture with for heaptrack_print's figures; default none: heaptrack 1.4.0's interpreter took
# 18 GB and died at OBJECTS=200000), MEMUSAGESTAT (the memusagestat measured, default BUILD_DIR's: another
# build's, to compare before and after a change), CHECK (default 1: at the default size, fail
# when a step's maximum resident set is over its ceiling below; 0: only print).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
objects=${OBJECTS:-4000000}
rounds=${ROUNDS:-3}
runs=${RUNS:-3}
steps=${STEPS:-sites leaks long-lived html dhat pprof massif folded diff heaptrack_print}
heaptrack=${HEAPTRACK:-}
check=${CHECK:-1}
# The regression check: each step's maximum resident set at the default size (4 million
# objects, 3 rounds), in MiB, with room above the figures measured (docs/speed.md). The
# steps that replay the recording held its 4 million live blocks at the peak at about
# 32 bytes each in a version-3 recording; a version-4 one (sites on) needs no table, so these
# are upper bounds now; the massif file is written as it is made, not held.
declare -A ceiling_mib=([sites]=80 [leaks]=80 [pprof]=80 [folded]=80 [diff]=200
    [long-lived]=240 [dhat]=260 [massif]=280 [html]=640)

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMEMUSAGE_TESTS=OFF >/dev/null
fi
cmake --build "$build_dir" -j2 --target memusagestat memusage memusage_driver >/dev/null
ours=${MEMUSAGESTAT:-$build_dir/bin/memusagestat}
driver=$build_dir/bin/memusage
helpers=$build_dir/bench-stat
mkdir -p "$helpers"
here=$source_dir/tests/bench/stat
# Without sibling calls every frame stays on the stack, as an interpreter's do.
${CC:-cc} -O2 -g -fno-optimize-sibling-calls -Wall -Wextra -o "$helpers/many_objects" \
    "$here/many_objects.c"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -o "$helpers/measure" "$source_dir/tests/bench/measure.cpp"

work=${WORK_DIR:-$(mktemp -d)}
cleanup() { if [ -z "${WORK_DIR:-}" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT
mkdir -p "$work"

# The recording, made again only when the work directory holds none of this size.
run=$work/run
if [ "$(cat "$run.size" 2>/dev/null)" != "$objects $rounds" ]; then
    rm -f "$run".*
    "$driver" --data="$run.dat" --sites-file="$run.sites" --events="$run.events" \
        "$helpers/many_objects" "$objects" "$rounds" >/dev/null 2>"$run.summary"
    echo "$objects $rounds" >"$run.size"
fi
trace=
if [ -n "$heaptrack" ] && command -v "$heaptrack" >/dev/null && [[ " $steps " == *" heaptrack_print "* ]]; then
    trace=$(ls "$work"/heaptrack.run.* 2>/dev/null | head -n1 || true)
    if [ -z "$trace" ]; then
        "$heaptrack" -o "$work/heaptrack.run" "$helpers/many_objects" "$objects" "$rounds" \
            >/dev/null 2>&1
        trace=$(ls "$work"/heaptrack.run.* | head -n1)
    fi
fi

printf 'run: %s objects x %s rounds: %d events, sites file %.1f MB, recording %d MB\n' \
    "$objects" "$rounds" $((objects * rounds * 4)) \
    "$(awk -v b="$(stat -c %s "$run.sites")" 'BEGIN {print b / 1e6}')" \
    $(($(stat -c %s "$run.events") / 1000000))
if [ -n "$trace" ]; then printf 'heaptrack file: %d MB\n' $(($(stat -c %s "$trace") / 1000000)); fi

command_of() {  # command_of STEP: the step's command line, one word a line
    local s=$run.sites e=$run.events o=$work/out
    case $1 in
        sites) printf '%s\n' "$ours" --sites="$s" ;;
        leaks) printf '%s\n' "$ours" --sites="$s" --leaks ;;
        long-lived) printf '%s\n' "$ours" --sites="$s" --events="$e" --long-lived=1s ;;
        html) printf '%s\n' "$ours" --html="$o.html" "$run.dat" --sites="$s" --events="$e" ;;
        dhat) printf '%s\n' "$ours" --sites="$s" --events="$e" --dhat="$o.dhat.json" ;;
        pprof) printf '%s\n' "$ours" --sites="$s" --pprof="$o.pb.gz" ;;
        massif) printf '%s\n' "$ours" --sites="$s" --events="$e" --massif="$o.massif" ;;
        folded) printf '%s\n' "$ours" --sites="$s" --folded="$o.folded" ;;
        diff) printf '%s\n' "$ours" --diff "$s" "$s" ;;
        heaptrack_print) [ -n "$trace" ] && printf '%s\n' heaptrack_print "$trace" ;;
    esac
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for step in $steps; do : >"$work/t.$step"; done
for ((i = 0; i < runs; i++)); do
    for step in $steps; do
        mapfile -t line < <(command_of "$step")
        [ ${#line[@]} -eq 0 ] && continue
        read -r ns rss status cpu < <("$helpers/measure" "${line[@]}" 2>/dev/null)
        if [ "$status" != 0 ]; then
            echo "$step: ${line[*]} exited with $status" >&2
            exit 1
        fi
        echo "$ns $rss $cpu" >>"$work/t.$step"
    done
done

printf '%-16s %12s %10s %10s   (medians of %d runs)\n' step "max RSS" wall CPU "$runs"
for step in $steps; do
    [ -s "$work/t.$step" ] || continue
    rss=$(cut -d' ' -f2 "$work/t.$step" | median)
    ns=$(cut -d' ' -f1 "$work/t.$step" | median)
    cpu=$(cut -d' ' -f3 "$work/t.$step" | median)
    awk -v s="$step" -v r="$rss" -v n="$ns" -v c="$cpu" \
        'BEGIN {printf "%-16s %8.0f MiB %8.2f s %8.2f s\n", s, r / 1024, n / 1e9, c / 1e9}'
done

# heaptrack_print's figures, when measured, are the goal: each step at most its memory and
# time, --html at most twice them.
if [ -s "$work/t.heaptrack_print" ]; then
    h_rss=$(cut -d' ' -f2 "$work/t.heaptrack_print" | median)
    h_cpu=$(cut -d' ' -f3 "$work/t.heaptrack_print" | median)
    for step in $steps; do
        [ "$step" = heaptrack_print ] || [ ! -s "$work/t.$step" ] && continue
        rss=$(cut -d' ' -f2 "$work/t.$step" | median)
        cpu=$(cut -d' ' -f3 "$work/t.$step" | median)
        awk -v s="$step" -v r="$rss" -v c="$cpu" -v hr="$h_rss" -v hc="$h_cpu" \
            'BEGIN {printf "%-16s %5.2fx heaptrack_print'"'"'s max RSS, %5.2fx its CPU\n", s, r / hr, c / hc}'
    done
fi

if [ "$check" = 1 ] && [ "$objects" = 4000000 ] && [ "$rounds" = 3 ]; then
    failed=0
    for step in $steps; do
        [ -s "$work/t.$step" ] && [ -n "${ceiling_mib[$step]:-}" ] || continue
        rss=$(cut -d' ' -f2 "$work/t.$step" | median)
        if ((rss > ${ceiling_mib[$step]} * 1024)); then
            echo "FAIL: $step took $((rss / 1024)) MiB, over its ceiling of ${ceiling_mib[$step]} MiB" >&2
            failed=1
        fi
    done
    if ((failed)); then exit 1; fi
    echo "PASS: every step within its memory ceiling"
fi
