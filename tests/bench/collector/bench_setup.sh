# SPDX-License-Identifier: MIT
# Sourced by the collector benchmarks: builds the collector and the measuring helper
# into BUILD_DIR (the script's first argument, default build-bench beside the sources)
# and compiles the workload named by $workload_source. Sets source_dir, ours, glibc
# (empty when glibc's collector is absent), workload, measure, work, data_file,
# median() (the median of the first numbers of the lines on standard input) and
# time_of() (one run of the workload with $threads and $steps).
source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$source_dir/build-bench}
glibc=${GLIBC_LIBMEMUSAGE:-/usr/lib/x86_64-linux-gnu/libmemusage.so}

cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMUSAGE_TESTS=OFF >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target memusage_collector >/dev/null
# The build's own library, not one of bench_pieces.sh's (built beside it, in pieces/).
# (Its directory, lib/<multiarch>/memusage or lib/memusage, is the one CMake chose.)
ours=$build_dir/$(sed -n 's/^MEMUSAGE_COLLECTOR_DIR:INTERNAL=//p' "$build_dir/CMakeCache.txt")/libmemusage.so
helpers=$build_dir/bench-collector
mkdir -p "$helpers"
workload=$helpers/$(basename "$workload_source" .c)
${CC:-cc} -O2 -Wall -Wextra -pthread -o "$workload" "$source_dir/tests/bench/collector/$workload_source"
${CXX:-c++} -std=c++20 -O2 -Wall -Wextra -o "$helpers/measure" "$source_dir/tests/bench/measure.cpp"
measure=$helpers/measure
[ -f "$glibc" ] || glibc=

work=$(mktemp -d)
data_dir=${DATA_DIR:-$([ -d /dev/shm ] && echo /dev/shm || echo "$work")}
data_file=$(mktemp "$data_dir/memusage-bench-XXXXXX")
trap 'rm -rf "$work" "$data_file"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# time_of RESULT-FILE [VARIABLE=VALUE]...: one run of the workload, appending
# "nanoseconds rss_kib" to the file. `launcher` (an array, may be empty) goes in front of
# it, `extra_arguments` (another) after $threads and $steps.
launcher=()
extra_arguments=()
time_of() {
    local out=$1
    shift
    # The variables reach the workload only (through env), and its summary is dropped.
    read -r ns rss status _ < <("$measure" ${launcher[@]+"${launcher[@]}"} env "$@" "$workload" \
        "$threads" "$steps" ${extra_arguments[@]+"${extra_arguments[@]}"} 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "the workload exited with $status under $*" >&2
        exit 1
    fi
    echo "$ns $rss" >>"$out"
    rm -f "$data_file"
}
