// SPDX-License-Identifier: MIT
// A killed run's file is recognised by its pid and start time, and removed by readers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "live/live_figures_file.h"
#include "publish/shared_figures.h"
#include "support/scratch_directory.h"

namespace {

using memusage::live_format::Header;

std::unique_ptr<Header> header_for(pid_t pid, uint64_t start_ticks) {
    auto header = std::make_unique<Header>();
    std::memcpy(header->magic, memusage::live_format::kMagic, sizeof header->magic);
    header->version = memusage::live_format::kVersion;
    header->header_bytes = sizeof(Header);
    header->byte_order = memusage::live_format::kByteOrderMark;
    header->word_bytes = sizeof(void*);
    header->pid = static_cast<uint32_t>(pid);
    header->start_ticks = start_ticks;
    std::strcpy(header->program, "stale_test");
    return header;
}

pid_t reaped_child() {
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    return child;
}

TEST(Staleness, TheProcessItselfIsLive) {
    std::optional<uint64_t> start = memusage::live::process_start_ticks(getpid());
    ASSERT_TRUE(start.has_value());
    EXPECT_GT(*start, 0u);
    // The collector's reading (async-signal-safe, no allocation) agrees with the driver's.
    EXPECT_EQ(memusage::publish::start_ticks_of(getpid()), *start);
    EXPECT_FALSE(memusage::live::is_stale(*header_for(getpid(), *start)));
}

TEST(Staleness, AReusedPidHasAnotherStartTime) {
    // The file's writer had the pid before this process: it started earlier.
    uint64_t start = memusage::live::process_start_ticks(getpid()).value();
    EXPECT_TRUE(memusage::live::is_stale(*header_for(getpid(), start - 1)));
}

TEST(Staleness, AnEmulatedProcessThatSawItsStartATickLateIsLive) {
    // qemu-user tells the program a start read from its own clock once loaded.
    uint64_t start = memusage::live::process_start_ticks(getpid()).value();
    EXPECT_FALSE(memusage::live::is_stale(*header_for(getpid(), start + 1)));
    EXPECT_TRUE(memusage::live::is_stale(*header_for(getpid(), start + 1000)));
}

TEST(Staleness, AGoneProcessIsStale) {
    pid_t gone = reaped_child();
    EXPECT_FALSE(memusage::live::process_start_ticks(gone).has_value());
    EXPECT_TRUE(memusage::live::is_stale(*header_for(gone, 1)));
}

TEST(Staleness, TheListingRemovesStaleFilesAndKeepsLiveOnes) {
    const test_support::ScratchDirectory scratch("memusage-stale-test");
    const std::string& directory = scratch.path();
    pid_t gone = reaped_child();
    uint64_t start = memusage::live::process_start_ticks(getpid()).value();
    auto path_of = [&](pid_t pid) { return directory + "/" + std::to_string(pid); };
    auto write = [&](pid_t pid, const Header& header) {
        std::string path = path_of(pid);
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(&header), sizeof header);
        return path;
    };
    auto live = header_for(getpid(), start);
    live->figures.heap_now = 4096;
    std::string live_path = write(getpid(), *live);
    std::string stale_path = write(gone, *header_for(gone, 1));
    // Killed while making it: no header yet.
    pid_t also_gone = reaped_child();
    std::string unfinished = path_of(also_gone);
    std::ofstream(unfinished) << "";
    // A name that is not a pid is not even looked at.
    std::string other = directory + "/notes";
    std::ofstream(other) << "x";

    auto processes = memusage::live::running_processes({directory});
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].pid, getpid());
    EXPECT_EQ(processes[0].program, "stale_test");
    EXPECT_EQ(processes[0].figures.heap_now, 4096u);
    EXPECT_TRUE(std::filesystem::exists(live_path));
    EXPECT_FALSE(std::filesystem::exists(stale_path));
    EXPECT_FALSE(std::filesystem::exists(unfinished));
    EXPECT_TRUE(std::filesystem::exists(other));
}

TEST(Staleness, AFileThatIsNotLiveFiguresIsRefused) {
    const test_support::ScratchDirectory scratch("memusage-stale-test");
    const std::string& directory = scratch.path();
    std::string path = directory + "/short";
    std::ofstream(path) << "not figures";
    memusage::live::LiveFiguresFile file;
    EXPECT_EQ(file.open(path).error(), "not a live-figures file");
    EXPECT_NE(file.open(directory + "/missing").error(), "");
}

}  // namespace
