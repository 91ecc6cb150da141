// SPDX-License-Identifier: MIT
// glibc's malloc debugging stays on under ours: with libc_malloc_debug.so preloaded after
// the collector (memusage keeps an LD_PRELOAD it finds), MALLOC_CHECK_ checks and mtrace
// traces. That library defines its functions under glibc's symbol versions only, which an
// unversioned lookup of the next malloc skips.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

const std::string kMallocDebug = GLIBC_MALLOC_DEBUG;

Outcome run_debugged(const std::string& mode, const std::vector<std::string>& env,
                     bool with_ours = true) {
    std::string preload = with_ours ? kOurCollector + " " + kMallocDebug : kMallocDebug;
    return run({fixture("collector_fixture_malloc_debug"), mode}, env, preload);
}

TEST(MallocDebug, CheckedUsableSizeIsExact) {
    Outcome bare = run_debugged("usable", {"MALLOC_CHECK_=3"}, false);
    ASSERT_EQ(bare.out, "usable=7\n") << "glibc itself behaves otherwise";
    Outcome outcome = run_debugged("usable", {"MALLOC_CHECK_=3"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.out, "usable=7\n");
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, 1u);
    EXPECT_EQ(s.row("free").bytes, 7u);
}

TEST(MallocDebug, CheckingCatchesAnOverrun) {
    Outcome bare = run_debugged("overrun", {"MALLOC_CHECK_=3"}, false);
    ASSERT_EQ(bare.signal(), SIGABRT) << "glibc itself behaves otherwise: " << bare.out;
    Outcome outcome = run_debugged("overrun", {"MALLOC_CHECK_=3"});
    EXPECT_EQ(outcome.signal(), SIGABRT) << outcome.out << outcome.err;
    EXPECT_EQ(outcome.err.substr(0, outcome.err.find('\n')),
              bare.err.substr(0, bare.err.find('\n')));
}

TEST(MallocDebug, MtraceWritesTheTrace) {
    Scratch scratch;
    std::string trace = scratch / "trace";
    Outcome outcome = run_debugged("mtrace", {"MALLOC_TRACE=" + trace});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::ifstream in(trace);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("= Start"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find(" + 0x"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find(" - 0x"), std::string::npos) << text.str();
    EXPECT_GE(parse_summary(outcome.err).row("malloc").calls, 1u);  // mtrace's own fopen too
}

}  // namespace
}  // namespace collector_test
