#!/usr/bin/env bash
# Makes a sysroot of a board's development packages for memusagestat's cross build (the
# aarch64-stat, armhf-stat and i686-stat presets): Cairo, Pango, libpng, protobuf, Boost,
# libdw, nlohmann-json and the fonts, with everything they depend on, downloaded with
# `apt-get download` and unpacked with `dpkg -x` into DIR, never installed. Debian 12 cannot
# install a board's -dev packages beside the desktop's (the board's libc6-dev asks for its
# linux-libc-dev and libssl at versions that clash with the desktop's), and GLib's
# glibconfig.h differs per architecture, so the desktop's headers cannot stand in for them.
# (Debian names 32-bit x86's architecture i386, its cross compiler i686-linux-gnu.)
#   cmake/toolchains/board_sysroot.sh aarch64|armhf|i686 DIR
set -euo pipefail
case "${1:-}" in
    aarch64) arch=arm64 ;;
    armhf) arch=armhf ;;
    i686) arch=i386 ;;
    *)
        echo "usage: $0 aarch64|armhf|i686 DIR" >&2
        exit 2
        ;;
esac
root=${2:?usage: $0 aarch64|armhf|i686 DIR}
wanted=(libcairo2-dev libpango1.0-dev libpng-dev libprotobuf-dev
    libboost-program-options1.74-dev libdw-dev)
wanted_common=(nlohmann-json3-dev fonts-dejavu-core) # of no architecture
# Unpacked already, from the same list.
stamp="$root/.packages"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wanted[*]} ${wanted_common[*]}" ] && exit 0

# grep reads all of it: with -q it could stop early, and dpkg die of SIGPIPE (pipefail).
dpkg --print-foreign-architectures | grep -x "$arch" >/dev/null || {
    echo "$0: $arch is not an architecture of this machine's package lists (bash .ci/deps adds it)" >&2
    exit 2
}
# Every package they need, recursively: the board's own (name:arch), and those of no
# architecture (fonts, data) that come without one.
mapfile -t names < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${wanted[@]/%/:$arch}" "${wanted_common[@]}" |
    grep -E '^[a-z0-9]' | sort -u)
mapfile -t board < <(printf '%s\n' "${names[@]}" | grep -E ":$arch\$")
mapfile -t plain < <(printf '%s\n' "${names[@]}" | grep -v ':')
mapfile -t common < <(apt-cache show --no-all-versions "${plain[@]}" |
    awk '/^Package:/ {name = $2} /^Architecture: all/ {print name}' | sort -u)

rm -rf "$root"
mkdir -p "$root/.debs"
# (apt's sandbox user may not write into the build: it says so, and downloads as this user.)
(cd "$root/.debs" && apt-get download -q "${board[@]}" "${common[@]}")
debs=("$root"/.debs/*.deb)
for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
rm -rf "$root/.debs"
echo "${wanted[*]} ${wanted_common[*]}" >"$stamp"
echo "$0: $arch sysroot in $root (${#debs[@]} packages)"
