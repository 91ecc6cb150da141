#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package, end to end: built by CPack from the release build (build/), checked by
# lintian, installed with apt-get beside glibc's tools, run on the bundled example through the
# `memusage` on PATH, then removed, after which glibc's memusage and memusagestat must be back
# where they were. Needs root (or sudo): it installs and removes a package.
#   tests/package/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
fail() {
    echo "tests/package/check.sh: $*" >&2
    exit 1
}
build=$PWD/build
[ -x "$build/bin/memusage" ] || fail "build the release build first (cmake --workflow --preset default)"
glibc_tools=(/usr/bin/memusage /usr/bin/memusagestat)
for tool in "${glibc_tools[@]}"; do
    [ "$(dpkg-query -S "$tool" 2>/dev/null)" = "libc-devtools: $tool" ] ||
        fail "$tool is not libc-devtools' (bash .ci/deps test installs it)"
done
glibc_collector=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmemusage.so
before=$(sha256sum "${glibc_tools[@]}" "$glibc_collector")

rm -f "$build"/memusage_*.deb
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$build"/memusage_*.deb)
echo "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
# Errors fail the check; warnings are printed for whoever reads the log.
lintian --fail-on error --tag-display-limit 0 "$deb"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; run apt-get remove -y -qq memusage >/dev/null 2>&1 || true' EXIT
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
[ "$(command -v memusage)" = /usr/bin/memusage ] || fail "memusage is not on PATH at /usr/bin"
memusage --version | grep -q '^memusage' || fail "the installed memusage is not this project's"
# The collector in the architecture's private directory, Debian's place for it; libc6's own
# collector stays where it was.
collector=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/memusage/libmemusage.so
[ -f "$collector" ] || fail "the collector is not $collector"
[ "$(dpkg-query -S "$collector" 2>/dev/null)" = "memusage: $collector" ] || fail "$collector is not the package's"
# The drawing and reports beside it: loaded by the -p run below, only when an option needs them.
[ -f "${collector%/*}/memusage-reports.so" ] || fail "the report module is not beside the collector"
[ "$(memusage --color=never env 2>/dev/null | grep '^LD_PRELOAD=')" = "LD_PRELOAD=$collector" ] ||
    fail "the installed memusage does not preload the installed collector"
[ -f /usr/bin/memusage.glibc ] || fail "glibc's memusage was not kept as memusage.glibc"
# The example, through the installed driver: summary and graph.
(cd "$scratch" && memusage --color=never -p example.png "$build/example/word_census" >out 2>err) ||
    fail "the installed memusage failed on the example: $(cat "$scratch/err")"
grep -q '^Memory usage summary: heap total: [1-9]' "$scratch/err" || fail "no summary from the installed memusage"
[ "$(head -c 8 "$scratch/example.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "the installed memusage drew no PNG"
man -w memusage | grep -q '/usr/share/man/man1/memusage.1.gz' || fail "memusage's man page is not installed"
# The glibc tools stay usable beside ours.
/usr/bin/memusage.glibc --version >/dev/null || fail "glibc's memusage.glibc does not run"

run env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq memusage >/dev/null
[ "$(sha256sum "${glibc_tools[@]}" "$glibc_collector")" = "$before" ] || fail "glibc's tools are not back after the removal"
[ -z "$(dpkg-divert --list 'memusage*' 2>/dev/null | grep 'by memusage')" ] ||
    fail "diversions left behind: $(dpkg-divert --list | grep 'by memusage')"
[ ! -e /usr/bin/memusage.glibc ] || fail "memusage.glibc left behind"
echo "tests/package/check.sh: the package installs, runs the example, passes lintian and leaves glibc's tools as they were"
