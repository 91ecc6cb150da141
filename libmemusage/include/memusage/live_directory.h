// SPDX-License-Identifier: MIT
// Where a user's live-figures files are (memusage/live_format.h): a directory of the
// user's own that no other user can write into, so that no one else can plant a file, a
// FIFO or a link under a name a reader will open, nor fill the user's view with theirs.
//
//   $XDG_RUNTIME_DIR/memusage/PID    when XDG_RUNTIME_DIR names a directory of the user's
//                                    own, closed to others (as a login session's is)
//   /dev/shm/memusage-UID/PID        otherwise
//
// The directory is mode 0700, made by the first profiled process that publishes, and
// accepted only when lstat shows a real directory of the user's, closed to others. A
// reader looks in both places: a service started without XDG_RUNTIME_DIR is seen from a
// login shell that has it.
//
// Shared by the collector (inside the profiled program: system calls only, no
// allocation) and the driver's readers.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace memusage::live_format {

inline constexpr size_t kPathBytes = 4096;
inline constexpr char kRuntimeSubdirectory[] = "/memusage";
inline constexpr char kSharedMemoryPrefix[] = "/dev/shm/memusage-";  // then the uid

enum class Place { runtime, shared_memory };

// Appends `text` to the path being built at `path[length]`; false when it does not fit.
inline bool append_to_path(char (&path)[kPathBytes], size_t& length, const char* text) {
    size_t more = strlen(text);
    if (length + more >= kPathBytes) return false;
    memcpy(path + length, text, more + 1);
    length += more;
    return true;
}

inline bool append_decimal(char (&path)[kPathBytes], size_t& length, uint64_t value) {
    char reversed[24];
    size_t count = 0;
    do reversed[count++] = static_cast<char>('0' + value % 10);
    while ((value /= 10) != 0);
    char digits[24];
    for (size_t i = 0; i < count; ++i) digits[i] = reversed[count - 1 - i];
    digits[count] = '\0';
    return append_to_path(path, length, digits);
}

// Why `path` is not a directory of `uid`'s own, closed to others; nullptr when it is.
// lstat: a symbolic link is refused, whatever it leads to.
inline const char* own_directory_problem(const char* path, uid_t uid) {
    struct stat st;
    if (lstat(path, &st) != 0) return "cannot be read";
    if (!S_ISDIR(st.st_mode)) return "is not a directory";
    if (st.st_uid != uid) return "belongs to another user";
    if ((st.st_mode & 077) != 0) return "is open to other users (its mode is not 0700)";
    return nullptr;
}

// The base XDG_RUNTIME_DIR names is usable: absolute, a directory (stat: a login
// manager's may be reached through a link) of `uid`'s own, closed to others.
inline bool runtime_base_usable(const char* base, uid_t uid) {
    if (base == nullptr || base[0] != '/') return false;
    struct stat st;
    return stat(base, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
           (st.st_mode & 077) == 0;
}

// The directory of `place` for `uid` into `path` (`runtime_base`: XDG_RUNTIME_DIR's
// value); false when the place is not for this user (no usable XDG_RUNTIME_DIR).
inline bool directory_path(Place place, uid_t uid, const char* runtime_base,
                           char (&path)[kPathBytes]) {
    size_t length = 0;
    path[0] = '\0';
    if (place == Place::runtime)
        return runtime_base_usable(runtime_base, uid) &&
               append_to_path(path, length, runtime_base) &&
               append_to_path(path, length, kRuntimeSubdirectory);
    return append_to_path(path, length, kSharedMemoryPrefix) && append_decimal(path, length, uid);
}

// "DIRECTORY/PID" into `path`; false when it does not fit.
inline bool file_path(const char* directory, uint64_t pid, char (&path)[kPathBytes]) {
    size_t length = 0;
    path[0] = '\0';
    return append_to_path(path, length, directory) && append_to_path(path, length, "/") &&
           append_decimal(path, length, pid);
}

}  // namespace memusage::live_format
