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
    std::set<std::string> names;
    std::set<char> shorts;
    for (const memusagestat::StatOption& option : memusagestat::stat_options()) {
        names.insert(std::string(option.name));
        EXPECT_TRUE(listed.long_names.contains(std::string(option.name))) << option.name;
        if (option.short_name) {
            shorts.insert(option.short_name);
            EXPECT_TRUE(listed.short_names.contains(option.short_name)) << option.short_name;
        }
    }
    for (const std::string& name : listed.long_names)
        EXPECT_TRUE(names.contains(name)) << "the man page lists --" << name;
    for (char name : listed.short_names)
        EXPECT_TRUE(shorts.contains(name)) << "the man page lists -" << name;
}

}  // namespace
