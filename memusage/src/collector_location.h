// SPDX-License-Identifier: MIT
// Where libmemusage.so is: beside the driver in the build tree and in any install prefix,
// or wherever MEMUSAGE_LIBRARY says for layouts the build did not foresee.
#pragma once

#include <string>
#include <string_view>

#include "memusage/status.h"

namespace memusage {

inline constexpr const char* kCollectorOverrideVariable = "MEMUSAGE_LIBRARY";
inline constexpr const char* kCollectorFileName = "libmemusage.so";

// The collector's path for a driver at driver_path, given the relative path from the
// binary directory to the library directory ("../lib" in a plain layout).
std::string collector_path_beside(std::string_view driver_path, std::string_view bin_to_lib);

// The absolute path to preload: the override variable's, else beside /proc/self/exe;
// failing, a message for the user.
Result<std::string> locate_collector();

}  // namespace memusage
