// SPDX-License-Identifier: MIT
// A board's live view names a stack by module and offset (module_naming.cpp): checked here
// on this process's own addresses against its maps and its symbols' offsets in the file.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "live/stack_naming.h"

namespace {

__attribute__((noinline)) void some_function() { asm volatile(""); }

// "+0x..." of `address` in its module's file: its ELF address (less the load bias), which
// GNU ld makes the same as its offset in the file for the code of an executable.
std::string expected_offset(uint64_t address) {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(reinterpret_cast<void*>(address), &info, reinterpret_cast<void**>(&map),
                RTLD_DL_LINKMAP) == 0)
        return "?";
    char text[32];
    std::snprintf(text, sizeof text, "+0x%llx",
                  static_cast<unsigned long long>(address - static_cast<uint64_t>(map->l_addr)));
    return text;
}

TEST(ModuleNaming, NamesTheModuleAndTheOffsetInItsFile) {
    auto naming = memusage::live::stack_naming(getpid());
    naming->read_modules();
    const auto address = reinterpret_cast<uint64_t>(&some_function);
    bool resolved = false;
    const std::string name = naming->name_of({address}, resolved);
    EXPECT_TRUE(resolved);
    EXPECT_EQ(name, "memusage_live_unit_tests" + expected_offset(address));
}

TEST(ModuleNaming, TwoFramesTheCallersAfterTheAllocatingOnes) {
    auto naming = memusage::live::stack_naming(getpid());
    naming->read_modules();
    const auto address = reinterpret_cast<uint64_t>(&some_function);
    bool resolved = false;
    const std::string name = naming->name_of({address, address, address}, resolved);
    const std::string frame = "memusage_live_unit_tests" + expected_offset(address);
    EXPECT_EQ(name, frame + " < " + frame);
}

TEST(ModuleNaming, AnAddressInNoModuleIsUnresolvedAndShownBare) {
    auto naming = memusage::live::stack_naming(getpid());
    naming->read_modules();
    bool resolved = true;
    EXPECT_EQ(naming->name_of({0x10}, resolved), "0x10");
    EXPECT_FALSE(resolved);
}

}  // namespace
