#!/usr/bin/env bash
# Collector overhead, measured side by side: the allocation-churn workload bare, under
# our libmemusage.so and under glibc's, with and without a data file, on 1 and 2
# threads. Runs are interleaved and each figure is the median of RUNS runs; ratios are
# to the bare run of the same round, so machine noise hits all columns alike.
#
#   tests/bench/collector/run.sh [BUILD_DIR] [RUNS] [STEPS_PER_THREAD]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
steps=${3:-4000000}
ours=$build/lib/libmemusage.so
[ -f "$ours" ] || ours=$(find "$build" -name libmemusage.so -print -quit)
workload=$build/tests/bench/collector/alloc_churn
glibc=/usr/lib/x86_64-linux-gnu/libmemusage.so
for f in "$ours" "$workload"; do
  [ -x "$f" ] || [ -f "$f" ] || { echo "missing $f: build the project first (cmake --workflow --preset default)" >&2; exit 1; }
done
have_glibc=1
[ -f "$glibc" ] || have_glibc=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Prints "seconds max_rss_kib" for one run of the workload under the given environment.
measure() {
  local out=$scratch/time
  env "$@" /usr/bin/time -f "%e %M" -o "$out" "$workload" "$threads" "$steps" 2>/dev/null >/dev/null
  cat "$out"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '%-8s %-8s %10s %10s %8s %10s %8s %12s\n' threads file "bare s" "ours s" "ours x" "glibc s" "glibc x" "ours +RSS"
for threads in 1 2; do
  for file in no yes; do
    : >"$scratch/bare"; : >"$scratch/ours"; : >"$scratch/glibc"; : >"$scratch/rss"
    for ((r = 0; r < runs; r++)); do
      data=()
      [ "$file" = yes ] && data=(MEMUSAGE_OUTPUT="$scratch/run.dat")
      read -r bare_s bare_rss < <(measure X=1)
      read -r ours_s ours_rss < <(measure "${data[@]}" LD_PRELOAD="$ours")
      echo "$bare_s" >>"$scratch/bare"
      echo "$ours_s" >>"$scratch/ours"
      echo $((ours_rss - bare_rss)) >>"$scratch/rss"
      if [ $have_glibc = 1 ]; then
        read -r glibc_s _ < <(measure "${data[@]}" LD_PRELOAD="$glibc")
        echo "$glibc_s" >>"$scratch/glibc"
      fi
    done
    b=$(median <"$scratch/bare"); o=$(median <"$scratch/ours"); rss=$(median <"$scratch/rss")
    g=n/a; gx=n/a
    if [ $have_glibc = 1 ]; then g=$(median <"$scratch/glibc"); gx=$(awk -v a="$g" -v b="$b" 'BEGIN{printf "%.2f", a/b}'); fi
    ox=$(awk -v a="$o" -v b="$b" 'BEGIN{printf "%.2f", a/b}')
    printf '%-8s %-8s %10s %10s %8s %10s %8s %9s KiB\n' "$threads" "$file" "$b" "$o" "$ox" "$g" "$gx" "$rss"
  done
done
