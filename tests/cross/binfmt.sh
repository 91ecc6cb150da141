#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a command where the kernel starts ARCH's programs through qemu-user, as a board's
# kernel starts them itself: a program that execs another of the board's (/proc/self/exe,
# a shell running a fixture, timeout(1)) then works under emulation too, which qemu-user
# cannot do alone. The registration is the command's own: it runs in a user namespace of
# its own, with a binfmt_misc instance of its own (Linux 6.7 and later), so nothing of the
# machine's changes and two runs at once do not meet. No -L: qemu finds the board's files in
# the root QEMU_LD_PREFIX names (tests/cross/run.sh). i686's programs too, which the kernel
# could run itself, but then with this machine's files instead of the board's.
#   tests/cross/binfmt.sh aarch64|armhf|riscv64|i686 COMMAND [ARGUMENT...]
set -euo pipefail
arch=${1:?usage: tests/cross/binfmt.sh aarch64|armhf|riscv64|i686 COMMAND [ARGUMENT...]}
shift
# The ELF header of an executable or a shared object (e_type 2 or 3) of the machine:
# class, byte order and version, then e_machine (as Debian's qemu-user-binfmt has them).
case "$arch" in
    aarch64) qemu=aarch64 class='\x02' machine='\xb7\x00' ;;
    armhf) qemu=arm class='\x01' machine='\x28\x00' ;;
    riscv64) qemu=riscv64 class='\x02' machine='\xf3\x00' ;;
    i686) qemu=i386 class='\x01' machine='\x03\x00' ;;
    *)
        echo "tests/cross/binfmt.sh: no qemu registration for '$arch' (aarch64, armhf, riscv64, i686)" >&2
        exit 2
        ;;
esac
emulator=$(command -v "qemu-$qemu-static") || {
    echo "tests/cross/binfmt.sh: qemu-$qemu-static is missing (Debian's qemu-user-static)" >&2
    exit 2
}
magic='\x7fELF'$class'\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00'$machine
mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
# F: the kernel opens the emulator now, so the command may change its root or mounts.
registration=":qemu-$qemu:M::$magic:$mask:$emulator:F"

# Inside the namespace: mount the instance where it is usually seen (the mount is the
# namespace's; the registration lasts while it is mounted), register, run.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='
    instance=/proc/sys/fs/binfmt_misc
    mount -t binfmt_misc binfmt_misc "$instance" 2>/dev/null || {
        echo "tests/cross/binfmt.sh: no binfmt_misc of its own in a user namespace" \
            "(Linux 6.7 or later is needed; this is $(uname -r))" >&2
        exit 2
    }
    printf "%s" "$0" >"$instance/register"
    exec "$@"'
exec unshare --user --map-root-user --mount bash -c "$inner" "$registration" "$@"
