// SPDX-License-Identifier: MIT
// The summary file (memusage/summary_format.h) as the profiled process owns it: opened (and
// locked) at start, when the clock's first readings are taken, written once at exit from
// the Stats the summary prints. Allocates nothing and throws nothing: it runs at exit,
// inside other people's programs.
#pragma once

#include <cstdint>

#include "memusage/stats.h"
#include "memusage/summary_format.h"
#include "platform/owned_file.h"

namespace memusage {

class SummaryFile {
  public:
    // Creates or truncates `path` (OwnedFile::open), empty until write(), and reads the
    // clocks and the command line (before the program may rewrite its arguments). `busy`:
    // another process holds it. `failed`: errno says why.
    OpenResult open(const char* path);
    bool is_open() const { return file_.is_open(); }

    // The header (its magic last) and `stats`; `flags`: summary_format's. False if the file
    // could not be written whole, write_error() saying why. Closes the file.
    bool write(const Stats& stats, uint32_t flags);
    // Why write() failed: an errno value (EFBIG under a file size limit); 0 before any failure.
    int write_error() const { return write_error_; }

    // Also how a forked child lets go of its parent's file: nothing is written.
    void close() { file_.close(); }

  private:
    OwnedFile file_;
    uint64_t start_cycles_ = 0, start_ns_ = 0;
    // The command line's words, each ended by a NUL; none when /proc could not tell.
    char command_[summary_format::kMostCommandBytes] = {};
    uint32_t command_bytes_ = 0;
    int write_error_ = 0;
};

}  // namespace memusage
