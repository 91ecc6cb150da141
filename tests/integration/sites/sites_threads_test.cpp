// SPDX-License-Identifier: MIT
// What sites cost a program of many threads alive at once: libunwind's fast unwind keeps a
// 256 KiB cache for every thread that uses it, so only a few threads use it and the others
// unwind step by step. Their stacks must be the same whichever way they were unwound.
#include <gtest/gtest.h>
#include <memusage/sites_format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;
namespace format = memusage::sites_format;

constexpr long kThreads = 300;
constexpr int kBlocksPerThread = 8;  // sites_live_threads.c

// The fixture's resident set with every thread alive, in KiB; -1 if it printed none.
long resident_kib(const Outcome& run) {
    size_t at = run.out.find("rss_kib ");
    return at == std::string::npos ? -1 : std::atol(run.out.c_str() + at + 8);
}

// How many blocks each stack of a sites file allocated. Sites of the same frames are one
// stack: two threads interning a new stack at once may each get an id for it (the table
// passes over a slot being filled rather than wait: its filler may be the very thread a
// signal handler interrupted), and the reports add them up.
std::vector<uint64_t> blocks_by_site(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<std::vector<uint64_t>, uint64_t> blocks_of_stack;
    format::FileHeader header;
    if (bytes.size() < sizeof header) return {};
    std::memcpy(&header, bytes.data(), sizeof header);
    size_t at = header.header_bytes;
    for (uint32_t i = 0;
         i < header.module_count && at + sizeof(format::ModuleRecord) <= bytes.size(); ++i) {
        format::ModuleRecord module;
        std::memcpy(&module, bytes.data() + at, sizeof module);
        at += sizeof module +
              format::padded_to_8(uint64_t{module.build_id_bytes} + module.path_bytes);
    }
    for (uint32_t i = 0; i < header.site_count && at + sizeof(format::SiteRecord) <= bytes.size();
         ++i) {
        format::SiteRecord site;
        std::memcpy(&site, bytes.data() + at, sizeof site);
        at += sizeof site;
        std::vector<uint64_t> frames(site.depth);
        if (at + uint64_t{site.depth} * 8 > bytes.size()) break;
        std::memcpy(frames.data(), bytes.data() + at, uint64_t{site.depth} * 8);
        at += uint64_t{site.depth} * 8;
        blocks_of_stack[frames] += site.blocks_allocated;
    }
    std::vector<uint64_t> blocks;
    for (const auto& [frames, count] : blocks_of_stack) blocks.push_back(count);
    return blocks;
}

class LiveThreads : public ::testing::Test {
  protected:
    long resident_with(const std::vector<std::string>& extra) {
        Outcome run = collector_test::run(
            {fixture("sites_fixture_live_threads"), std::to_string(kThreads)}, extra);
        EXPECT_TRUE(run.exited_zero()) << run.err;
        long kib = resident_kib(run);
        EXPECT_GT(kib, 0) << run.out;
        return kib;
    }
    Scratch scratch_;
    std::string sites_ = scratch_ / "sites";
};

// 300 threads that allocated, alive together: sites added about 260 KiB each before
// (libunwind's trace cache); now at most 16 threads keep one (4 MiB, 14 KiB a thread here)
// and the others nothing but the stack pages their unwinding touched.
TEST_F(LiveThreads, SitesCostUnder40KiBAThread) {
    long without_sites = resident_with({});
    long exact = resident_with({"MEMUSAGE_SITES=" + sites_});
    long sampled = resident_with({"MEMUSAGE_SITES=" + sites_, "MEMUSAGE_SITES_SAMPLE=65536"});
    EXPECT_LT(exact - without_sites, 40 * kThreads)
        << "exact sites: " << exact << " KiB against " << without_sites << " KiB without";
    EXPECT_LT(sampled - without_sites, 40 * kThreads)
        << "sampled sites: " << sampled << " KiB against " << without_sites << " KiB without";
}

// Every thread allocates at the same line from the same calls; the first 16 unwind with
// unw_backtrace, the others step by step. One stack for all of them: the two ways give the
// same frames and cut the same frames of the collector's.
TEST_F(LiveThreads, HaveTheSameStackWhicheverWayTheyUnwind) {
    Outcome run =
        run_with_sites({fixture("sites_fixture_live_threads"), std::to_string(kThreads)}, sites_);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    std::vector<uint64_t> blocks = blocks_by_site(sites_);
    ASSERT_FALSE(blocks.empty());
    uint64_t threads_blocks = 0;
    for (uint64_t count : blocks)
        if (count >= kBlocksPerThread && count % kBlocksPerThread == 0 && count != kThreads)
            threads_blocks = std::max(threads_blocks, count);
    EXPECT_EQ(threads_blocks, uint64_t{kThreads} * kBlocksPerThread)
        << "the threads' allocations are split among sites";
    Outcome report = report_of(sites_);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    const Entry* threads_site = find_entry(entries_of(report.out), kAllocatedRanking,
                                           location("sites_live_threads.c", "thread"));
    ASSERT_NE(threads_site, nullptr) << report.out;
    EXPECT_NE(threads_site->header.find(std::to_string(kThreads * kBlocksPerThread) + " calls"),
              std::string::npos)
        << threads_site->text();
}

}  // namespace
}  // namespace sites_test
