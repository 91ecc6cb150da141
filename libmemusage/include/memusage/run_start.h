// SPDX-License-Identifier: MIT
// How the processes of one run agree on which of them writes the data file: the state the
// file was in when the run began, passed down the process tree in MEMUSAGE_OUTPUT_RUN.
//
// The first process of a run to see the file named (memusage, before it starts the
// program; or, with the collector used alone, the first process it is loaded into,
// profiled or not) records what the file looks like; every process started from there
// inherits the record. A process may take the file only while it still looks that way:
// once one process of the run has written it, the others, siblings that inherit nothing
// from each other (`sh -c 'prog 1; prog 2'`), leave it alone, even after it has exited.
// Usable in the collector: no allocation, no exceptions.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace memusage {

inline constexpr char kRunStartVariable[] = "MEMUSAGE_OUTPUT_RUN";

// Enough of a file's identity and state that writing it, or replacing it, shows.
struct FileState {
    bool exists = false;
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modified_ns = 0, changed_ns = 0;

    static FileState of(const struct stat& st) {
        return {true,
                static_cast<uint64_t>(st.st_dev),
                static_cast<uint64_t>(st.st_ino),
                static_cast<uint64_t>(st.st_size),
                st.st_mtim.tv_sec * int64_t{1000000000} + st.st_mtim.tv_nsec,
                st.st_ctim.tv_sec * int64_t{1000000000} + st.st_ctim.tv_nsec};
    }
    bool operator==(const FileState&) const = default;
};

inline FileState file_state(const char* path) {
    struct stat st;
    return stat(path, &st) == 0 ? FileState::of(st) : FileState{};
}

// "DEVICE:INODE:SIZE:MTIME:CTIME:PATH", or "-:PATH" when there was no such file; PATH is
// absolute, so that a process in another directory does not take a record of this file
// for one of the file it names. False when it does not fit in `room` bytes.
inline bool format_run_start(const FileState& state, const char* path, char* out, size_t room) {
    int length = state.exists ? snprintf(out, room, "%llu:%llu:%llu:%lld:%lld:%s",
                                         static_cast<unsigned long long>(state.device),
                                         static_cast<unsigned long long>(state.inode),
                                         static_cast<unsigned long long>(state.size),
                                         static_cast<long long>(state.modified_ns),
                                         static_cast<long long>(state.changed_ns), path)
                              : snprintf(out, room, "-:%s", path);
    return length > 0 && static_cast<size_t>(length) < room;
}

// The state `text` (a MEMUSAGE_OUTPUT_RUN value, or null) records for `path`; false when
// it records none for that file (no run of it is under way).
inline bool parse_run_start(const char* text, const char* path, FileState& state) {
    if (text == nullptr) return false;
    state = FileState{};
    if (text[0] == '-' && text[1] == ':') return strcmp(text + 2, path) == 0;
    unsigned long long numbers[5];
    for (int i = 0; i < 5; ++i) {
        const bool signed_time = i >= 3 && *text == '-';  // a time before 1970
        if (!signed_time && (*text < '0' || *text > '9')) return false;
        char* end = nullptr;
        numbers[i] = signed_time ? static_cast<unsigned long long>(strtoll(text, &end, 10))
                                 : strtoull(text, &end, 10);
        if (end == text || *end != ':') return false;
        text = end + 1;
    }
    if (strcmp(text, path) != 0) return false;
    state = {true,
             numbers[0],
             numbers[1],
             numbers[2],
             static_cast<int64_t>(numbers[3]),
             static_cast<int64_t>(numbers[4])};
    return true;
}

}  // namespace memusage
