// SPDX-License-Identifier: MIT
// What --help, --usage, --version and the error hint print.
#pragma once

#include <string_view>

namespace memusage {

std::string_view help_text();
std::string_view usage_text();
std::string_view version_text();
// Printed after every command-line error; scripts may match it.
std::string_view try_help_text();

}  // namespace memusage
