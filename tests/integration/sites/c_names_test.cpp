// SPDX-License-Identifier: MIT
// Function names are demangled only when they are mangled (_Z...): C functions named i, f,
// d, Ss, St3foo and w are named so, not int, float, double, std::string, std::foo, wchar_t,
// whether the name comes from debug information or from the symbol table.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::vector<std::string> kNames = {"i", "f", "d", "Ss", "St3foo", "w"};

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(CNames, ReportsAndFoldedStacksNameCFunctionsAsWritten) {
    for (const char* variant : {"sites_fixture_c_names", "sites_fixture_c_names_nodebug"}) {
        Scratch scratch;
        std::string folded = scratch / "run.folded";
        Outcome run = run_memusage({"--color=never", "--leaks", "--folded=" + folded,
                                    "--folded-metric=leaked", fixture(variant)},
                                   scratch.path());
        ASSERT_TRUE(run.exited_zero()) << variant << "\n" << run.err;
        std::vector<Entry> entries = entries_of(run.err);
        ASSERT_EQ(entries.size(), kNames.size()) << variant << "\n" << run.err;
        // Largest first: w's 1006 bytes down to i's 1001.
        for (size_t rank = 0; rank < kNames.size(); ++rank) {
            const std::string& name = kNames[kNames.size() - 1 - rank];
            ASSERT_FALSE(entries[rank].stack.empty()) << run.err;
            EXPECT_TRUE(entries[rank].stack[0].starts_with("at " + name + " (")) << variant << "\n"
                                                                                 << run.err;
        }
        const std::string lines = read_all(folded);
        for (const std::string& name : kNames)
            EXPECT_NE(lines.find("main;" + name + " "), std::string::npos) << variant << "\n"
                                                                           << lines;
        for (const char* type : {"int", "float", "double", "std::", "wchar_t"}) {
            EXPECT_EQ(run.err.find(std::string("at ") + type), std::string::npos) << variant << "\n"
                                                                                  << run.err;
            EXPECT_EQ(lines.find(std::string(";") + type), std::string::npos) << lines;
        }
    }
}

}  // namespace
}  // namespace sites_test
