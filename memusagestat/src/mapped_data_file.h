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

    // Calls `visit` on consecutive runs of events, front to back, releasing each run's
    // pages once visited.
    void for_each_chunk(const std::function<void(std::span<const memusage::Record>)>& visit);

  private:
    void release_pages_before(const std::byte* end);

    std::byte* map_ = nullptr;
    std::size_t map_size_ = 0;
    std::byte* released_up_to_ = nullptr;
    Profile profile_;
};

}  // namespace memusagestat
