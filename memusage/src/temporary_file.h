// SPDX-License-Identifier: MIT
// A private file (the data file for `-p` without `-d`, the sites file for `--sites`): made by
// mkstemp in $TMPDIR (or /tmp), removed when this object goes, on every way out of the driver
// that runs destructors.
#pragma once

#include <string>

#include "memusage/status.h"

namespace memusage {

class TemporaryFile {
  public:
    TemporaryFile() = default;
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    // Failing, an error message.
    Status create();
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace memusage
