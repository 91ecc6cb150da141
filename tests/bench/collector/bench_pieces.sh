#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: where each nanosecond of the collector's hot path goes.
#
#   tests/bench/collector/bench_pieces.sh [BUILD_DIR]
#
# Builds the collector (bench_setup.sh) and, beside it in BUILD_DIR/pieces/PIECE, one
# collector per piece of the hot path with that piece left out (MEMUSAGE_BENCH_OFF, see
# libmemusage/src/platform/bench_pieces.h): the calls' counters, the histogram, the block
# header, the mark free leaves in a freed block, the stack use, claiming the thread's log,
# the stream's peaks, the whole record (peaks included). A piece's cost is the full
# collector's less the one without it. Two more rows switch things on at run time: exact
# allocation sites (MEMUSAGE_SITES) and the data file (MEMUSAGE_OUTPUT), with one piece of
# the latter left out the same way: each record's time stamp (a reading of the cycle
# counter). The last rows give glibc's collector against the bare run, without and with
# its data file, and ours with one.
# The workload is hot_path.c, on glibc's fast path (small blocks from its per-thread cache)
# and a slow one (blocks too large for the cache and the fast bins).
#
# Two figures per call (a malloc or a free): instructions, counted by callgrind (exact and
# the same however loaded the machine is: the difference between runs of CG_STEPS and of
# 2 x CG_STEPS steps, so that the start and the exit cancel out), and nanoseconds, from
# wall time (medians of RUNS rounds, each running every collector once in turn, of STEPS
# steps: noisy on a loaded machine, where the instruction counts are what to compare).
# Environment: RUNS (default 5), STEPS (default 5000000), CG_STEPS (default 200000),
# GLIBC_LIBMEMUSAGE and DATA_DIR as for bench_collector.sh.
set -euo pipefail

runs=${RUNS:-5}
steps=${STEPS:-5000000}
cg_steps=${CG_STEPS:-200000}
workload_source=hot_path.c
source "$(dirname "$0")/bench_setup.sh"
command -v valgrind >/dev/null || { echo "bench_pieces.sh needs valgrind (callgrind)" >&2; exit 1; }

pieces=(counting histogram header freed_mark stack thread_slot peak record)
file_pieces=(stamp)  # measured with a data file
declare -A collector_of=([all]=$ours)
for piece in "${pieces[@]}" "${file_pieces[@]}"; do
    dir=$build_dir/pieces/$piece
    cmake -S "$source_dir" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMUSAGE_TESTS=OFF \
        -DMEMUSAGE_BENCH_OFF="$piece" >/dev/null
    cmake --build "$dir" -j"$(nproc)" --target memusage_collector >/dev/null
    collector_of[$piece]=$(find "$dir" -name libmemusage.so -print -quit)
done

# The runs, each named: its environment (beyond the workload's arguments).
sites_file=$work/run.sites
trap 'rm -rf "$work" "$data_file"' EXIT
declare -A environment_of=([bare]="MEMUSAGE_BENCH=bare")
for name in all "${pieces[@]}"; do environment_of[$name]="LD_PRELOAD=${collector_of[$name]}"; done
environment_of[sites]="LD_PRELOAD=$ours MEMUSAGE_SITES=$sites_file"
environment_of[file]="LD_PRELOAD=$ours MEMUSAGE_OUTPUT=$data_file"
for piece in "${file_pieces[@]}"; do
    environment_of[$piece]="LD_PRELOAD=${collector_of[$piece]} MEMUSAGE_OUTPUT=$data_file"
done
runs_named=(bare all "${pieces[@]}" sites file "${file_pieces[@]}")
if [ -n "$glibc" ]; then
    environment_of[glibc]="LD_PRELOAD=$glibc"
    environment_of[glibc_file]="LD_PRELOAD=$glibc MEMUSAGE_OUTPUT=$data_file"
    runs_named+=(glibc glibc_file)
fi

# instructions NAME MODE STEPS: the instructions callgrind counts in one run. Under
# valgrind, glibc's collector with a data file dies of its profiling timer's first tick: it
# runs without the timer there (MEMUSAGE_NO_TIMER), whose ticks are too rare to count.
instructions() {
    local count no_timer=
    [ "$1" = glibc_file ] && no_timer=MEMUSAGE_NO_TIMER=1
    # shellcheck disable=SC2086 # the environment is words
    count=$(env ${environment_of[$1]} $no_timer valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$workload" "$2" "$3" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    [ -n "$count" ] || { echo "callgrind counted nothing for $1 ($2)" >&2; exit 1; }
    echo "$count"
}
# nanoseconds NAME MODE: one timed run of STEPS steps.
nanoseconds() {
    local ns status
    # shellcheck disable=SC2086
    read -r ns _ status _ < <("$measure" env ${environment_of[$1]} "$workload" "$2" "$steps" 2>/dev/null)
    [ "$status" = 0 ] || { echo "the workload exited with $status under $1 ($2)" >&2; exit 1; }
    rm -f "$data_file" "$sites_file"
    echo "$ns"
}

declare -A per_call_instructions per_call_ns
for mode in fast slow; do
    for name in "${runs_named[@]}"; do
        once=$(instructions "$name" "$mode" "$cg_steps")
        twice=$(instructions "$name" "$mode" $((2 * cg_steps)))
        per_call_instructions[$name,$mode]=$(awk -v a="$once" -v b="$twice" -v s="$cg_steps" \
            'BEGIN {printf "%.1f", (b - a) / (2 * s)}')
        rm -f "$data_file" "$sites_file"
    done
    for name in "${runs_named[@]}"; do : >"$work/$name"; done
    for ((i = 0; i < runs; i++)); do
        for name in "${runs_named[@]}"; do nanoseconds "$name" "$mode" >>"$work/$name"; done
    done
    for name in "${runs_named[@]}"; do
        per_call_ns[$name,$mode]=$(awk -v a="$(median <"$work/$name")" -v s="$steps" \
            'BEGIN {printf "%.2f", a / (2 * s)}')
    done
done

# row LABEL MINUEND SUBTRAHEND: per call, in both modes, what MINUEND costs over SUBTRAHEND.
row() {
    printf '%-36s' "$1"
    for mode in fast slow; do
        printf ' %9s %9s' \
            "$(awk -v a="${per_call_ns[$2,$mode]}" -v b="${per_call_ns[$3,$mode]}" 'BEGIN {printf "%.1f", a - b}')" \
            "$(awk -v a="${per_call_instructions[$2,$mode]}" -v b="${per_call_instructions[$3,$mode]}" 'BEGIN {printf "%.1f", a - b}')"
    done
    printf '\n'
}
printf 'hot_path.c, per call (malloc or free): ns (medians of %d runs of %d steps) and instructions (callgrind)\n' \
    "$runs" "$steps"
printf '%-36s %19s %19s\n' "" "fast (tcache)" "slow (bins)"
printf '%-36s %9s %9s %9s %9s\n' "" ns instr ns instr
printf '%-36s' "glibc's malloc alone (bare)"
for mode in fast slow; do printf ' %9s %9s' "${per_call_ns[bare,$mode]}" "${per_call_instructions[bare,$mode]}"; done
printf '\n'
row "our collector, over bare" all bare
for piece in "${pieces[@]}"; do row "  $piece" all "$piece"; done
row "exact sites, over the collector" sites all
row "a data file, over the collector" file all
for piece in "${file_pieces[@]}"; do row "  $piece" file "$piece"; done
if [ -n "$glibc" ]; then
    row "glibc's collector, over bare" glibc bare
    row "glibc's with a data file, over bare" glibc_file bare
    row "ours with a data file, over bare" file bare
fi
