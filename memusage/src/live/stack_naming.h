// SPDX-License-Identifier: MIT
// How the live view names a published stack: memusagestat's symbolizer on the desktop
// (symbol_naming.cpp, in the report module: report_module.h), the modules and offsets on a
// board, whose driver has no symbolizer (module_naming.cpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memusage::live {

class StackNaming {
  public:
    virtual ~StackNaming() = default;
    // Reads the modules the process has mapped now: a library it loaded since is unknown
    // until then.
    virtual void read_modules() = 0;
    // The stack's name, innermost frame first; `resolved` false when an address is in no
    // module known.
    virtual std::string name_of(const std::vector<uint64_t>& stack, bool& resolved) = 0;
};

// The driver's naming: the report module's on the desktop, module_naming.cpp's on a board.
std::unique_ptr<StackNaming> stack_naming(pid_t pid);

// memusagestat's symbolizer (symbol_naming.cpp), which the report module hands the driver.
std::unique_ptr<StackNaming> symbol_naming(pid_t pid);

}  // namespace memusage::live
