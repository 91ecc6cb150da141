# SPDX-License-Identifier: MIT
# Sourced by the memusagestat benchmarks (bench_pictures.sh, bench_report.sh) once they have
# set source_dir, build_dir and runs: builds memusagestat and the collector into build_dir
# (configured without tests when it is new), compiles the helpers, makes the work directory
# and the sites file whose names the synthetic recordings use, and defines the timing
# functions. Leaves: ours, helpers (make_events, make_profile, read_events, measure,
# word_census), work, sites, median, time_of, ms.

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMEMUSAGE_TESTS=OFF >/dev/null
fi
cmake --build "$build_dir" -j2 --target memusagestat memusage_collector >/dev/null
ours=$build_dir/bin/memusagestat
helpers=$build_dir/bench-stat
mkdir -p "$helpers"
here=$source_dir/tests/bench/stat
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -I"$source_dir/libmemusage/include" \
    -I"$source_dir/tests/unit/events" -o "$helpers/make_events" "$here/make_events.cpp"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -I"$source_dir/libmemusage/include" \
    -o "$helpers/make_profile" "$here/make_profile.cpp"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -I"$source_dir/libmemusage/include" \
    -I"$source_dir/memusagestat/src" -o "$helpers/read_events" "$here/read_events.cpp" \
    "$source_dir/memusagestat/src/read/events_reader.cpp"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -o "$helpers/measure" "$source_dir/tests/bench/measure.cpp"
${CXX:-c++} -std=c++20 -O2 -g -o "$helpers/word_census" "$source_dir/tests/example/word_census.cpp"

work=${WORK_DIR:-$(mktemp -d)}
cleanup() { [ -z "${WORK_DIR:-}" ] && rm -rf "$work"; }
trap cleanup EXIT

# The example's sites name the recordings' site ids 2-9 (a different run: memusagestat
# warns, which the benchmarks ignore).
sites=$work/names.sites
collector=$build_dir/$(sed -n 's/^MEMUSAGE_COLLECTOR_DIR:INTERNAL=//p' "$build_dir/CMakeCache.txt")/libmemusage.so
MEMUSAGE_SITES=$sites LD_PRELOAD=$collector "$helpers/word_census" \
    >/dev/null 2>&1

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# time_of OUT COMMAND...: appends the command's nanoseconds and maximum resident set to OUT.
time_of() {
    local out=$1
    shift
    read -r ns rss status _ < <("$helpers/measure" "$@" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "$* exited with $status" >&2
        exit 1
    fi
    echo "$ns $rss" >>"$out"
}
ms() { awk -v ns="$1" 'BEGIN {printf "%.0f ms", ns / 1e6}'; }
