// SPDX-License-Identifier: MIT
// Reading the live figures a profiled process publishes (memusage/live_format.h): its
// file in a directory of the user's own (memusage/live_directory.h), opened only when it
// is a regular file of the user's, copied with pread (whole copies of the figures
// through the sequence counter), every count in it bounded; and whether the file is
// stale (its process is gone, or the pid now names another one).
//
// pread rather than a mapping: a mapped file that shrinks under its reader (truncated by
// anyone who can write it) turns the next read of a page past its end into SIGBUS, and a
// page a full tmpfs cannot back does the same; a pread just comes back short. The file is
// 5 KiB, read a few times a second: the copy costs nothing worth keeping a mapping for.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memusage/live_format.h"
#include "memusage/status.h"

namespace memusage::live {

// The directories this user's live figures may be in, best first: those of
// memusage/live_directory.h that exist and are the user's own, closed to others.
std::vector<std::string> figures_directories();

// The process's start in clock ticks since boot (/proc/PID/stat, field 22); nullopt when
// there is no such process.
std::optional<uint64_t> process_start_ticks(pid_t pid);

// The figures with every count cut to what the layout holds (a file is another
// process's word, and may be anyone's making).
void bound_counts(live_format::Figures& figures);

// A whole copy of the figures of the open file `fd`: the sequence counter even and the
// same before and after the copy. False when `attempts` copies all met a writer, or the
// file is shorter than its layout (truncated).
bool copy_figures(int fd, live_format::Figures& out, int attempts = 1000);

// A file is stale when no process has its pid, or the one that has it started after the
// one that made the file (a tick or so earlier is the writer itself, under an emulator).
bool is_stale(const live_format::Header& header);

// A place LiveFiguresFile::open_process looked for a process's file, and why the file
// was not read from there.
struct LookedAt {
    std::string path;
    int error = 0;        // the open's errno (ENOENT: no file there), 0 when it opened
    std::string problem;  // in words, for a message
};

// The places looked at, "PATH: PROBLEM" each, "; " between; with `missing` false, only
// those where a file was met and refused (the problems worth naming).
std::string looked_text(const std::vector<LookedAt>& looked, bool missing = true);

class LiveFiguresFile {
  public:
    LiveFiguresFile() = default;
    ~LiveFiguresFile();
    LiveFiguresFile(LiveFiguresFile&& other) noexcept;
    LiveFiguresFile& operator=(LiveFiguresFile&&) = delete;
    LiveFiguresFile(const LiveFiguresFile&) = delete;
    LiveFiguresFile& operator=(const LiveFiguresFile&) = delete;

    // Opens `path` (never blocking: a FIFO or a device under the name is refused, as a
    // link is, and a file of another owner); failing, why not. With `pid`, the file must be
    // that process's. `open_error`, when given, gets the open's errno (0 when the file
    // opened, whatever else refused it).
    Status open(const std::string& path, std::optional<pid_t> pid = std::nullopt,
                int* open_error = nullptr);
    // The file of process `pid`, in whichever of figures_directories() holds it: empty
    // when it opened, else every place it looked and why not there.
    std::vector<LookedAt> open_process(pid_t pid);
    // The header as it was read at open (its figures those of that moment).
    const live_format::Header& header() const { return header_; }
    // The program's name as the file gives it: at most its 64 bytes, unescaped.
    std::string program() const;
    bool read(live_format::Figures& out) const;
    // Asks the process for its top sites (live_format::Header::sites_wanted_ns) as of
    // `now_ns` (CLOCK_MONOTONIC): the one word a reader writes, into the same file only.
    void ask_for_sites(uint64_t now_ns) const;
    // Another file has taken the open one's name: the process exec'd another program,
    // whose collector removed this image's file and made its own (same pid, new figures).
    bool replaced() const;
    // The open file has no name left: its process exec'd, and the image's collector removed
    // it. The new image's file, if it publishes one, may be in another directory.
    bool unlinked() const;

  private:
    int fd_ = -1;
    std::string path_;
    live_format::Header header_{};
};

struct RunningProcess {
    pid_t pid;
    std::string program;  // as the file gives it: escape before printing
    uint64_t start_ns;    // CLOCK_MONOTONIC at its collector's start
    live_format::Figures figures;
};

// The current user's profiled processes running now, by pid; stale files met on the way
// are removed. `directories` replaces figures_directories() (tests); any that is not the
// user's own is passed over.
std::vector<RunningProcess> running_processes(
    const std::vector<std::string>& directories = figures_directories());

}  // namespace memusage::live
