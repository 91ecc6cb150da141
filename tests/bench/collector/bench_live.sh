#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what publishing the live figures (MEMUSAGE_LIVE, memusage --live) costs a
# program. The allocation-churn workload (alloc_churn.c) on 1 and 2 threads, without a data
# file: bare, under our collector as usual, and under it with MEMUSAGE_LIVE=1 (the publisher
# thread copying the figures five times a second), in turns. Each figure is the median of
# RUNS runs; ratios are to the bare run, and the last column is live over usual.
#
#   tests/bench/collector/bench_live.sh [BUILD_DIR]
#
# Environment: RUNS (default 7), STEPS (per thread, default 10000000).
set -euo pipefail

runs=${RUNS:-7}
steps=${STEPS:-10000000}
workload_source=alloc_churn.c
source "$(dirname "$0")/bench_setup.sh"

printf 'alloc_churn, %s steps per thread, no data file, medians of %d runs\n' "$steps" "$runs"
printf '%-8s %10s %10s %7s %10s %7s %10s\n' threads "bare ms" "ours ms" ours "live ms" live "live/ours"
for threads in 1 2; do
    : >"$work/bare" : >"$work/ours" : >"$work/live"
    for ((i = 0; i < runs; i++)); do
        time_of "$work/bare" MEMUSAGE_BENCH=bare
        time_of "$work/ours" LD_PRELOAD="$ours"
        time_of "$work/live" MEMUSAGE_LIVE=1 LD_PRELOAD="$ours"
    done
    bare=$(median <"$work/bare")
    ours_ns=$(median <"$work/ours")
    live_ns=$(median <"$work/live")
    awk -v t="$threads" -v b="$bare" -v o="$ours_ns" -v l="$live_ns" 'BEGIN {
        printf "%-8s %10.0f %10.0f %6.2fx %10.0f %6.2fx %9.3f\n", t, b / 1e6, o / 1e6, o / b, l / 1e6, l / b, l / o
    }'
done
