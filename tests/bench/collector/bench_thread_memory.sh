#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what the collector keeps for every live thread.
#
#   tests/bench/collector/bench_thread_memory.sh [BUILD_DIR]
#
# Builds what it needs into BUILD_DIR (default: build-bench beside the sources) and runs
# live_threads.c (THREADS threads alive at once, each doing a few malloc/free) bare, under
# our libmemusage.so without sites, with exact sites (MEMUSAGE_SITES) and with sampled
# sites (MEMUSAGE_SITES_SAMPLE, 512k), and under heaptrack when it is installed, in turns.
# Prints the median maximum resident set of each and what it adds per thread over the bare
# run and over ours without sites. Memory, not time: the figures hardly move between runs.
# Environment: RUNS (default 3), THREADS (default 2000), DATA_DIR (where the sites files
# go; default /dev/shm when there is one), HEAPTRACK=no leaves heaptrack out.
set -euo pipefail

runs=${RUNS:-3}
threads=${THREADS:-2000}
workload_source=live_threads.c
source "$(dirname "$0")/bench_setup.sh"
# one_run RESULT-FILE COMMAND...: appends the maximum resident set in KiB to the file.
one_run() {
    local out=$1
    shift
    read -r _ rss status _ < <("$measure" "$@" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "the workload exited with $status under $*" >&2
        exit 1
    fi
    echo "$rss" >>"$out"
    rm -rf "$data_file" "$work"/heaptrack-out*
}

kinds=(bare ours sites sampled)
with_heaptrack=no
if [ "${HEAPTRACK:-yes}" != no ] && command -v heaptrack >/dev/null; then
    kinds+=(heaptrack)
    with_heaptrack=yes
fi
for kind in "${kinds[@]}"; do : >"$work/$kind"; done
for ((i = 0; i < runs; i++)); do
    one_run "$work/bare" env MEMUSAGE_BENCH=bare "$workload" "$threads"
    one_run "$work/ours" env MEMUSAGE_NO_TIMER=1 LD_PRELOAD="$ours" "$workload" "$threads"
    one_run "$work/sites" env MEMUSAGE_NO_TIMER=1 MEMUSAGE_SITES="$data_file" \
        LD_PRELOAD="$ours" "$workload" "$threads"
    one_run "$work/sampled" env MEMUSAGE_NO_TIMER=1 MEMUSAGE_SITES="$data_file" \
        MEMUSAGE_SITES_SAMPLE=524288 LD_PRELOAD="$ours" "$workload" "$threads"
    [ "$with_heaptrack" = yes ] &&
        one_run "$work/heaptrack" heaptrack -o "$work/heaptrack-out" "$workload" "$threads"
done

bare=$(median <"$work/bare")
ours_rss=$(median <"$work/ours")
printf 'live_threads, %s threads alive at once, maximum resident set, medians of %d runs\n' "$threads" "$runs"
printf '%-26s %10s %16s %18s\n' run "MiB" "KiB/thread" "KiB/thread over"
printf '%-26s %10s %16s %18s\n' "" "" "over bare" "ours without sites"
for kind in "${kinds[@]}"; do
    rss=$(median <"$work/$kind")
    case $kind in
        bare) label="bare" ;;
        ours) label="ours, no sites" ;;
        sites) label="ours, --sites" ;;
        sampled) label="ours, --sites-sample" ;;
        heaptrack) label="heaptrack" ;;
    esac
    over_ours="-"
    [ "$kind" != bare ] && [ "$kind" != ours ] &&
        over_ours=$(awk -v a="$rss" -v b="$ours_rss" -v n="$threads" 'BEGIN {printf "%.1f", (a - b) / n}')
    printf '%-26s %10.1f %16.1f %18s\n' "$label" "$(awk -v a="$rss" 'BEGIN {print a / 1024}')" \
        "$(awk -v a="$rss" -v b="$bare" -v n="$threads" 'BEGIN {print (a - b) / n}')" "$over_ours"
done
