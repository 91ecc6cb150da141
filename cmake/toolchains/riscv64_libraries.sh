#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libraries a riscv64 board's collector and driver need and Debian 12 has no
# riscv64 packages of (riscv64 is no release architecture of it): libunwind (the allocation
# sites' stacks), Boost.Program_options (the driver's options) and ncurses (the driver's
# live view), from Debian 12's own source packages (`apt-get source`, through the deb-src
# entry that .ci/deps adds), cross-compiled with Debian's riscv64 cross compilers into DIR
# at a board's paths (DIR/usr/lib/riscv64-linux-gnu/libunwind.so.8,
# libboost_program_options.so.1.74.0, libncursesw.so.6, libtinfo.so.6). DIR is also a
# board's root for qemu-user (-L DIR, or QEMU_LD_PREFIX=DIR): its lib is the cross
# compiler's C library, so the board's loader finds every library where a board has it.
#   cmake/toolchains/riscv64_libraries.sh DIR
set -euo pipefail
root=${1:?usage: $0 DIR}
triplet=riscv64-linux-gnu
built="libunwind boost1.74:program_options ncurses"
# Built already, the same libraries.
stamp="$root/.libraries"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$built" ] && exit 0

for tool in "$triplet-gcc" "$triplet-g++" dpkg-source make; do
    command -v "$tool" >/dev/null || {
        echo "$0: $tool is missing (bash .ci/deps installs it)" >&2
        exit 2
    }
done
[ -n "$(apt-cache showsrc libunwind 2>/dev/null)" ] || {
    echo "$0: apt knows no source package libunwind: Debian's source archive is not" \
        "among its lists (bash .ci/deps adds it)" >&2
    exit 2
}
grep -qs 'define BOOST_VERSION 107400' /usr/include/boost/version.hpp || {
    echo "$0: the desktop's Boost 1.74 headers are missing (bash .ci/deps installs them)" >&2
    exit 2
}

rm -rf "$root"
mkdir -p "$root/.build" "$root/usr/lib/$triplet"
root=$(cd "$root" && pwd)
work=$root/.build
log=$work/log
failed() {
    echo "$0: $1 failed:" >&2
    tail -n 30 "$log" >&2
    exit 1
}
# (apt's sandbox user may not write into the build: it says so, and downloads as this user.)
(cd "$work" && apt-get source -q libunwind) >"$log" 2>&1 || failed "apt-get source libunwind"

# libunwind as Debian configures it (without the compressed symbol tables: no liblzma or
# zlib for riscv64 either), only the library the collector loads: no tests, manuals, or
# the coredump, ptrace and setjmp libraries. The release tarball's configure is used as it
# is (no autoreconf: its maintainer mode is off, so Debian's patch to a Makefile.am of the
# tests does not regenerate anything).
(
    cd "$work"/libunwind-*/
    ./configure -q --host="$triplet" --prefix=/usr --libdir="/usr/lib/$triplet" \
        --disable-static --disable-tests --disable-documentation --disable-minidebuginfo \
        --disable-zlibdebuginfo --disable-coredump --disable-ptrace --disable-setjmp
    make -s -j"$(nproc)"
    make -s install DESTDIR="$root"
) >>"$log" 2>&1 || failed "the cross build of libunwind"
[ -f "$root/usr/lib/$triplet/libunwind.so.8" ] || failed "the cross build of libunwind"

# Boost.Program_options: only its sources are taken from boost1.74's 60 MB tarball (not
# unpacked whole, nor patched: Debian's one patch of the library is to a header), compiled
# as Boost's own build compiles them, against the desktop's Boost headers (the same on every
# architecture, Debian's patch applied there), into the library Debian's package installs.
(cd "$work" && apt-get source -q --download-only boost1.74) >>"$log" 2>&1 ||
    failed "apt-get source boost1.74"
tar -xJf "$work"/boost1.74_*.orig.tar.xz -C "$work" --wildcards \
    '*/libs/program_options/src/*.cpp' >>"$log" 2>&1 || failed "taking Program_options's sources"
mkdir -p "$work/include"
ln -s /usr/include/boost "$work/include/boost" # not all of /usr/include: the desktop's libc
library=libboost_program_options.so.1.74.0
# As many compiled at once as there are cores.
printf '%s\n' "$work"/*/libs/program_options/src/*.cpp | xargs -P"$(nproc)" -I{} \
    "$triplet-g++" -c -O2 -fPIC -DNDEBUG -DBOOST_ALL_NO_LIB=1 \
    -DBOOST_PROGRAM_OPTIONS_DYN_LINK=1 -isystem "$work/include" {} -o {}.o >>"$log" 2>&1 ||
    failed "the cross build of Boost.Program_options"
"$triplet-g++" -shared -Wl,-soname,$library -o "$root/usr/lib/$triplet/$library" \
    "$work"/*/libs/program_options/src/*.o >>"$log" 2>&1 ||
    failed "the link of Boost.Program_options"

# ncurses: the wide-character library and its terminfo library (libncursesw.so.6 and
# libtinfo.so.6, as Debian's libncursesw6 and libtinfo6 have them), configured as Debian's
# rules configure it for a cross build, without the programs, the database or the other
# libraries (form, menu, panel). The release's configure is used as it is: Debian's one
# patch to configure.in (its root-environ option, not used here) would need Dickey's
# autoconf to regenerate it.
(cd "$work" && apt-get source -q ncurses) >>"$log" 2>&1 || failed "apt-get source ncurses"
(
    cd "$work"/ncurses-*/
    cf_cv_type_of_bool='unsigned char' cf_cv_working_poll=yes ./configure -q \
        --host="$triplet" --build="$(gcc -dumpmachine)" --with-build-cc=gcc --prefix=/usr \
        --libdir="/usr/lib/$triplet" --with-shared --without-normal --without-debug \
        --without-profile --without-cxx --without-cxx-binding --without-ada --without-tests \
        --without-progs --without-manpages --disable-db-install --without-gpm --enable-widec \
        --with-termlib=tinfo --with-versioned-syms --disable-termcap --enable-const \
        --with-default-terminfo-dir=/etc/terminfo --with-xterm-kbs=del \
        --with-terminfo-dirs=/etc/terminfo:/lib/terminfo:/usr/share/terminfo \
        --disable-rpath --disable-stripping --enable-overwrite
    make -s -C include
    make -s -C ncurses -j"$(nproc)" libs
    make -s -C ncurses install.libs DESTDIR="$root"
) >>"$log" 2>&1 || failed "the cross build of ncurses"
[ -f "$root/usr/lib/$triplet/libncursesw.so.6" ] || failed "the cross build of ncurses"

# The board's C library: the cross compiler's own, at the board's /lib.
ln -s "/usr/$triplet/lib" "$root/lib"
rm -rf "$work"
echo "$built" >"$stamp"
echo "$0: $built for riscv64 in $root"
