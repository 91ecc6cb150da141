#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the HTML report (memusagestat --html) of a 5-million-event run, beside the time
# to read its input files once; and the report's size on a 10-million-event run, which must
# stay under 25 MB.
#
#   tests/bench/stat/bench_report.sh [BUILD_DIR]
#
# Builds memusagestat, the collector and the example into BUILD_DIR (default: build-bench
# beside the sources), writes a synthetic recording of EVENTS events (make_events.cpp, as the
# pictures' benchmark does) and a data file of as many records (make_profile.cpp), takes the
# example's sites file for the names, and times, in turns:
#   read_events FILE and cat DATAFILE (the inputs read once: the yardstick),
#   memusagestat --html=OUT DATAFILE --sites=FILE --events=FILE,
# reporting medians, their ratio, and the target: the report under 2 s. Then the same report
# of BIG_EVENTS events (default 10000000), whose size must be under 25 MB.
# Environment: RUNS (default 5), EVENTS (default 5000000), BIG_EVENTS, WORK_DIR (default a
# temporary directory).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
runs=${RUNS:-5}
events=${EVENTS:-5000000}
big_events=${BIG_EVENTS:-10000000}

source "$source_dir/tests/bench/stat/stat_bench_setup.sh"

make_run() {  # make_run EVENTS PREFIX
    "$helpers/make_events" "$1" "$2.events"
    "$helpers/make_profile" "$1" "$2.dat"
    cat "$2.events" "$2.dat" >/dev/null  # every contender reads from the page cache
}
make_run "$events" "$work/run"

: >"$work/t_read" && : >"$work/t_cat" && : >"$work/t_report"
for ((i = 0; i < runs; i++)); do
    time_of "$work/t_read" "$helpers/read_events" "$work/run.events"
    time_of "$work/t_cat" cat "$work/run.dat"
    time_of "$work/t_report" "$ours" --html="$work/report.html" "$work/run.dat" \
        --sites="$sites" --events="$work/run.events"
done

read_ns=$(cut -d' ' -f1 "$work/t_read" | median)
cat_ns=$(cut -d' ' -f1 "$work/t_cat" | median)
report_ns=$(cut -d' ' -f1 "$work/t_report" | median)
report_rss=$(cut -d' ' -f2 "$work/t_report" | median)
inputs_ns=$((read_ns + cat_ns))
printf 'run: %s events, recording %d MB, data file %d MB (medians of %d runs)\n' "$events" \
    $(($(stat -c %s "$work/run.events") / 1000000)) $(($(stat -c %s "$work/run.dat") / 1000000)) \
    "$runs"
printf '  %-28s %10s\n' "read the recording once" "$(ms "$read_ns")"
printf '  %-28s %10s\n' "read the data file once" "$(ms "$cat_ns")"
printf '  %-28s %10s   max RSS %7d KiB\n' "write the report" "$(ms "$report_ns")" "$report_rss"
awk -v r="$report_ns" -v i="$inputs_ns" 'BEGIN {printf "  ratio to reading the inputs once: %.1f\n", r / i}'
printf '  report: %d bytes\n' "$(stat -c %s "$work/report.html")"
status=0
if ((report_ns < 2000000000)); then echo "PASS: the report under 2 s"; else
    echo "FAIL: the report took $(ms "$report_ns")" >&2
    status=1
fi

rm -f "$work"/run.*
make_run "$big_events" "$work/big"
"$ours" --html="$work/big.html" "$work/big.dat" --sites="$sites" --events="$work/big.events" \
    2>/dev/null
size=$(stat -c %s "$work/big.html")
printf 'report of %s events: %d bytes (%.1f MB)\n' "$big_events" "$size" \
    "$(awk -v s="$size" 'BEGIN {print s / 1e6}')"
if ((size < 25000000)); then echo "PASS: under 25 MB"; else
    echo "FAIL: over 25 MB" >&2
    status=1
fi
exit $status
