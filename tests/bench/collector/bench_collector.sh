#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: what the collector costs a program, side by side with glibc's collector.
#
#   tests/bench/collector/bench_collector.sh [BUILD_DIR]
#
# Builds what it needs into BUILD_DIR (default: build-bench beside the sources) and runs
# the allocation-churn workload (alloc_churn.c: millions of malloc/free of mixed small
# sizes, each block written to) on 1 and 2 threads, without and with a data file: bare,
# under our libmemusage.so and under glibc's, in turns. Two more ways: "2/1cpu", the 2
# threads sharing one core (taskset -c 0: they take turns), and "1+idle", 1 thread beside
# another that allocated once and waits (alloc_churn's IDLE argument). Each figure is the
# median of RUNS runs, and ratios are to the bare run, so machine noise hits every column
# alike. "+RSS" is the median extra maximum resident set our collector adds to the bare
# run.
# Then the event recording's rows (MEMUSAGE_EVENTS, alone and with MEMUSAGE_SITES), ours
# only, with the recording's bytes per event.
# When heaptrack is installed, a last row gives its ratio on 1 thread (3 runs), for scale.
# Then the allocation-sites table: the same workload bare, under ours without
# sites, under unwind_only.c (one unw_backtrace per allocating call and nothing else: the
# floor under exact sites), with exact sites, with sites sampled every 512 KiB, and under
# heaptrack (recording, then heaptrack_print's report, summed; 1 thread only), on 1 and 2
# threads; wall time, CPU time and maximum resident set. And two real programs the same
# ways: sqlite3 building and querying a 200,000-row table in memory (sqlite_workload.sql),
# sqlite3 running 150,000 INSERT statements one by one in one transaction, then an index and
# a group by (its parser's stacks are about 36 frames deep; the statements are made here),
# and python3 round-tripping 200,000 dicts through json 3 times (json_workload.py; PYTHON
# names the interpreter, default /usr/bin/python3).
# SITES_RUNS rounds (default 5), each running every column once, medians; then what one
# unw_backtrace costs, fixed and per frame (unwind_cost.c). SITES_ONLY=yes
# skips the first table; HEAPTRACK=no leaves heaptrack out.
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

if [ "${SITES_ONLY:-no}" != yes ]; then
printf 'alloc_churn, %s steps per thread, medians of %d runs, data files in %s\n' "$steps" "$runs" "$data_dir"
printf '%-8s %-5s %10s %10s %7s %10s %7s %10s\n' threads file "bare ms" "ours ms" ours "glibc ms" glibc "ours +RSS"
for way in 1 2 2/1cpu 1+idle; do
    threads=${way%%[/+]*}
    launcher=()
    extra_arguments=()
    [ "$way" = 2/1cpu ] && launcher=(taskset -c 0)
    [ "$way" = 1+idle ] && extra_arguments=(1)
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
        printf '%-8s %-5s %10.0f %10.0f %7s %10s %7s %6d KiB\n' "$way" "$file" \
            "$(awk -v a="$bare" 'BEGIN {print a / 1e6}')" "$(awk -v a="$ours_ns" 'BEGIN {print a / 1e6}')" \
            "$(awk -v a="$ours_ns" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}')" \
            "$glibc_ns" "$glibc_x" "$(median <"$work/rss")"
    done
done
launcher=()
extra_arguments=()

# The event recording, alone and with allocation sites: ours only, against
# the bare run, with the recording's size per event (the trailer's count; the sites file
# goes to the same directory as the data files).
events_file=$data_file.events
events_sites_file=$data_file.sites
trap 'rm -rf "$work" "$data_file" "$events_file" "$events_sites_file"' EXIT
printf '\n%-8s %-16s %10s %10s %7s %12s\n' threads recording "bare ms" "ours ms" ours "bytes/event"
for threads in 1 2; do
    for recording in "events file" "events + sites"; do
        vars=("MEMUSAGE_EVENTS=$events_file")
        [ "$recording" = "events + sites" ] && vars+=("MEMUSAGE_SITES=$events_sites_file")
        : >"$work/bare" : >"$work/ours"
        for ((i = 0; i < runs; i++)); do
            time_of "$work/bare" MEMUSAGE_BENCH=bare
            time_of "$work/ours" "${vars[@]}" LD_PRELOAD="$ours"
        done
        # The trailer's event_count: the 8 bytes after its magic, 48 bytes from the end.
        bytes=$(stat -c %s "$events_file")
        events=$(od -An -t u8 -j $((bytes - 40)) -N 8 "$events_file" | tr -d ' ')
        rm -f "$events_file" "$events_sites_file"
        bare=$(cut -d' ' -f1 "$work/bare" | median)
        ours_ns=$(cut -d' ' -f1 "$work/ours" | median)
        printf '%-8s %-16s %10.0f %10.0f %7s %12.2f\n' "$threads" "$recording" \
            "$(awk -v a="$bare" 'BEGIN {print a / 1e6}')" "$(awk -v a="$ours_ns" 'BEGIN {print a / 1e6}')" \
            "$(awk -v a="$ours_ns" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}')" \
            "$(awk -v a="$bytes" -v b="$events" 'BEGIN {print (b > 0 ? a / b : 0)}')"
    done
done

if command -v heaptrack >/dev/null; then
    threads=1
    : >"$work/bare" : >"$work/heaptrack"
    for ((i = 0; i < 3; i++)); do
        time_of "$work/bare" MEMUSAGE_BENCH=bare
        read -r ns _ status _ < <("$measure" heaptrack -o "$work/heaptrack-out" "$workload" 1 "$steps" 2>/dev/null)
        echo "$ns" >>"$work/heaptrack"
        rm -f "$work"/heaptrack-out*
    done
    bare=$(cut -d' ' -f1 "$work/bare" | median)
    heaptrack_ns=$(median <"$work/heaptrack")
    printf 'heaptrack, 1 thread: %.0f ms, %.1fx the bare run (medians of 3)\n' \
        "$(awk -v a="$heaptrack_ns" 'BEGIN {print a / 1e6}')" "$(awk -v a="$heaptrack_ns" -v b="$bare" 'BEGIN {print a / b}')"
fi
fi

# --- Allocation sites ---------------------------------------------------------------------
sites_runs=${SITES_RUNS:-5}
sites_file=$work/run.sites
sqlite_workload=$source_dir/tests/bench/collector/sqlite_workload.sql
json_workload=$source_dir/tests/bench/collector/json_workload.py
python=${PYTHON:-/usr/bin/python3}
# The floor under exact sites: one unw_backtrace per allocating call and nothing else.
unwind_only=$helpers/unwind_only.so
${CC:-cc} -O2 -Wall -Wextra -shared -fPIC -o "$unwind_only" "$source_dir/tests/bench/collector/unwind_only.c" -ldl
# timed RESULT-FILE COMMAND...: one run, appending "nanoseconds rss_kib cpu_nanoseconds".
timed() {
    local out=$1
    shift
    read -r ns rss status cpu < <("$measure" "$@" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "exit status $status from $*" >&2
        exit 1
    fi
    echo "$ns $rss $cpu" >>"$out"
}
# heaptrack_timed RESULT-FILE COMMAND...: heaptrack's recording then its report, summed.
heaptrack_timed() {
    local out=$1
    shift
    rm -f "$work"/heaptrack-out*
    read -r record_ns record_rss status record_cpu < <("$measure" heaptrack -o "$work/heaptrack-out" "$@" 2>/dev/null)
    [ "$status" = 0 ] || { echo "heaptrack exited with $status" >&2; exit 1; }
    read -r print_ns _ status print_cpu < <("$measure" heaptrack_print "$(ls "$work"/heaptrack-out*)" 2>/dev/null)
    [ "$status" = 0 ] || { echo "heaptrack_print exited with $status" >&2; exit 1; }
    echo "$((record_ns + print_ns)) $record_rss $((record_cpu + print_cpu))" >>"$out"
    rm -f "$work"/heaptrack-out*
}
have_heaptrack=no
command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null && have_heaptrack=yes
# One round of every column for a program: bare, ours, unwinding alone, exact, sampled,
# heaptrack (HEAPTRACK=no leaves it out).
sites_round() {
    local name=$1
    shift
    timed "$work/$name-bare" env MEMUSAGE_BENCH=bare "$@"
    timed "$work/$name-ours" env LD_PRELOAD="$ours" "$@"
    timed "$work/$name-unwind" env LD_PRELOAD="$unwind_only" "$@"
    timed "$work/$name-exact" env LD_PRELOAD="$ours" MEMUSAGE_SITES="$sites_file" "$@"
    timed "$work/$name-sampled" env LD_PRELOAD="$ours" MEMUSAGE_SITES="$sites_file" \
        MEMUSAGE_SITES_SAMPLE=524288 "$@"
    [ "$have_heaptrack" = yes ] && [ "${HEAPTRACK:-yes}" = yes ] && [ "$name" != churn2 ] &&
        heaptrack_timed "$work/$name-heaptrack" "$@"
    rm -f "$sites_file"
}
# median_of FILE FIELD: the median of one field of a result file.
median_of() { cut -d' ' -f"$2" "$1" | median; }
# sites_row LABEL NAME: the row's wall times, CPU times (each with its ratio to bare) and
# maximum resident sets.
sites_row() {
    local label=$1 name=$2 field what
    local columns=(bare ours unwind exact sampled heaptrack)
    for field in 1 3 2; do
        case $field in
        1) what=wall ;;
        3) what=CPU ;;
        2) what="max RSS" ;;
        esac
        printf '%-34s' "$label, $what"
        for column in "${columns[@]}"; do
            [ -s "$work/$name-$column" ] || { printf ' %18s' -; continue; }
            if [ "$field" = 2 ]; then
                printf ' %18s' "$(median_of "$work/$name-$column" 2) KiB"
            else
                printf ' %18s' "$(awk -v a="$(median_of "$work/$name-$column" "$field")" \
                    -v b="$(median_of "$work/$name-bare" "$field")" \
                    'BEGIN {printf "%.0f ms %.2fx", a / 1e6, a / b}')"
            fi
        done
        printf '\n'
    done
}

# 150,000 INSERT statements, parsed one by one.
sqlite_inserts=$work/inserts.sql
awk 'BEGIN {
    print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, value REAL);"
    print "BEGIN;"
    for (i = 1; i <= 150000; i++)
        printf "INSERT INTO t(name, grp, value) VALUES (%cname-%d%c, %d, %d.5);\n", 39, i, 39, i % 97, i
    print "COMMIT;"
    print "CREATE INDEX t_name ON t(name);"
    print "SELECT grp, count(*), sum(value), max(name) FROM t GROUP BY grp;"
}' >"$sqlite_inserts"
for name in churn1 churn2 sqlite inserts python; do
    for column in bare ours unwind exact sampled heaptrack; do : >"$work/$name-$column"; done
done
for ((i = 0; i < sites_runs; i++)); do
    sites_round churn1 "$workload" 1 "$steps"
    sites_round churn2 "$workload" 2 "$steps"
    sites_round sqlite sqlite3 :memory: ".read $sqlite_workload"
    sites_round inserts sqlite3 :memory: ".read $sqlite_inserts"
    sites_round python "$python" "$json_workload"
done
printf '\nAllocation sites, medians of %d rounds (wall and CPU time with the ratio to bare; max RSS)\n' "$sites_runs"
printf '%-34s %18s %18s %18s %18s %18s %18s\n' "" bare ours "unwinding alone" "exact sites" \
    "sampled 512 KiB" "heaptrack+print"
sites_row "alloc_churn, 1 thread" churn1
sites_row "alloc_churn, 2 threads" churn2
sites_row "sqlite3, 200k rows" sqlite
sites_row "sqlite3, 150k inserts one by one" inserts
sites_row "python3, json 200k dicts x3" python
# What the unwinding column is made of: one unw_backtrace, its fixed part and a frame's.
${CC:-cc} -O2 -Wall -Wextra -o "$helpers/unwind_cost" "$source_dir/tests/bench/collector/unwind_cost.c" -ldl
printf '\n'
"$helpers/unwind_cost" | tail -n1
