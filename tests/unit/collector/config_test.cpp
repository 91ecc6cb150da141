// SPDX-License-Identifier: MIT
#include "platform/config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace memusage {
namespace {

std::map<std::string, std::string> environment;

const char* fake_getenv(const char* name) {
    auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
}

Config read(std::map<std::string, std::string> env, const char* program = "prog") {
    environment = std::move(env);
    return Config::read(fake_getenv, program);
}

TEST(Config, BufferSizeFollowsGlibc) {
    EXPECT_EQ(parse_buffer_records(nullptr), 32768u);
    EXPECT_EQ(parse_buffer_records(""), 32768u);
    EXPECT_EQ(parse_buffer_records("0"), 32768u);
    EXPECT_EQ(parse_buffer_records("garbage"), 32768u);
    EXPECT_EQ(parse_buffer_records("-5"), 32768u);
    EXPECT_EQ(parse_buffer_records("1"), 1u);
    EXPECT_EQ(parse_buffer_records("100"), 100u);
    EXPECT_EQ(parse_buffer_records("12abc"), 12u);
    EXPECT_EQ(parse_buffer_records("32768"), 32768u);
    EXPECT_EQ(parse_buffer_records("32769"), 32768u);
    EXPECT_EQ(parse_buffer_records("99999999999999999999999"), 32768u);
}

TEST(Config, DefaultsWithAnEmptyEnvironment) {
    Config c = read({});
    EXPECT_TRUE(c.profiled);
    EXPECT_EQ(c.output, nullptr);
    EXPECT_EQ(c.buffer_records, 32768u);
    EXPECT_TRUE(c.timer);
    EXPECT_FALSE(c.trace_mmap);
    EXPECT_EQ(c.color, ColorMode::automatic);
}

TEST(Config, EveryVariable) {
    Config c = read({{"MEMUSAGE_OUTPUT", "run.dat"},
                     {"MEMUSAGE_BUFFER_SIZE", "7"},
                     {"MEMUSAGE_NO_TIMER", ""},
                     {"MEMUSAGE_TRACE_MMAP", "yes"},
                     {"MEMUSAGE_COLOR", "never"}});
    EXPECT_STREQ(c.output, "run.dat");
    EXPECT_EQ(c.buffer_records, 7u);
    EXPECT_FALSE(c.timer);
    EXPECT_TRUE(c.trace_mmap);
    EXPECT_EQ(c.color, ColorMode::never);
    EXPECT_EQ(read({{"MEMUSAGE_COLOR", "always"}}).color, ColorMode::always);
    EXPECT_EQ(read({{"MEMUSAGE_COLOR", "sometimes"}}).color, ColorMode::automatic);
}

TEST(Config, OutputOwner) {
    EXPECT_EQ(read({}).output_owner, 0);
    EXPECT_EQ(read({{"MEMUSAGE_OUTPUT_OWNER", "4242"}}).output_owner, 4242);
}

TEST(Config, EmptyOutputMeansNoFile) { EXPECT_EQ(read({{"MEMUSAGE_OUTPUT", ""}}).output, nullptr); }

TEST(Config, ProgramNameFilter) {
    EXPECT_TRUE(read({{"MEMUSAGE_PROG_NAME", "prog"}}, "prog").profiled);
    EXPECT_FALSE(read({{"MEMUSAGE_PROG_NAME", "other"}}, "prog").profiled);
    EXPECT_FALSE(read({{"MEMUSAGE_PROG_NAME", "prog"}}, nullptr).profiled);
    EXPECT_FALSE(read({{"MEMUSAGE_PROG_NAME", "pro"}}, "prog").profiled);
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

TEST(ConfigSites, TheSitesFileAndItsOwnerAreRead) {
    Config none = read({});
    EXPECT_EQ(none.sites, nullptr);
    EXPECT_EQ(none.sites_owner, 0);
    EXPECT_EQ(read({{"MEMUSAGE_SITES", ""}}).sites, nullptr) << "empty is unset";
    Config c = read({{"MEMUSAGE_SITES", "/tmp/run.sites"}, {"MEMUSAGE_SITES_OWNER", "1234"}});
    EXPECT_STREQ(c.sites, "/tmp/run.sites");
    EXPECT_EQ(c.sites_owner, 1234);
    EXPECT_EQ(c.sites_sample, 0u) << "exact unless asked";
    EXPECT_FALSE(c.sites_seeded);
}

TEST(ConfigSites, SamplingTakesAnIntervalUpTo1GAndASeed) {
    Config c = read({{"MEMUSAGE_SITES_SAMPLE", "512k"}, {"MEMUSAGE_SITES_SEED", "77"}});
    EXPECT_EQ(c.sites_sample, 524288u);
    EXPECT_TRUE(c.sites_seeded);
    EXPECT_EQ(c.sites_seed, 77u);
    EXPECT_EQ(read({{"MEMUSAGE_SITES_SAMPLE", "1G"}}).sites_sample, uint64_t{1} << 30);
    for (const char* bad : {"0", "2G", "x", ""}) {
        Config rejected = read({{"MEMUSAGE_SITES_SAMPLE", bad}});
        EXPECT_EQ(rejected.sites_sample, 0u) << bad;
        ASSERT_EQ(rejected.rejected_count, 1) << bad;
        EXPECT_STREQ(rejected.rejected[0].variable, "MEMUSAGE_SITES_SAMPLE");
    }
    Config bad_seed = read({{"MEMUSAGE_SITES_SEED", "-1"}});
    EXPECT_FALSE(bad_seed.sites_seeded);
    EXPECT_EQ(bad_seed.rejected_count, 1);
}

TEST(ConfigSites, VerifyingIsOnWhenSetToAnythingButEmptyOr0) {
    EXPECT_FALSE(read({}).sites_verify);
    EXPECT_TRUE(read({{"MEMUSAGE_SITES_VERIFY", "1"}}).sites_verify);
    EXPECT_TRUE(read({{"MEMUSAGE_SITES_VERIFY", "yes"}}).sites_verify);
    EXPECT_FALSE(read({{"MEMUSAGE_SITES_VERIFY", "0"}}).sites_verify);
    EXPECT_FALSE(read({{"MEMUSAGE_SITES_VERIFY", ""}}).sites_verify);
}

}  // namespace
}  // namespace memusage
