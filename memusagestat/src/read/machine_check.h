// What the readers say of a file written on another kind of machine (a board's, read on
// the desktop): memusage/machine_format.h's stamp, in words.
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

// "aarch64", "armhf", ...: the machine a stamp names.
inline std::string machine_name(const memusage::machine_format::MachineStamp& machine) {
    switch (machine.elf_machine) {
        case 62:
            return "x86-64";
        case 3:
            return "i686";
        case 183:
            return "aarch64";
        case 40:
            return "armhf";
        case 243:
            return "riscv64";
        default:
            return "ELF machine " + std::to_string(machine.elf_machine);
    }
}

}  // namespace memusagestat
