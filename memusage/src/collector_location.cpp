// SPDX-License-Identifier: MIT
#include "collector_location.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef MEMUSAGE_BIN_TO_LIB
#error "MEMUSAGE_BIN_TO_LIB must name the library directory relative to the binary directory"
#endif

namespace memusage {

std::string collector_path_beside(std::string_view driver_path, std::string_view bin_to_lib) {
    std::filesystem::path bin_directory = std::filesystem::path(driver_path).parent_path();
    std::filesystem::path library = bin_directory / bin_to_lib / kCollectorFileName;
    return library.lexically_normal().string();
}

Result<std::string> locate_collector() {
    if (const char* forced = std::getenv(kCollectorOverrideVariable); forced && *forced) {
        std::error_code ignored;
        std::filesystem::path absolute = std::filesystem::absolute(forced, ignored);
        if (::access(absolute.c_str(), R_OK) != 0) {
            return Failure{std::string(kCollectorOverrideVariable) + " names '" + forced +
                           "', which cannot be read"};
        }
        return absolute.string();
    }
    // /proc/self/exe, not argv[0]: it survives PATH lookup, symlinks and relative calls.
    std::error_code error;
    std::filesystem::path driver = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) {
        return Failure{"cannot find where memusage itself is (/proc/self/exe: " + error.message() +
                       "); set " + kCollectorOverrideVariable};
    }
    std::string candidate = collector_path_beside(driver.string(), MEMUSAGE_BIN_TO_LIB);
    if (::access(candidate.c_str(), R_OK) != 0) {
        return Failure{"cannot find the collector " + candidate + "; set " +
                       kCollectorOverrideVariable + " to its path"};
    }
    return candidate;
}

}  // namespace memusage
