// A data file mapped into memory, read once front to back in chunks whose pages are
// dropped after use, so the resident set stays the same whatever the file's size.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "profile.h"

namespace memusagestat {

class MappedDataFile {
  public:
    MappedDataFile() = default;
    MappedDataFile(const MappedDataFile&) = delete;
    MappedDataFile& operator=(const MappedDataFile&) = delete;
    ~MappedDataFile();

    // Maps and validates the file; repairs a zero-peak header by scanning and, like glibc,
    // writes the repaired header back when the file is writable. Returns an empty string
    // on success, else a message for the user.
    std::string open(const std::string& path);

    const Profile& profile() const { return profile_; }

    using ChunkVisitor = std::function<void(std::span<const memusage::Record>)>;

    // Calls `visit` on consecutive runs of `events` (a part of profile().events), front
    // to back, releasing the pages of each run once visited. Distinct parts may be
    // visited from distinct threads at once.
    static void for_each_chunk(std::span<const memusage::Record> events, const ChunkVisitor& visit);

  private:
    std::byte* map_ = nullptr;
    std::size_t map_size_ = 0;
    Profile profile_;
};

}  // namespace memusagestat
