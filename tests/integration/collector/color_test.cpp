// SPDX-License-Identifier: MIT
// Colour, which glibc's collector always writes: MEMUSAGE_COLOR=always|never|auto and
// NO_COLOR. The tests read standard error through a pipe, so "auto" always sees something
// that is not a terminal.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

std::string summary_with(const std::vector<std::string>& env) {
    Outcome outcome = run({fixture("collector_fixture_calls")}, env);
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 1) << outcome.err;
    return outcome.err;
}

bool has_escape(const std::string& text) { return text.find('\x1b') != std::string::npos; }

TEST(Color, NeverMeansNoEscapes) {
    EXPECT_FALSE(has_escape(summary_with({"MEMUSAGE_COLOR=never"})));
}

TEST(Color, AlwaysMeansEscapes) {
    std::string text = summary_with({"MEMUSAGE_COLOR=always"});
    EXPECT_NE(text.find("\x1b[01;32mMemory usage summary:\x1b[0;0m"), std::string::npos) << text;
}

TEST(Color, UnsetWithStderrNotATerminalMeansNoEscapes) {
    EXPECT_FALSE(has_escape(summary_with({})));
}

TEST(Color, NoColorWithAutoMeansNoEscapes) {
    EXPECT_FALSE(has_escape(summary_with({"MEMUSAGE_COLOR=auto", "NO_COLOR=1"})));
}

TEST(Color, PlainSummaryIsTheColouredOneWithoutEscapes) {
    std::string plain = summary_with({"MEMUSAGE_COLOR=never"});
    std::string coloured = summary_with({"MEMUSAGE_COLOR=always"});
    EXPECT_EQ(parse_summary(plain).row("malloc").calls,
              parse_summary(coloured).row("malloc").calls);
    EXPECT_EQ(without_stack_peak(plain).size() < without_stack_peak(coloured).size(), true);
}

}  // namespace
}  // namespace collector_test
