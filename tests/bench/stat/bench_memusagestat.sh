#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: memusagestat against glibc's and against reading the file once with cat.
#
#   tests/bench/stat/bench_memusagestat.sh [BUILD_DIR]
#
# Builds what it needs into BUILD_DIR (default: build-bench beside the sources), writes
# a 5-million-record (120 MB) data file, and times, side by side and in turns:
#   cat FILE > /dev/null,  our memusagestat FILE,  glibc's memusagestat FILE
# reporting medians of several runs and the ratios the project promises: ours at least
# 30x faster than glibc's and within 3x of cat. It then compares our maximum resident
# set on that file and on one four times larger (it must not grow with the file).
# Environment: RUNS (default 7), GLIBC_RUNS (default 3), EVENTS (default 5000000),
# WORK_DIR (default a temporary directory), GLIBC_MEMUSAGESTAT (default
# /usr/bin/memusagestat).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
runs=${RUNS:-7}
glibc_runs=${GLIBC_RUNS:-3}
events=${EVENTS:-5000000}
glibc=${GLIBC_MEMUSAGESTAT:-/usr/bin/memusagestat}

# Only the tool itself through CMake (no tests: the benchmark must not depend on them);
# its two helpers are single files.
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMUSAGE_TESTS=OFF \
    >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target memusagestat >/dev/null
ours=$build_dir/bin/memusagestat
helpers=$build_dir/bench-stat
mkdir -p "$helpers"
here=$source_dir/tests/bench/stat
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -I"$source_dir/libmemusage/include" \
    -o "$helpers/make_profile" "$here/make_profile.cpp"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -o "$helpers/measure" "$source_dir/tests/bench/measure.cpp"
make_profile=$helpers/make_profile
measure=$helpers/measure

work=${WORK_DIR:-$(mktemp -d)}
cleanup() { [ -z "${WORK_DIR:-}" ] && rm -rf "$work"; }
trap cleanup EXIT

data=$work/run.dat
"$make_profile" "$events" "$data"
cat "$data" >/dev/null  # every contender reads from the page cache

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# time_of RESULT-FILE PROGRAM ARGS...: one run, appending "nanoseconds rss" to the file.
time_of() {
    local out=$1
    shift
    read -r ns rss status _ < <("$measure" "$@")
    if [ "$status" != 0 ]; then
        echo "$* exited with $status" >&2
        exit 1
    fi
    echo "$ns $rss" >>"$out"
}

: >"$work/cat" : >"$work/ours" : >"$work/glibc"
for ((i = 0; i < runs; i++)); do
    time_of "$work/cat" cat "$data"
    time_of "$work/ours" "$ours" "$data" "$work/ours.png"
    if ((i < glibc_runs)); then time_of "$work/glibc" "$glibc" "$data" "$work/glibc.png"; fi
done

cat_ns=$(cut -d' ' -f1 "$work/cat" | median)
ours_ns=$(cut -d' ' -f1 "$work/ours" | median)
glibc_ns=$(cut -d' ' -f1 "$work/glibc" | median)
ours_rss=$(cut -d' ' -f2 "$work/ours" | median)
glibc_rss=$(cut -d' ' -f2 "$work/glibc" | median)

# The same run four times over, for the resident set only.
big=$work/run4.dat
"$make_profile" $((events * 4)) "$big"
: >"$work/ours4"
for ((i = 0; i < 3; i++)); do time_of "$work/ours4" "$ours" "$big" "$work/ours4.png"; done
ours4_rss=$(cut -d' ' -f2 "$work/ours4" | median)
rm -f "$big"

ms() { awk -v ns="$1" 'BEGIN {printf "%.1f ms", ns / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
size=$(stat -c %s "$data")
printf 'data file: %s events, %d MB (medians of %d runs, glibc %d)\n' \
    "$events" $((size / 1000000)) "$runs" "$glibc_runs"
printf '  cat FILE > /dev/null    %10s\n' "$(ms "$cat_ns")"
printf '  memusagestat (ours)     %10s   max RSS %6d KiB\n' "$(ms "$ours_ns")" "$ours_rss"
printf '  memusagestat (glibc)    %10s   max RSS %6d KiB\n' "$(ms "$glibc_ns")" "$glibc_rss"
printf '  4x the file (ours)                   max RSS %6d KiB\n' "$ours4_rss"
speedup=$(ratio "$glibc_ns" "$ours_ns")
versus_cat=$(ratio "$ours_ns" "$cat_ns")
printf 'ours vs glibc: %sx faster (want >= 30)\n' "$speedup"
printf 'ours vs cat:   %sx the time (want <= 3)\n' "$versus_cat"
printf 'max RSS, 4x the file vs 1x: %s (want ~1)\n' "$(ratio "$ours4_rss" "$ours_rss")"

awk -v s="$speedup" -v c="$versus_cat" -v r1="$ours_rss" -v r4="$ours4_rss" \
    'BEGIN {exit !(s >= 30 && c <= 3 && r4 <= r1 * 1.25 + 1024)}' ||
    { echo "FAIL: a target was missed" >&2; exit 1; }
echo "PASS"
