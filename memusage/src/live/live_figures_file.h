// Reading the live figures a profiled process publishes (memusage/live_format.h): its
// file mapped read-only, whole copies of the figures through the sequence counter, and
// whether the file is stale (its process is gone, or the pid now names another one).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memusage/live_format.h"

namespace memusage::live {

// "/dev/shm/memusage-<uid>-<pid>" (`directory` replaces /dev/shm).
std::string figures_file_path(uid_t uid, pid_t pid,
                              const std::string& directory = live_format::kDirectory);

// The process's start in clock ticks since boot (/proc/PID/stat, field 22); nullopt when
// there is no such process.
std::optional<uint64_t> process_start_ticks(pid_t pid);

// A whole copy of the figures: the sequence counter even and the same before and after
// the copy. False when `attempts` copies all met a writer.
bool copy_figures(const live_format::Header& shared, live_format::Figures& out,
                  int attempts = 1000);

// A file is stale when no process has its pid, or the one that has it started after the
// one that made the file (a tick or so earlier is the writer itself, under an emulator).
bool is_stale(const live_format::Header& header);

class LiveFiguresFile {
  public:
    LiveFiguresFile() = default;
    ~LiveFiguresFile();
    LiveFiguresFile(LiveFiguresFile&& other) noexcept;
    LiveFiguresFile& operator=(LiveFiguresFile&&) = delete;
    LiveFiguresFile(const LiveFiguresFile&) = delete;
    LiveFiguresFile& operator=(const LiveFiguresFile&) = delete;

    // Maps `path`; empty on success, else why not (no such file, not ours to read, not a
    // live-figures file, from another kind of machine).
    std::string open(const std::string& path);
    const live_format::Header& header() const { return *header_; }
    bool read(live_format::Figures& out) const { return copy_figures(*header_, out); }

  private:
    const live_format::Header* header_ = nullptr;
};

struct RunningProcess {
    pid_t pid;
    std::string program;
    uint64_t start_ns;  // CLOCK_MONOTONIC at its collector's start
    live_format::Figures figures;
};

// The current user's profiled processes running now, by pid; stale files met on the way
// are removed. `directory` replaces /dev/shm (tests).
std::vector<RunningProcess> running_processes(
    const std::string& directory = live_format::kDirectory);

}  // namespace memusage::live
