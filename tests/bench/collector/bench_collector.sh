#!/usr/bin/env bash
# Benchmark: what the collector costs a program, side by side with glibc's collector.
#
#   tests/bench/collector/bench_collector.sh [BUILD_DIR]
#
# Builds what it needs into BUILD_DIR (default: build-bench beside the sources) and runs
# the allocation-churn workload (alloc_churn.c: millions of malloc/free of mixed small
# sizes, each block written to) on 1 and 2 threads, without and with a data file: bare,
# under our libmemusage.so and under glibc's, in turns. Each figure is the median of RUNS
# runs, and ratios are to the bare run, so machine noise hits every column alike. "+RSS"
# is the median extra maximum resident set our collector adds to the bare run.
# When heaptrack is installed, a last row gives its ratio on 1 thread (3 runs), for scale.
# Environment: RUNS (default 7), STEPS (per thread, default 5000000), GLIBC_LIBMEMUSAGE
# (default /usr/lib/x86_64-linux-gnu/libmemusage.so; the glibc columns are left out when
# it is absent), DATA_DIR (where the data files go; default /dev/shm when there is one:
# a run writes hundreds of megabytes, and on a disk the kernel's write-back throttling
# would be measured, the same for both collectors, instead of the collectors).
set -euo pipefail

runs=${RUNS:-7}
steps=${STEPS:-5000000}
workload_source=alloc_churn.c
source "$(dirname "$0")/bench_setup.sh"
# time_of RESULT-FILE [VARIABLE=VALUE]...: one run of the workload, appending
# "nanoseconds rss_kib" to the file.
time_of() {
    local out=$1
    shift
    # The variables reach the workload only (through env), and its summary is dropped.
    read -r ns rss status < <("$measure" env "$@" "$workload" "$threads" "$steps" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "the workload exited with $status under $*" >&2
        exit 1
    fi
    echo "$ns $rss" >>"$out"
    rm -f "$data_file"
}

printf 'alloc_churn, %s steps per thread, medians of %d runs, data files in %s\n' "$steps" "$runs" "$data_dir"
printf '%-8s %-5s %10s %10s %7s %10s %7s %10s\n' threads file "bare ms" "ours ms" ours "glibc ms" glibc "ours +RSS"
for threads in 1 2; do
    for file in no yes; do
        data=()
        [ "$file" = yes ] && data=("MEMUSAGE_OUTPUT=$data_file")
        : >"$work/bare" : >"$work/ours" : >"$work/glibc" : >"$work/rss"
        for ((i = 0; i < runs; i++)); do
            time_of "$work/bare" MEMUSAGE_BENCH=bare
            time_of "$work/ours" "${data[@]}" LD_PRELOAD="$ours"
            [ -n "$glibc" ] && time_of "$work/glibc" "${data[@]}" LD_PRELOAD="$glibc"
            paste -d' ' <(tail -n1 "$work/bare") <(tail -n1 "$work/ours") | awk '{print $4 - $2}' >>"$work/rss"
        done
        bare=$(cut -d' ' -f1 "$work/bare" | median)
        ours_ns=$(cut -d' ' -f1 "$work/ours" | median)
        glibc_ns=n/a glibc_x=n/a
        if [ -n "$glibc" ]; then
            glibc_ns=$(cut -d' ' -f1 "$work/glibc" | median)
            glibc_x=$(awk -v a="$glibc_ns" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}')
            glibc_ns=$(awk -v a="$glibc_ns" 'BEGIN {printf "%.0f", a / 1e6}')
        fi
        printf '%-8s %-5s %10.0f %10.0f %7s %10s %7s %6d KiB\n' "$threads" "$file" \
            "$(awk -v a="$bare" 'BEGIN {print a / 1e6}')" "$(awk -v a="$ours_ns" 'BEGIN {print a / 1e6}')" \
            "$(awk -v a="$ours_ns" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}')" \
            "$glibc_ns" "$glibc_x" "$(median <"$work/rss")"
    done
done

# The event recording (issue 11), alone and with allocation sites: ours only, against
# the bare run, with the recording's size per event (the trailer's count; the sites file
# goes to the same directory as the data files).
events_file=$data_file.events
sites_file=$data_file.sites
trap 'rm -rf "$work" "$data_file" "$events_file" "$sites_file"' EXIT
printf '\n%-8s %-16s %10s %10s %7s %12s\n' threads recording "bare ms" "ours ms" ours "bytes/event"
for threads in 1 2; do
    for recording in "events file" "events + sites"; do
        vars=("MEMUSAGE_EVENTS=$events_file")
        [ "$recording" = "events + sites" ] && vars+=("MEMUSAGE_SITES=$sites_file")
        : >"$work/bare" : >"$work/ours"
        for ((i = 0; i < runs; i++)); do
            time_of "$work/bare" MEMUSAGE_BENCH=bare
            time_of "$work/ours" "${vars[@]}" LD_PRELOAD="$ours"
        done
        # The trailer's event_count: the 8 bytes after its magic, 48 bytes from the end.
        bytes=$(stat -c %s "$events_file")
        events=$(od -An -t u8 -j $((bytes - 40)) -N 8 "$events_file" | tr -d ' ')
        rm -f "$events_file" "$sites_file"
        bare=$(cut -d' ' -f1 "$work/bare" | median)
        ours_ns=$(cut -d' ' -f1 "$work/ours" | median)
        printf '%-8s %-16s %10.0f %10.0f %7s %12.2f\n' "$threads" "$recording" \
            "$(awk -v a="$bare" 'BEGIN {print a / 1e6}')" "$(awk -v a="$ours_ns" 'BEGIN {print a / 1e6}')" \
            "$(awk -v a="$ours_ns" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}')" \
            "$(awk -v a="$bytes" -v b="$events" 'BEGIN {print b > 0 ? a / b : 0}')"
    done
done

if command -v heaptrack >/dev/null; then
    threads=1
    : >"$work/bare" : >"$work/heaptrack"
    for ((i = 0; i < 3; i++)); do
        time_of "$work/bare" MEMUSAGE_BENCH=bare
        read -r ns _ status < <("$measure" heaptrack -o "$work/heaptrack-out" "$workload" 1 "$steps" 2>/dev/null)
        echo "$ns" >>"$work/heaptrack"
        rm -f "$work"/heaptrack-out*
    done
    bare=$(cut -d' ' -f1 "$work/bare" | median)
    heaptrack_ns=$(median <"$work/heaptrack")
    printf 'heaptrack, 1 thread: %.0f ms, %.1fx the bare run (medians of 3)\n' \
        "$(awk -v a="$heaptrack_ns" 'BEGIN {print a / 1e6}')" "$(awk -v a="$heaptrack_ns" -v b="$bare" 'BEGIN {print a / b}')"
fi
