#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what stack peaks cost, before and after, side by side.
#
#   BEFORE_LIBMEMUSAGE=/path/to/main's/libmemusage.so tests/bench/collector/bench_stack_peak.sh [BUILD_DIR]
#
# Two workloads: the allocation churn (alloc_churn.c, 1 thread), whose stack hardly moves,
# and a deep recursion (deep_recursion.c: one level deeper each round up to DEPTH levels of
# 256-byte frames, then ROUNDS rounds at the deepest, a malloc and a free at every level),
# whose stack peak rises slowly: the worst case for captures at new peaks. Each without a
# data file and with one (the profiling ticks measure the stack too). Columns: bare, the
# collector before (BEFORE_LIBMEMUSAGE: built from the branch point; left out when unset),
# after without stack peaks, after with MEMUSAGE_STACK_PEAK. CPU time (user + system: on a
# shared machine steadier than wall time), medians of RUNS runs (default 11); ratios are to
# the bare run. Environment: STEPS (alloc_churn, default 5000000), DEPTH
# (default 4000), ROUNDS (default 1000), DATA_DIR as bench_collector.sh.
set -euo pipefail

runs=${RUNS:-11}
steps=${STEPS:-5000000}
depth=${DEPTH:-4000}
rounds=${ROUNDS:-1000}
workload_source=alloc_churn.c
source "$(dirname "$0")/bench_setup.sh"
churn=$workload
recursion=$helpers/deep_recursion
${CC:-cc} -O2 -Wall -Wextra -o "$recursion" "$source_dir/tests/bench/collector/deep_recursion.c"
before=${BEFORE_LIBMEMUSAGE:-}
peaks=$work/peaks

# time_of RESULT-FILE PROGRAM ARGS... -- [VARIABLE=VALUE]...: one run, appending CPU
# milliseconds.
time_of() {
    local out=$1 program=$2
    shift 2
    local args=()
    while [ "$1" != -- ]; do
        args+=("$1")
        shift
    done
    shift
    read -r _ _ status ns < <("$measure" env "$@" "$program" "${args[@]}" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "$program exited with $status under $*" >&2
        exit 1
    fi
    echo $((ns / 1000000)) >>"$out"
    rm -f "$data_file" "$peaks"
}

printf 'CPU ms, medians of %d runs; alloc_churn %s steps, deep_recursion %s levels x %s rounds\n' \
    "$runs" "$steps" "$depth" "$rounds"
printf '%-15s %-5s %8s %14s %14s %14s\n' workload file "bare ms" "before ms" "after ms" \
    "+peaks ms"
for name in alloc_churn deep_recursion; do
    if [ "$name" = alloc_churn ]; then
        command=("$churn" 1 "$steps")
    else
        command=("$recursion" "$depth" "$rounds")
    fi
    for file in no yes; do
        data=()
        [ "$file" = yes ] && data=("MEMUSAGE_OUTPUT=$data_file")
        : >"$work/bare" : >"$work/before" : >"$work/after" : >"$work/peaks_ms"
        for ((i = 0; i < runs; i++)); do
            time_of "$work/bare" "${command[@]}" -- MEMUSAGE_BENCH=bare
            [ -n "$before" ] && time_of "$work/before" "${command[@]}" -- "${data[@]}" LD_PRELOAD="$before"
            time_of "$work/after" "${command[@]}" -- "${data[@]}" LD_PRELOAD="$ours"
            time_of "$work/peaks_ms" "${command[@]}" -- "${data[@]}" MEMUSAGE_STACK_PEAK="$peaks" \
                LD_PRELOAD="$ours"
        done
        bare=$(median <"$work/bare")
        column() {
            [ -s "$1" ] || { printf '%14s' -; return; }
            local ms
            ms=$(median <"$1")
            printf '%8s %5.2fx' "$ms" "$(echo "$ms / $bare" | bc -l)"
        }
        printf '%-15s %-5s %8s %s %s %s\n' "$name" "$file" "$bare" "$(column "$work/before")" \
            "$(column "$work/after")" "$(column "$work/peaks_ms")"
    done
done
