// SPDX-License-Identifier: MIT
// memusagestat's option table (memusagestat/options_table.h) against what users read: every
// option of it in `memusagestat --help` and in the man page's OPTIONS, and the man page
// listing no option the table lacks.
#include "options_table.h"

#include <gtest/gtest.h>

#include <string>

#include "../man_page_options.h"
#include "stat_test_support.h"

namespace {

TEST(OptionsTable, EveryOptionIsInTheHelp) {
    const stat_test::Outcome help = stat_test::run({MEMUSAGESTAT, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.output;
    for (const memusagestat::StatOption& option : memusagestat::stat_options()) {
        const std::string shown = "--" + std::string(option.name) + std::string(option.shown);
        EXPECT_NE(help.output.find(shown), std::string::npos) << shown;
        if (option.short_name) {
            EXPECT_NE(help.output.find(std::string("-") + option.short_name + ", " + shown),
                      std::string::npos)
                << option.short_name;
        }
    }
}

TEST(OptionsTable, TheManPageListsTheTableAndNothingElse) {
    const man_page::Options listed =
        man_page::listed_options(PROJECT_SOURCE_PATH "/man/memusagestat.1");
    ASSERT_FALSE(listed.long_names.empty());
    man_page::expect_lists_exactly(listed, memusagestat::stat_options());
}

}  // namespace
