#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what the collector costs a program of many short threads,
# side by side with glibc's collector.
#
#   tests/bench/collector/bench_threads.sh [BUILD_DIR]
#
# Builds what it needs into BUILD_DIR (default: build-bench beside the sources) and runs
# short_threads.c (THREADS threads created and joined one after another, each doing one
# malloc/free) bare, under our libmemusage.so and under glibc's, in turns, without and
# with a data file. Prints the median wall time and the median maximum resident set of
# each. Time must grow linearly with THREADS and memory not at all: run it with two
# thread counts to see both.
# Environment: RUNS (default 5), THREADS (default 100000), GLIBC_LIBMEMUSAGE (default
# /usr/lib/x86_64-linux-gnu/libmemusage.so; its columns are left out when it is absent),
# DATA_DIR (where the data files go; default /dev/shm when there is one).
set -euo pipefail

runs=${RUNS:-5}
threads=${THREADS:-100000}
workload_source=short_threads.c
source "$(dirname "$0")/bench_setup.sh"
# one_run RESULT-FILE [VARIABLE=VALUE]...: appends "nanoseconds rss_kib" to the file.
one_run() {
    local out=$1
    shift
    read -r ns rss status _ < <("$measure" env "$@" "$workload" "$threads" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "the workload exited with $status under $*" >&2
        exit 1
    fi
    echo "$ns $rss" >>"$out"
    rm -f "$data_file"
}
# column FILE: "milliseconds KiB", the medians.
column() {
    printf '%8.0f %9d' "$(cut -d' ' -f1 "$1" | median | awk '{print $1 / 1e6}')" \
        "$(cut -d' ' -f2 "$1" | median)"
}

printf 'short_threads, %s threads, medians of %d runs, data files in %s\n' "$threads" "$runs" "$data_dir"
printf '%-5s %8s %9s %8s %9s %8s %9s\n' file "bare ms" "KiB" "ours ms" "KiB" "glibc ms" "KiB"
for file in no yes; do
    data=(MEMUSAGE_NO_TIMER=1)
    [ "$file" = yes ] && data+=("MEMUSAGE_OUTPUT=$data_file")
    : >"$work/bare" : >"$work/ours" : >"$work/glibc"
    for ((i = 0; i < runs; i++)); do
        one_run "$work/bare" MEMUSAGE_BENCH=bare
        one_run "$work/ours" "${data[@]}" LD_PRELOAD="$ours"
        [ -n "$glibc" ] && one_run "$work/glibc" "${data[@]}" LD_PRELOAD="$glibc"
    done
    glibc_column="     n/a       n/a"
    [ -n "$glibc" ] && glibc_column=$(column "$work/glibc")
    printf '%-5s %s %s %s\n' "$file" "$(column "$work/bare")" "$(column "$work/ours")" "$glibc_column"
done
