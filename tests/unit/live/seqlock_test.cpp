// SPDX-License-Identifier: MIT
// The sequence counter: a reader never keeps a copy a write overlapped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "live/live_figures_file.h"
#include "publish/shared_figures.h"
#include "runtime_directory.h"

namespace {

using memusage::live_format::Figures;
using memusage::live_format::Header;

// Every field of a copy holds the same value: a torn copy mixes two.
Figures figures_of(uint64_t value) {
    Figures figures{};
    figures.publications = figures.heap_now = figures.heap_peak = figures.stack_peak = value;
    for (uint64_t& calls : figures.calls) calls = value;
    figures.thread_rows = 64;
    for (auto& row : figures.rows) row.held = row.held_peak = static_cast<int64_t>(value);
    figures.others.calls = value;
    return figures;
}

bool whole(const Figures& copy) {
    uint64_t value = copy.publications;
    if (copy.heap_now != value || copy.heap_peak != value || copy.stack_peak != value ||
        copy.others.calls != value)
        return false;
    for (uint64_t calls : copy.calls)
        if (calls != value) return false;
    for (const auto& row : copy.rows)
        if (row.held != static_cast<int64_t>(value)) return false;
    return true;
}

TEST(Seqlock, AnOddCounterMeansAWriteInProgress) {
    RuntimeDirectory directory;
    std::string path = directory.file(getpid());
    auto header = std::make_unique<Header>();
    header->figures = figures_of(7);
    auto write = [&](uint64_t sequence) {
        header->sequence = sequence;
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(header.get()), sizeof *header);
    };
    write(3);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    Figures copy{};
    EXPECT_FALSE(memusage::live::copy_figures(fd, copy, 10));
    write(4);
    ASSERT_TRUE(memusage::live::copy_figures(fd, copy, 10));
    EXPECT_EQ(copy.heap_now, 7u);
    close(fd);
}

// The collector's writer (shared_figures.cpp) and the driver's reader on the same file,
// the writer publishing as fast as it can.
TEST(Seqlock, ReaderGetsOnlyWholeCopiesFromABusyWriter) {
    RuntimeDirectory directory;
    memusage::publish::SharedFigures writer;
    ASSERT_EQ(writer.create("seqlock_test", 0), nullptr);
    memusage::live::LiveFiguresFile reader;
    ASSERT_TRUE(reader.open_process(getpid()).empty());
    EXPECT_EQ(reader.program(), "seqlock_test");
    EXPECT_EQ(reader.header().pid, static_cast<uint32_t>(getpid()));

    std::atomic<bool> done{false};
    std::thread publisher([&] {
        for (uint64_t value = 1; !done.load(std::memory_order_relaxed); ++value)
            writer.publish(figures_of(value));
    });
    int copies = 0, torn = 0;
    uint64_t last = 0;
    bool went_back = false;
    // Until the writer has published many times over while the reader copied.
    while (last < 20000 && copies < 100'000'000) {
        Figures copy;
        if (!reader.read(copy)) continue;
        ++copies;
        if (!whole(copy)) ++torn;
        if (copy.publications < last) went_back = true;
        last = copy.publications;
    }
    done = true;
    publisher.join();
    writer.remove();
    EXPECT_EQ(torn, 0);
    EXPECT_FALSE(went_back) << "copies come in publication order";
    EXPECT_GE(last, 20000u);
}

}  // namespace
