// SPDX-License-Identifier: MIT
// What the readers say of a file written on a machine of the other byte order, which
// memusage/machine_format.h's stamp tells apart.
#pragma once

#include <memusage/machine_format.h>

#include <string>

namespace memusagestat {

// For a file of the other byte order, which no reader here takes.
inline std::string other_byte_order_message(const std::string& what) {
    return what +
           " was written on a machine of the other byte order (big-endian against "
           "little-endian): read it with memusagestat on a machine like the one it was "
           "written on";
}

}  // namespace memusagestat
