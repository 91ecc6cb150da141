#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what the driver itself costs, on a program that does nothing.
#
#   tests/bench/driver/bench_driver.sh [BUILD_DIR]
#
# Builds the driver and the collector into BUILD_DIR (default: build-bench beside the
# sources; a new one is configured as a release build without tests) and runs, in turns, `memusage PROGRAM` with ours and with glibc's script (and
# with BEFORE_MEMUSAGE, a driver built from other sources, when set), printing for each the
# medians of wall time, CPU time and maximum resident set (the largest process of the run:
# the driver or the program). The summary is all they print: no option needs the drawing.
# Environment: RUNS (default 21), PROGRAM (default /bin/true), GLIBC_MEMUSAGE (default
# /usr/bin/memusage), BEFORE_MEMUSAGE (default none).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
runs=${RUNS:-21}
program=${PROGRAM:-/bin/true}
glibc=${GLIBC_MEMUSAGE:-/usr/bin/memusage}

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMEMUSAGE_TESTS=OFF >/dev/null
fi
cmake --build "$build_dir" -j"$(nproc)" --target memusage_driver >/dev/null
helpers=$build_dir/bench-driver
mkdir -p "$helpers"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -o "$helpers/measure" "$source_dir/tests/bench/measure.cpp"
measure=$helpers/measure

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=(ours glibc)
commands=("$build_dir/bin/memusage" "$glibc")
if [ -n "${BEFORE_MEMUSAGE:-}" ]; then
    names+=(before)
    commands+=("$BEFORE_MEMUSAGE")
fi

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for name in "${names[@]}"; do : >"$work/$name"; done
for ((round = 0; round <= runs; ++round)); do
    for i in "${!names[@]}"; do
        read -r ns rss status cpu < <("$measure" "${commands[$i]}" "$program" 2>/dev/null)
        if [ "$status" != 0 ]; then
            echo "${commands[$i]} $program exited with $status" >&2
            exit 1
        fi
        # The first round warms the page cache and is not counted.
        [ "$round" -gt 0 ] && echo "$ns $cpu $rss" >>"$work/${names[$i]}"
    done
done

printf '%-8s %10s %10s %12s   (medians of %d runs of: memusage %s)\n' \
    "" wall cpu "max RSS" "$runs" "$program"
for name in "${names[@]}"; do
    wall=$(cut -d' ' -f1 "$work/$name" | median)
    cpu=$(cut -d' ' -f2 "$work/$name" | median)
    rss=$(cut -d' ' -f3 "$work/$name" | median)
    printf '%-8s %7.1f ms %7.1f ms %8.1f MiB\n' "$name" "$(bc -l <<<"$wall / 1000000")" \
        "$(bc -l <<<"$cpu / 1000000")" "$(bc -l <<<"$rss / 1024")"
done
