#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes a board's files from Debian's packages of its architecture, downloaded with
# `apt-get download` and unpacked with `dpkg -x` into DIR, never installed: nothing of the
# board's is installed on this machine, so a board's archive caught mid-sync, or lagging
# behind the desktop's, can never hold the desktop's packages back.
#   --run-time: the board's root for its tests under qemu-user (-L DIR, QEMU_LD_PREFIX) and
#     for its cross build (the aarch64, armhf and i686 presets link the driver against its
#     libraries): the C library with glibc's own collector, libunwind (the collector's
#     allocation sites), Boost.Program_options (the driver) and ncurses (the live view),
#     with what they depend on.
#   otherwise: a sysroot of the board's development packages for memusagestat's cross build
#     (the aarch64-stat, armhf-stat and i686-stat presets): Cairo, Pango, libpng, protobuf,
#     Boost, libdw, nlohmann-json and the fonts. Debian 12 cannot install a board's -dev
#     packages beside the desktop's (the board's libc6-dev asks for its linux-libc-dev and
#     libssl at versions that clash with the desktop's), and GLib's glibconfig.h differs per
#     architecture, so the desktop's headers cannot stand in for them.
# Only the architecture must be among apt's (`dpkg --add-architecture`, which
# `bash .ci/deps --tests` does) for apt to know the board's package lists.
# (Debian names 32-bit x86's architecture i386, its cross compiler i686-linux-gnu.)
#   cmake/toolchains/board_sysroot.sh [--run-time] aarch64|armhf|i686 DIR
set -euo pipefail
usage="usage: $0 [--run-time] aarch64|armhf|i686 DIR"
kind=development
if [ "${1:-}" = --run-time ]; then
    kind=run-time
    shift
fi
case "${1:-}" in
    aarch64) arch=arm64 ;;
    armhf) arch=armhf ;;
    i686) arch=i386 ;;
    *)
        echo "$usage" >&2
        exit 2
        ;;
esac
root=${2:?$usage}
if [ "$kind" = run-time ]; then
    wanted=(libc6 libunwind8 libboost-program-options1.74.0 libncursesw6 libtinfo6)
    wanted_common=()
else
    wanted=(libcairo2-dev libpango1.0-dev libpng-dev libprotobuf-dev
        libboost-program-options1.74-dev libdw-dev)
    wanted_common=(nlohmann-json3-dev fonts-dejavu-core) # of no architecture
fi
# Unpacked already, from the same list.
stamp="$root/.packages"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wanted[*]} ${wanted_common[*]}" ] && exit 0

fail() {
    echo "$0: $arch: $*" >&2
    exit 1
}
# grep reads all of it: with -q it could stop early, and dpkg die of SIGPIPE (pipefail).
dpkg --print-foreign-architectures | grep -x "$arch" >/dev/null ||
    fail "not an architecture of this machine's package lists (bash .ci/deps --tests adds it)"
# apt's binary cache of its lists, kept for this script's calls (a machine may have it
# turned off, as Debian's container images do: then every call reads all the lists again).
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
apt_options=(-o "Dir::Cache::pkgcache=$cache/pkgcache.bin" -o "Dir::Cache::srcpkgcache=$cache/srcpkgcache.bin")
# Each wanted package with a version to download (apt-cache policy names those it knows,
# "Candidate: (none)" for one it knows of without a version).
known=$(apt-cache "${apt_options[@]}" policy "${wanted[@]/%/:$arch}" 2>/dev/null |
    awk '/^[^ ].*:$/ {name = substr($0, 1, length($0) - 1)}
        /Candidate:/ && $2 != "(none)" {print name}')
unknown=()
for package in "${wanted[@]}"; do
    grep -qx "$package:$arch" <<<"$known" || unknown+=("$package:$arch")
done
[ ${#unknown[@]} -eq 0 ] ||
    fail "apt's lists have no ${unknown[*]} (the board's index is not downloaded: apt-get update)"
# Every package they need, recursively: the board's own (name:arch), and those of no
# architecture (fonts, data) that come without one.
mapfile -t names < <(apt-cache "${apt_options[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${wanted[@]/%/:$arch}" "${wanted_common[@]}" |
    grep -E '^[a-z0-9]' | sort -u)
mapfile -t board < <(printf '%s\n' "${names[@]}" | grep -E ":$arch\$")
mapfile -t plain < <(printf '%s\n' "${names[@]}" | grep -v ':' || true)
common=()
[ ${#plain[@]} -eq 0 ] || mapfile -t common < <(apt-cache "${apt_options[@]}" show --no-all-versions "${plain[@]}" |
    awk '/^Package:/ {name = $2} /^Architecture: all/ {print name}' | sort -u)

rm -rf "$root"
mkdir -p "$root/.debs"
# A package the lists name but the mirror no longer (or not yet) serves: the mirror caught
# mid-sync. Tried three times, 20 s apart; then one line names the packages and versions.
# (apt's sandbox user may not write into the build: it says so, and downloads as this user.)
log=$root/.debs/log
for try in 1 2 3; do
    (cd "$root/.debs" && apt-get "${apt_options[@]}" download -q "${board[@]}" "${common[@]}") >"$log" 2>&1 && break
    if [ "$try" = 3 ]; then
        # "E: Failed to fetch http://.../libfoo_1.2-3_arm64.deb  404  Not Found [IP: ...]"
        missing=$(sed -n 's|^E: Failed to fetch .*/\([^/_]*\)_\([^_]*\)_[^ ]*\.deb *\(.*\)|\1 \2 (\3)|p' "$log" |
            sed 's/ *\[IP:[^]]*\]//; s/%3a/:/g' | paste -sd, - | sed 's/,/, /g')
        fail "the archive does not serve ${missing:-$(grep -m1 '^E:' "$log" || tail -n1 "$log")}" \
            "after 3 tries 20 s apart (a mirror caught mid-sync?)"
    fi
    sleep 20
done
debs=("$root"/.debs/*.deb)
for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
rm -rf "$root/.debs"
echo "${wanted[*]} ${wanted_common[*]}" >"$stamp"
echo "$0: $arch $kind root in $root (${#debs[@]} packages)"
