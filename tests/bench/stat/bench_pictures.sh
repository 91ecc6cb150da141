#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the pictures of where and when from a 10-million-event recording, each beside the
# time to read the recording once.
#
#   tests/bench/stat/bench_pictures.sh [BUILD_DIR]
#
# Builds memusagestat, the collector and the example into BUILD_DIR (default: build-bench
# beside the sources), writes a synthetic recording of EVENTS events through the format's
# encoding (tests/unit/events/events_file_builder.h: two threads, a pool churning, buffers
# grown by realloc far above it, leaks), takes the example's sites file for the names, and
# times, in turns:
#   read_events FILE (the reader alone, once through),
#   memusagestat --stacked, --block-map (by site, thread and size), --flame,
# reporting medians and the target: each picture under 2 s.
# Environment: RUNS (default 5), EVENTS (default 10000000), WORK_DIR (default a temporary
# directory).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
runs=${RUNS:-5}
events=${EVENTS:-10000000}

source "$source_dir/tests/bench/stat/stat_bench_setup.sh"

recording=$work/run.events
"$helpers/make_events" "$events" "$recording"
cat "$recording" >/dev/null  # every contender reads from the page cache

names=(read stacked map_site map_thread map_size flame)
for name in "${names[@]}"; do : >"$work/$name"; done
for ((i = 0; i < runs; i++)); do
    time_of "$work/read" "$helpers/read_events" "$recording"
    time_of "$work/stacked" "$ours" --events="$recording" --sites="$sites" --stacked="$work/s.png"
    time_of "$work/map_site" "$ours" --events="$recording" --sites="$sites" --block-map="$work/b.png"
    time_of "$work/map_thread" "$ours" --events="$recording" --block-map="$work/b.png" \
        --color-by=thread
    time_of "$work/map_size" "$ours" --events="$recording" --block-map="$work/b.png" --color-by=size
    time_of "$work/flame" "$ours" --sites="$sites" --flame="$work/f.png"
done

size=$(stat -c %s "$recording")
printf 'recording: %s events, %d MB (medians of %d runs)\n' "$events" $((size / 1000000)) "$runs"
worst=0
for name in "${names[@]}"; do
    ns=$(cut -d' ' -f1 "$work/$name" | median)
    rss=$(cut -d' ' -f2 "$work/$name" | median)
    printf '  %-12s %10s   max RSS %7d KiB\n' "$name" "$(ms "$ns")" "$rss"
    [ "$name" != read ] && ((ns > worst)) && worst=$ns
done
if ((worst < 2000000000)); then echo "PASS: every picture under 2 s"; else
    echo "FAIL: a picture took $(ms "$worst")" >&2
    exit 1
fi
