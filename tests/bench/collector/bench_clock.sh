#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What one reading of the collector's clock costs (platform/clock.h), on this machine and,
# with the cross compilers and qemu-user installed, on the boards under emulation: those
# figures are the emulator's, not the boards' (qemu translates the counter's read into a
# call of its own), and only say that the code runs.
#   tests/bench/collector/bench_clock.sh [READS]
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
reads=${1:-2000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build() {  # compiler, output
    "$1" -std=c++20 -O2 -Wall -Wextra -I"$source_dir/libmemusage/src" \
        -o "$2" "$source_dir/tests/bench/collector/clock_cost.cpp"
}
build "${CXX:-c++}" "$work/native"
echo "== $(uname -m), native"
"$work/native" "$reads"
for spec in aarch64-linux-gnu:aarch64 arm-linux-gnueabihf:arm riscv64-linux-gnu:riscv64 \
    i686-linux-gnu:i386; do
    triplet=${spec%%:*} qemu=qemu-${spec##*:}-static
    command -v "$triplet-g++" >/dev/null && command -v "$qemu" >/dev/null || continue
    build "$triplet-g++" "$work/$triplet"
    echo "== $triplet, under $qemu (emulated: not the board's cost)"
    "$qemu" -L "/usr/$triplet" "$work/$triplet" "$((reads / 10))"
done
