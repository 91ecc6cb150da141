#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README's first command, timed as a newcomer meets it: on a fresh Debian 12 (a bookworm root
# made with debootstrap, apt's lists never fetched, nothing but what debootstrap installs plus
# git to clone with), in a clean clone of this checkout's commit, run exactly as README.md
# writes it. Prints the wall time and the CPU seconds (the command's own and its children's:
# the figure that holds when the machine is shared), the time each of its three steps took,
# the cores, and the machine's load average meanwhile. Run as root (chroot, mounts); the root
# is unmounted and removed at the end, whatever happens.
#   sudo bash tests/bench/first_command.sh [--keep] [WORKDIR]
# WORKDIR (/var/tmp/memusage-first-command by default) keeps the freshly made root as a
# tarball (bookworm.tar) so that measuring again starts from the same fresh root without
# debootstrap; --keep leaves the root (unmounted) for a look inside.
set -euo pipefail
keep=false
if [ "${1:-}" = --keep ]; then
    keep=true
    shift
fi
work=${1:-/var/tmp/memusage-first-command}
source=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || {
    echo "first_command.sh: run as root (it makes a chroot)" >&2
    exit 2
}
commit=$(git -C "$source" rev-parse HEAD)
git -C "$source" diff --quiet HEAD -- README.md .ci CMakeLists.txt CMakePresets.json ||
    echo "first_command.sh: note: uncommitted changes are not measured (the clone is of $commit)" >&2
# README's first command: the line of its "Try it" section that starts with `bash .ci/deps &&`.
first=$(sed -n 's/^    \(bash \.ci\/deps && .*\)$/\1/p' "$source/README.md" | head -n1)
[ -n "$first" ] || {
    echo "first_command.sh: README.md names no first command (an indented line 'bash .ci/deps && ...')" >&2
    exit 1
}

mkdir -p "$work"
root=$work/root
mounted=()
cleanup() {
    local m i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[i]}
        umount "$m" 2>/dev/null || umount -l "$m"
    done
    [ -z "${sampler:-}" ] || kill "$sampler" 2>/dev/null || true
    # Never remove a root that still has something mounted in it.
    if ! $keep && ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT

# A fresh bookworm, made once and kept as a tarball. Debian's default variant (priority
# required and important, as a minimal installation has) plus git and its certificates.
if [ ! -f "$work/bookworm.tar" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
    rm -rf "$root"
    debootstrap --include=git,ca-certificates bookworm "$root" http://deb.debian.org/debian \
        >"$work/debootstrap.log" 2>&1 || {
        tail -n5 "$work/debootstrap.log" >&2
        exit 1
    }
    # Debian's installer writes the release, its updates and its security archive; apt's
    # lists are left unfetched, as on a machine nobody ran apt-get update on.
    rm -f "$root/etc/apt/sources.list"
    cat >"$root/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # This machine's apt settings (its mirror's dates), as every machine of its kind has them.
    cp /etc/apt/apt.conf.d/99artifact-registry "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
    find "$root/var/lib/apt/lists" -type f -delete
    rm -f "$root"/var/cache/apt/archives/*.deb
    tar -C "$root" -cf "$work/bookworm.tar" .
fi
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$work/bookworm.tar"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine's network reaches the registries through its own certificate authority: the
# fresh root trusts what this machine trusts (its local certificates, and node told so, as
# this machine's environment tells it), or npm cannot fetch anything.
ca_env=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1
    [ -z "${NODE_EXTRA_CA_CERTS:-}" ] || ca_env=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
fi
for m in proc sys dev dev/pts; do
    case $m in
        proc) mount -t proc proc "$root/proc" ;;
        sys) mount -t sysfs sys "$root/sys" ;;
        dev) mount --bind /dev "$root/dev" ;;
        dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
    esac
    mounted+=("$root/$m")
done
git clone -q --no-checkout "$source" "$root/root/memusage"
git -C "$root/root/memusage" checkout -q "$commit"

# The load average every 5 s while the command runs: other work on the machine shows here,
# and the CPU seconds are the figure it changes least.
: >"$work/loadavg"
(while sleep 5; do cut -d' ' -f1 /proc/loadavg >>"$work/loadavg"; done) &
sampler=$!
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The command as written, in a login-like environment (no variable of this shell leaks in:
# no ccache, no compiler launcher). Each step's start is traced with its time.
cat >"$root/root/first.sh" <<EOF
cd /root/memusage
exec 9>/root/first.trace
BASH_XTRACEFD=9
PS4='+ \$EPOCHREALTIME '
TIMEFORMAT='%R %U %S'
start=\$EPOCHREALTIME
set +e
# (time's report to first.time; the command's own errors to the log, through 3.)
{ time { set -x; $first; status=\$?; set +x; } 2>&3; } 3>&2 2>/root/first.time
echo "\$start \$status" >/root/first.start
EOF
# (The command's own status is read from first.start.)
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb "${ca_env[@]}" bash /root/first.sh >"$work/output.log" 2>&1 || true
kill "$sampler" 2>/dev/null || true
sampler=
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

read -r start code <"$root/root/first.start"
read -r wall user sys < <(tail -n1 "$root/root/first.time")
# The steps: the trace's line that starts each of the command's three parts.
steps=$(awk -v start="$start" '
    / bash \.ci\/deps/ && !d { d = $2 }
    / cmake --workflow/ && !c { c = $2 }
    / build\/bin\/memusage / && !m { m = $2 }
    END { printf "%s %s %s", d - start, c - start, m - start }' "$root/root/first.trace")
read -r t_deps t_cmake t_run <<<"$steps"
summary=$(grep -c '^Memory usage summary:' "$work/output.log" || true)
png=absent
[ -s "$root/root/memusage/word_census.png" ] && {
    png="$(stat -c %s "$root/root/memusage/word_census.png") bytes"
    cp "$root/root/memusage/word_census.png" "$work/word_census.png"
}
# shellcheck disable=SC2016 # dpkg-query's own fields
packages=$(chroot "$root" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed')
# Inside bash .ci/deps: apt-get's unpacking and configuring (its history's start and end; the
# lists and the downloads come before), and how many of the packages are node's (Debian's npm
# and what it depends on) against the rest.
apt_seconds=$(sed -n 's/^\(Start\|End\)-Date: *//p' "$root/var/log/apt/history.log" | tr -s ' ' |
    while read -r d t; do date -d "$d $t" +%s; done | paste -sd' ' - | awk '{ s = 0; for (i = 2; i <= NF; i += 2) s += $i - $(i - 1); print s }')
# shellcheck disable=SC2016 # dpkg-query's own fields
node_packages=$(chroot "$root" dpkg-query -W -f='${Package}\n' | grep -c -E '^(node-|libjs-|nodejs$|npm$|libnode)' || true)
download=$(du -sm "$root/var/cache/apt/archives" | cut -f1)
base_packages=$(tar -xOf "$work/bookworm.tar" ./var/lib/dpkg/status | grep -c '^Status: install ok installed')
cp "$root/root/first.trace" "$work/first.trace"
printf '%s\n' \
    "command:      $first" \
    "commit:       $commit" \
    "exit status:  $code" \
    "wall:         $wall s" \
    "CPU:          $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f s (user %.1f, system %.1f)", u + s, u, s }')" \
    "steps (wall): bash .ci/deps $(awk -v a="$t_deps" -v b="$t_cmake" 'BEGIN { printf "%.0f", b - a }') s," \
    "              cmake --workflow --preset tools $(awk -v a="$t_cmake" -v b="$t_run" 'BEGIN { printf "%.0f", b - a }') s," \
    "              memusage -p $(awk -v a="$t_run" -v w="$wall" 'BEGIN { printf "%.0f", w - a }') s" \
    "packages:     $((packages - base_packages)) installed on top of debootstrap's $base_packages ($node_packages of them npm's: node-*, libjs-*, nodejs, libnode), $download MB downloaded" \
    "              apt-get's unpacking and configuring: $apt_seconds s of bash .ci/deps" \
    "summary:      $([ "$summary" -ge 1 ] && echo printed || echo MISSING)" \
    "word_census.png: $png" \
    "nproc:        $(nproc)" \
    "load average: $load_before before, $load_after after; sampled every 5 s: $(sort -n "$work/loadavg" |
        awk '{ a[NR] = $1; s += $1 } END { if (NR) printf "min %.2f, mean %.2f, max %.2f", a[1], s / NR, a[NR]; else printf "none" }')" \
    "output:       $work/output.log"
if [ "$code" != 0 ] || [ "$summary" -lt 1 ] || [ "$png" = absent ]; then
    echo "first_command.sh: the first command failed; its last lines:" >&2
    tail -n 15 "$work/output.log" >&2
    exit 1
fi
