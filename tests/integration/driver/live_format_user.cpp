// SPDX-License-Identifier: MIT
// A reader of one's own of the live figures, built against the installed headers only:
// run under memusage with MEMUSAGE_LIVE=1, it finds its own file where
// <memusage/live_directory.h> says and reads the header <memusage/live_format.h> lays out.
// Prints "live figures of PROGRAM, pid NNN"; exit 0 when its own were found.
#include <fcntl.h>
#include <memusage/live_directory.h>
#include <memusage/live_format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main() {
    using namespace memusage::live_format;
    uid_t uid = geteuid();
    char directory[kPathBytes], path[kPathBytes];
    if (!directory_path(Place::runtime, uid, std::getenv("XDG_RUNTIME_DIR"), directory) &&
        !directory_path(Place::shared_memory, uid, nullptr, directory))
        return 2;
    if (!file_path(directory, static_cast<uint64_t>(getpid()), path)) return 2;
    // The collector makes the file, its header whole, before main.
    Header header;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        std::fprintf(stderr, "no live figures at %s\n", path);
        return 1;
    }
    ssize_t got = pread(fd, &header, sizeof header, 0);
    close(fd);
    if (got != static_cast<ssize_t>(kFileBytes) ||
        std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 || header.version != kVersion)
        return 1;
    std::printf("live figures of %.*s, pid %u\n", static_cast<int>(sizeof header.program),
                header.program, header.pid);
    return 0;
}
