// SPDX-License-Identifier: MIT
// The driver's option table (DriverOption, memusage/src/options.h) against what users read:
// every option of it in `memusage --help` and in the man page's OPTIONS, and the man page
// listing no option the table lacks.
#include <gtest/gtest.h>

#include <string>

#include "../man_page_options.h"
#include "driver_run.h"
#include "options.h"
#include "scratch_directory.h"

namespace {

class OptionsTable : public driver_test::ScratchDirectoryTest {};

TEST_F(OptionsTable, EveryOptionIsInTheHelp) {
    const driver_test::DriverRun help = driver_test::run_driver({"--help"}, scratch());
    ASSERT_EQ(help.exit_code, 0) << help.err;
    for (const memusage::DriverOption& option : memusage::driver_options()) {
        const std::string shown = "--" + std::string(option.name) + std::string(option.shown);
        EXPECT_NE(help.out.find(shown), std::string::npos) << shown;
        if (option.short_name) {
            EXPECT_NE(help.out.find(std::string("-") + option.short_name + "," + shown),
                      std::string::npos)
                << option.short_name;
        }
    }
}

TEST_F(OptionsTable, TheManPageListsTheTableAndNothingElse) {
    const man_page::Options listed =
        man_page::listed_options(PROJECT_SOURCE_PATH "/man/memusage.1");
    ASSERT_FALSE(listed.long_names.empty());
    man_page::expect_lists_exactly(listed, memusage::driver_options());
}

}  // namespace
