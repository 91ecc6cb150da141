// SPDX-License-Identifier: MIT
#include "environment.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace memusage {
namespace {

using Entries = std::vector<std::string>;

const std::string kCollector = "/opt/mu/lib/libmemusage.so";

// The value of name in entries, or "<unset>"; fails if name appears twice.
std::string value_of(const Entries& entries, const std::string& name) {
    std::string found = "<unset>";
    int count = 0;
    for (const std::string& entry : entries) {
        if (entry.starts_with(name + "=")) {
            found = entry.substr(name.size() + 1);
            ++count;
        }
    }
    EXPECT_LE(count, 1) << name;
    return found;
}

TEST(ChildEnvironment, PreloadsTheCollectorAndKeepsTheRest) {
    Entries result = child_environment({"HOME=/h", "PATH=/bin"}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "LD_PRELOAD"), kCollector);
    EXPECT_EQ(value_of(result, "HOME"), "/h");
    EXPECT_EQ(value_of(result, "PATH"), "/bin");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_PROG_NAME"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_BUFFER_SIZE"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_NO_TIMER"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_TRACE_MMAP"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_COLOR"), "<unset>");
}

TEST(ChildEnvironment, AnEnclosingRunsDataFileOwnerIsForgotten) {
    Entries result =
        child_environment({"MEMUSAGE_OUTPUT_OWNER=4242", "HOME=/h"}, {}, kCollector, "/tmp/x.dat");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT_OWNER"), "<unset>");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT"), "/tmp/x.dat");
    EXPECT_EQ(value_of(result, "HOME"), "/h");
}

TEST(ChildEnvironment, SitesGoToTheirFileAndAnEnclosingRunsOwnerIsForgotten) {
    Entries result =
        child_environment({"MEMUSAGE_SITES_OWNER=4242"}, {}, kCollector, "", "/tmp/run.sites");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SITES"), "/tmp/run.sites");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SITES_OWNER"), "<unset>");
    result = child_environment({"HOME=/h"}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SITES"), "<unset>");
}

TEST(ChildEnvironment, SampledSitesGetTheirInterval) {
    DriverOptions options;
    options.sites_sample = "64k";
    Entries result = child_environment({}, options, kCollector, "", "/tmp/run.sites");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SITES_SAMPLE"), "64k");
    result = child_environment({}, {}, kCollector, "", "/tmp/run.sites");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SITES_SAMPLE"), "<unset>");
}

TEST(ChildEnvironment, EventsGoToTheirFileAndAnEnclosingRunsOwnerIsForgotten) {
    DriverOptions options;
    options.events_path = "run.events";
    Entries result = child_environment({"MEMUSAGE_EVENTS_OWNER=4242"}, options, kCollector, "");
    EXPECT_EQ(value_of(result, "MEMUSAGE_EVENTS"), "run.events");
    EXPECT_EQ(value_of(result, "MEMUSAGE_EVENTS_OWNER"), "<unset>");
    EXPECT_EQ(value_of(child_environment({}, {}, kCollector, ""), "MEMUSAGE_EVENTS"), "<unset>");
}

TEST(ChildEnvironment, TheSummaryGoesToItsFileAndAnEnclosingRunsOwnerIsForgotten) {
    DriverOptions options;
    options.summary_path = "/tmp/run.summary";
    Entries result =
        child_environment({"MEMUSAGE_SUMMARY_FILE_OWNER=4242"}, options, kCollector, "");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SUMMARY_FILE"), "/tmp/run.summary");
    EXPECT_EQ(value_of(result, "MEMUSAGE_SUMMARY_FILE_OWNER"), "<unset>");
    EXPECT_EQ(value_of(child_environment({}, {}, kCollector, ""), "MEMUSAGE_SUMMARY_FILE"),
              "<unset>");
}

// The run starts with the driver, whatever the program is: it records the data file's
// state for every process of the run, replacing the record of an enclosing run.
TEST(ChildEnvironment, TheRunStartsWithTheDataFilesStateNow) {
    Entries result = child_environment({"MEMUSAGE_OUTPUT_RUN=1:2:3:4:5:/old.dat"}, {}, kCollector,
                                       "/nonexistent-directory/x.dat");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT_RUN"), "-:/nonexistent-directory/x.dat");
    result = child_environment({"MEMUSAGE_OUTPUT_RUN=1:2:3:4:5:/old.dat"}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT_RUN"), "<unset>");
    result = child_environment({}, {}, kCollector, "/proc/self");
    EXPECT_TRUE(value_of(result, "MEMUSAGE_OUTPUT_RUN").ends_with(":/proc/self"));
    EXPECT_NE(value_of(result, "MEMUSAGE_OUTPUT_RUN")[0], '-');
}

TEST(ChildEnvironment, KeepsTheUsersPreloadAfterTheCollector) {
    Entries result = child_environment({"LD_PRELOAD=/a.so /b.so"}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "LD_PRELOAD"), kCollector + ":/a.so /b.so");
    result = child_environment({"LD_PRELOAD="}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "LD_PRELOAD"), kCollector);
}

TEST(ChildEnvironment, DoesNotConfuseSimilarNames) {
    Entries result = child_environment({"LD_PRELOAD_X=1"}, {}, kCollector, "");
    EXPECT_EQ(value_of(result, "LD_PRELOAD_X"), "1");
    EXPECT_EQ(value_of(result, "LD_PRELOAD"), kCollector);
}

TEST(ChildEnvironment, EveryOptionBecomesItsVariable) {
    DriverOptions options;
    options.progname = "t1";
    options.buffer_size = "100";
    options.no_timer = true;
    options.trace_mmap = true;
    options.color = ColorWhen::never;
    Entries result = child_environment({"MEMUSAGE_OUTPUT=/old"}, options, kCollector, "/d.dat");
    EXPECT_EQ(value_of(result, "MEMUSAGE_OUTPUT"), "/d.dat");
    EXPECT_EQ(value_of(result, "MEMUSAGE_PROG_NAME"), "t1");
    EXPECT_EQ(value_of(result, "MEMUSAGE_BUFFER_SIZE"), "100");
    EXPECT_EQ(value_of(result, "MEMUSAGE_NO_TIMER"), "yes");
    EXPECT_EQ(value_of(result, "MEMUSAGE_TRACE_MMAP"), "yes");
    EXPECT_EQ(value_of(result, "MEMUSAGE_COLOR"), "never");
}

TEST(ChildEnvironment, OutOfMemoryTestingAndThreadTable) {
    DriverOptions options;
    options.limit = "64k";
    options.fail_probability = "0.5";
    options.fail_seed = "9";
    options.thread_table = true;
    Entries result =
        child_environment({"MEMUSAGE_FAIL_AT=3", "MEMUSAGE_LIMIT=1"}, options, kCollector, "");
    EXPECT_EQ(value_of(result, "MEMUSAGE_LIMIT"), "64k");
    EXPECT_EQ(value_of(result, "MEMUSAGE_FAIL_PROBABILITY"), "0.5");
    EXPECT_EQ(value_of(result, "MEMUSAGE_FAIL_SEED"), "9");
    EXPECT_EQ(value_of(result, "MEMUSAGE_THREADS"), "yes");
    // The caller's own injection would otherwise make the collector refuse both.
    EXPECT_EQ(value_of(result, "MEMUSAGE_FAIL_AT"), "<unset>");
}

TEST(ChildEnvironment, ColourWords) {
    DriverOptions options;
    options.color = ColorWhen::always;
    EXPECT_EQ(value_of(child_environment({}, options, kCollector, ""), "MEMUSAGE_COLOR"), "always");
    options.color = ColorWhen::automatic;
    EXPECT_EQ(value_of(child_environment({}, options, kCollector, ""), "MEMUSAGE_COLOR"), "auto");
}

TEST(ChildEnvironment, PreloadablePaths) {
    EXPECT_TRUE(can_preload("/usr/lib/libmemusage.so"));
    EXPECT_FALSE(can_preload("/my dir/libmemusage.so"));
    EXPECT_FALSE(can_preload("/a:b/libmemusage.so"));
    EXPECT_FALSE(can_preload(""));
}

}  // namespace
}  // namespace memusage
