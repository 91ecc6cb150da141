// SPDX-License-Identifier: MIT
// A data file mapped into memory, read once front to back in chunks whose pages are
// dropped after use, so the resident set stays the same whatever the file's size.
// Events are read through mappings of their own: threads reading distinct parts of the
// file then never contend for one mapping's page-table lock.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "memusage/status.h"
#include "read/profile.h"

namespace memusagestat {

class MappedDataFile {
  public:
    MappedDataFile() = default;
    MappedDataFile(const MappedDataFile&) = delete;
    MappedDataFile& operator=(const MappedDataFile&) = delete;
    ~MappedDataFile();

    // Maps and validates the file; repairs a zero-peak header by scanning and, like glibc,
    // writes the repaired header back when the file is writable. Failing, a message for
    // the user.
    memusage::Status open(const std::string& path);

    const Profile& profile() const { return profile_; }

    using ChunkVisitor = std::function<void(std::span<const memusage::Record>)>;

    // Calls `visit` on consecutive runs of events [first, first + count) of
    // profile().events, front to back, releasing the pages of each run once visited.
    // Safe to call from several threads at once.
    void visit_events(uint64_t first, uint64_t count, const ChunkVisitor& visit) const;

  private:
    int fd_ = -1;
    std::byte* map_ = nullptr;
    std::size_t map_size_ = 0;
    Profile profile_;
};

}  // namespace memusagestat
