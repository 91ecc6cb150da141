// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <random>

#include "sites/sampling.h"
#include "sites/stack_peaks.h"
#include "sites_test_support.h"
#include "support/scratch_directory.h"

namespace memusage {
namespace {

using memusagestat::SitesProfile;

std::vector<std::byte> bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    for (size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
    return bytes;
}

std::string own_path() {
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path);
    return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// Version 2: sampled figures come as estimates in bytes and blocks, with their interval; the
// first refused call's site is written even without figures.
TEST(SitesFile, SamplingAndTheFirstRefusedCallAreReadBack) {
    WrittenSites written(65536);
    ASSERT_TRUE(written.ready());
    uint32_t sampled = written.site({0x401000});
    uint32_t refused = written.site({0x402000, 0x403000});
    uint32_t weight_4 = 1 + 2 * sampling::kCodesPerDoubling;
    written.event(SiteChange::new_block, site_tag(sampled, weight_4), 100);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile, 0, refused), "");
    EXPECT_EQ(profile.sample_interval, 65536u);
    EXPECT_EQ(profile.first_refused_site, refused);
    ASSERT_EQ(profile.sites.size(), 2u);
    EXPECT_EQ(profile.sites[0].blocks_allocated, 4u);
    EXPECT_EQ(profile.sites[0].bytes_allocated, 400u);
    EXPECT_EQ(profile.sites[0].bytes_at_peak, 400u);
    EXPECT_EQ(profile.sites[1].id, refused);
    EXPECT_EQ(profile.sites[1].blocks_allocated, 0u);
    EXPECT_EQ(profile.sites[1].frames, (std::vector<uint64_t>{0x402000, 0x403000}));
}

// A file of version 1 (48-byte header) is read as exact, without a refused call.
TEST(SitesFile, Version1FilesAreStillRead) {
    WrittenSites written;
    uint32_t site = written.site({0x401000});
    written.event(SiteChange::new_block, site, 100);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    std::vector<std::byte> bytes = bytes_of(written.path());
    sites_format::FileHeader header;
    memcpy(&header, bytes.data(), sizeof header);
    header.version = 1;
    header.header_bytes = sites_format::kVersion1HeaderBytes;
    header.sample_interval = 12345;  // lies past a version 1 header: never read
    std::vector<std::byte> old(bytes.begin(), bytes.begin() + sites_format::kVersion1HeaderBytes);
    memcpy(old.data(), &header, sites_format::kVersion1HeaderBytes);
    old.insert(old.end(), bytes.begin() + sizeof header, bytes.end());
    sites_format::FileTrailer trailer;
    memcpy(&trailer, old.data() + old.size() - sizeof trailer, sizeof trailer);
    trailer.file_bytes = old.size();
    memcpy(old.data() + old.size() - sizeof trailer, &trailer, sizeof trailer);
    ASSERT_EQ(memusagestat::parse_sites(old, profile).error(), "");
    EXPECT_EQ(profile.sample_interval, 0u);
    EXPECT_EQ(profile.first_refused_site, 0u);
    ASSERT_EQ(profile.sites.size(), 1u);
    EXPECT_EQ(profile.sites[0].bytes_allocated, 100u);
    header.version = sites_format::kVersion + 1;
    memcpy(old.data(), &header, sites_format::kVersion1HeaderBytes);
    EXPECT_NE(memusagestat::parse_sites(old, profile)
                  .error()
                  .find("version " + std::to_string(header.version) + " is not supported"),
              std::string::npos);
}

// Stack peaks (version 3): a thread's capture is kept only when deeper than its last by the
// margin (1 KiB, or 5%), and read back with what it says of the thread. Without the unwinder
// (never loaded here, where the collector's code is the test's own) it has no frames.
TEST(SitesFile, StackPeaksAreKeptBeyondTheMarginAndReadBack) {
    ASSERT_TRUE(stack_peaks::start());
    uintptr_t sp = 0x7ffd00000000;
    EXPECT_EQ(stack_peaks::capture(1000, sp, false, nullptr), 1000u + 1024);
    EXPECT_EQ(stack_peaks::capture(1500, sp, false, nullptr), 1000u + 1024) << "within 1 KiB";
    EXPECT_EQ(stack_peaks::capture(40000, sp, true, nullptr), 40000u + 2000) << "5% of 40000";
    WrittenSites written;
    ASSERT_TRUE(written.ready());
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    ASSERT_EQ(profile.stack_peaks.size(), 1u);
    const memusagestat::StackPeak& peak = profile.stack_peaks[0];
    EXPECT_EQ(peak.bytes, 40000u);
    EXPECT_EQ(peak.base, sp + 40000);
    EXPECT_EQ(peak.stack, memusagestat::PeakStack::signal);
    EXPECT_EQ(peak.tid, static_cast<uint64_t>(gettid()));
    EXPECT_TRUE(peak.main_thread);
    EXPECT_FALSE(peak.from_tick);
    EXPECT_TRUE(peak.frames.empty());
    EXPECT_TRUE(profile.has_allocation_sites);

    // Every cut through the peaks is refused, not read as fewer peaks.
    std::vector<std::byte> bytes = bytes_of(written.path());
    for (size_t cut = 1; cut <= sizeof(sites_format::StackPeakRecord); cut += 8) {
        std::vector<std::byte> shorter(bytes.begin(), bytes.end() - static_cast<long>(cut) -
                                                          sizeof(sites_format::FileTrailer));
        sites_format::FileTrailer trailer;
        memcpy(&trailer, bytes.data() + bytes.size() - sizeof trailer, sizeof trailer);
        trailer.file_bytes = shorter.size() + sizeof trailer;
        const auto* raw = reinterpret_cast<const std::byte*>(&trailer);
        shorter.insert(shorter.end(), raw, raw + sizeof trailer);
        EXPECT_NE(memusagestat::parse_sites(shorter, profile).error().find("truncated"),
                  std::string::npos)
            << "cut " << cut;
    }

    // A version 2 file: its header's last field was reserved, its flags had no stack bits.
    sites_format::FileHeader header;
    memcpy(&header, bytes.data(), sizeof header);
    header.version = 2;
    header.stack_peak_count = 0;
    header.flags |= sites_format::kNoAllocationSites;
    // Nor the standard streams' buffers (version 4 on) or where blocks grew (version 6 on),
    // whose counts end the file here.
    header.flags &= ~(sites_format::kHasStandardStreamBuffers | sites_format::kHasGrownAt);
    std::vector<std::byte> old(
        bytes.begin(), bytes.end() - static_cast<long>(sizeof(sites_format::FileTrailer) +
                                                       sizeof(sites_format::StackPeakRecord) +
                                                       2 * sizeof(uint64_t)));
    memcpy(old.data(), &header, sizeof header);
    sites_format::FileTrailer trailer;
    memcpy(&trailer, bytes.data() + bytes.size() - sizeof trailer, sizeof trailer);
    trailer.file_bytes = old.size() + sizeof trailer;
    const auto* raw = reinterpret_cast<const std::byte*>(&trailer);
    old.insert(old.end(), raw, raw + sizeof trailer);
    ASSERT_EQ(memusagestat::parse_sites(old, profile).error(), "");
    EXPECT_TRUE(profile.stack_peaks.empty());
    EXPECT_TRUE(profile.has_allocation_sites);
}

// Version 4: the header states the writing machine, so a desktop reads a board's file.
TEST(SitesFile, TheHeaderStatesTheWritingMachine) {
    WrittenSites written;
    written.event(SiteChange::new_block, written.site({0x401000}), 100);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    EXPECT_EQ(profile.machine.byte_order, machine_format::kByteOrderMark);
    EXPECT_EQ(profile.machine.word_bytes, sizeof(void*));
    // This test's own ELF header names the machine the collector's core was built for.
    std::vector<std::byte> self = bytes_of(own_path());
    ASSERT_GT(self.size(), 20u);
    uint16_t own_machine;
    memcpy(&own_machine, self.data() + 18, sizeof own_machine);
    EXPECT_EQ(profile.machine.elf_machine, own_machine);
    EXPECT_NE(profile.machine.data_file_time, machine_format::kDataFileTimeUnknown);
}

// A version 3 file (64-byte header, no machine) reads as one of the reader's own machine;
// a file of the other byte order, or of a version to come, is refused with a reason.
TEST(SitesFile, OlderVersionsReadAndOtherByteOrdersAreRefused) {
    WrittenSites written;
    uint32_t site = written.site({0x401000, 0x402000});
    written.event(SiteChange::new_block, site, 100);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    std::vector<std::byte> bytes = bytes_of(written.path());

    std::vector<std::byte> v3 = bytes;
    v3.erase(v3.begin() + sites_format::kVersion3HeaderBytes,
             v3.begin() + sizeof(sites_format::FileHeader));
    sites_format::FileHeader header;
    memcpy(&header, v3.data(), sites_format::kVersion3HeaderBytes);
    header.version = 3;
    header.header_bytes = sites_format::kVersion3HeaderBytes;
    memcpy(v3.data(), &header, sites_format::kVersion3HeaderBytes);
    sites_format::FileTrailer trailer;
    memcpy(&trailer, v3.data() + v3.size() - sizeof trailer, sizeof trailer);
    trailer.file_bytes = v3.size();
    memcpy(v3.data() + v3.size() - sizeof trailer, &trailer, sizeof trailer);
    SitesProfile old;
    ASSERT_EQ(memusagestat::parse_sites(v3, old).error(), "");
    EXPECT_EQ(old.machine.byte_order, 0u);
    ASSERT_EQ(old.sites.size(), profile.sites.size());
    EXPECT_EQ(old.sites[0].frames, profile.sites[0].frames);

    std::vector<std::byte> swapped = bytes;
    uint32_t version = __builtin_bswap32(sites_format::kVersion);
    memcpy(swapped.data() + offsetof(sites_format::FileHeader, version), &version, sizeof version);
    EXPECT_NE(memusagestat::parse_sites(swapped, old).error().find("other byte order"),
              std::string::npos);

    std::vector<std::byte> newer = bytes;
    version = sites_format::kVersion + 1;
    memcpy(newer.data() + offsetof(sites_format::FileHeader, version), &version, sizeof version);
    EXPECT_NE(memusagestat::parse_sites(newer, old).error().find("not supported"),
              std::string::npos);
}

TEST(SitesFile, WhatTheCollectorWritesTheReaderReadsBack) {
    WrittenSites written;
    ASSERT_TRUE(written.ready());
    uint32_t a = written.site({0x401234, 0x405678, 0x7f0011223344});
    uint32_t b = written.site({});
    uint32_t unused = written.site({0x999});
    written.event(SiteChange::new_block, a, 100);
    written.event(SiteChange::new_block, b, 50);  // the peak: 150
    written.event(SiteChange::freed, a, -100);
    written.event(SiteChange::new_block, a, 30);
    written.event(SiteChange::resize, b, 20);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile, sites_format::kEndedByCrash), "");
    EXPECT_EQ(profile.heap_peak, 150u);
    EXPECT_EQ(profile.pid, static_cast<uint64_t>(getpid()));
    EXPECT_TRUE(profile.ended_by_crash);
    EXPECT_FALSE(profile.stack_table_full);
    ASSERT_EQ(profile.sites.size(), 2u) << "a stack without blocks is left out";
    const auto& first = profile.sites[0];
    EXPECT_EQ(first.id, a);
    EXPECT_EQ(first.frames, (std::vector<uint64_t>{0x401234, 0x405678, 0x7f0011223344}));
    EXPECT_EQ(first.blocks_allocated, 2u);
    EXPECT_EQ(first.bytes_allocated, 130u);
    EXPECT_EQ(first.blocks_freed, 1u);
    EXPECT_EQ(first.bytes_freed, 100u);
    EXPECT_EQ(first.bytes_at_peak, 100u);
    EXPECT_EQ(first.bytes_leaked(), 30u);
    const auto& second = profile.sites[1];
    EXPECT_EQ(second.id, b);
    EXPECT_TRUE(second.frames.empty());
    EXPECT_EQ(second.bytes_allocated, 70u);
    EXPECT_EQ(second.blocks_leaked(), 1u);
    EXPECT_EQ(second.bytes_at_peak, 50u);
    (void)unused;

    ASSERT_FALSE(profile.modules.empty());
    EXPECT_EQ(profile.modules[0].path, own_path()) << "the program comes first, by its path";
    EXPECT_FALSE(profile.modules[0].build_id.empty());
    for (const auto& module : profile.modules) EXPECT_LT(module.start, module.end) << module.path;
}

// Version 6: where blocks grew. The growing stack is written as a site even without
// figures of its own; a pair whose blocks were held neither at the peak nor at exit is not.
TEST(SitesFile, WhereBlocksGrewIsReadBack) {
    WrittenSites written;
    ASSERT_TRUE(written.ready());
    uint32_t made = written.site({0x401000, 0x402000});
    uint32_t grow = written.site({0x403000, 0x402000});
    uint32_t other = written.site({0x404000});
    written.event(SiteChange::new_block, made, 100);
    written.event(SiteChange::new_block, made, 10);
    written.regrown(made, other, false, 20);  // grown, then freed before the peak
    written.event(SiteChange::resize, made, 10);
    written.regrown(made, other, true, 20);
    written.event(SiteChange::freed, made, -20);
    written.regrown(made, grow, false, 1000);
    written.event(SiteChange::resize, made, 900);  // the peak: 1000
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    EXPECT_TRUE(profile.knows_grown_at);
    EXPECT_FALSE(profile.grown_at_table_full);
    ASSERT_EQ(profile.grown.size(), 1u);
    EXPECT_EQ(profile.grown[0].site_id, made);
    EXPECT_EQ(profile.grown[0].grown_at, grow);
    EXPECT_EQ(profile.grown[0].bytes_at_peak, 1000u);
    EXPECT_EQ(profile.grown[0].blocks_at_peak, 1u);
    EXPECT_EQ(profile.grown[0].bytes_at_exit, 1000u);
    EXPECT_EQ(profile.grown[0].blocks_at_exit, 1u);
    ASSERT_EQ(profile.sites.size(), 3u) << "both growing stacks are sites of the file";
    EXPECT_EQ(profile.sites[1].id, grow);
    EXPECT_EQ(profile.sites[2].id, other);
    EXPECT_EQ(profile.sites[1].bytes_allocated, 0u);
    EXPECT_EQ(profile.sites[1].frames, (std::vector<uint64_t>{0x403000, 0x402000}));
    std::vector<std::byte> bytes = bytes_of(written.path());
    for (size_t length = 0; length < bytes.size(); ++length)
        ASSERT_FALSE(memusagestat::parse_sites(std::span(bytes).first(length), profile).ok())
            << "cut at " << length;
}

TEST(SitesFile, EveryTruncationIsRefusedWithAMessage) {
    WrittenSites written;
    uint32_t a = written.site({1, 2, 3});
    written.event(SiteChange::new_block, a, 10);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    std::vector<std::byte> bytes = bytes_of(written.path());
    for (size_t length = 0; length < bytes.size(); ++length)
        ASSERT_FALSE(memusagestat::parse_sites(std::span(bytes).first(length), profile).ok())
            << "cut at " << length;
}

// Damage anywhere is refused or read as some other valid file, never a crash (the
// sanitizer builds check that nothing is read out of bounds).
TEST(SitesFile, DamagedBytesNeverCrashTheReader) {
    WrittenSites written;
    uint32_t a = written.site({1, 2, 3});
    written.event(SiteChange::new_block, a, 10);
    SitesProfile profile;
    ASSERT_EQ(written.write_and_read(profile), "");
    const std::vector<std::byte> bytes = bytes_of(written.path());
    std::mt19937 random(7);
    for (size_t at = 0; at < bytes.size(); ++at)
        for (int value : {0x00, 0xff, 0x7f, static_cast<int>(random() & 0xff)}) {
            std::vector<std::byte> damaged = bytes;
            damaged[at] = static_cast<std::byte>(value);
            [[maybe_unused]] const memusage::Status parsed =
                memusagestat::parse_sites(damaged, profile);
        }
}

TEST(SitesFile, ForeignAndEmptyFilesSaySo) {
    SitesProfile profile;
    EXPECT_NE(memusagestat::parse_sites({}, profile).error().find("empty"), std::string::npos);
    std::vector<std::byte> text(100, std::byte{'x'});
    EXPECT_NE(memusagestat::parse_sites(text, profile).error().find("not a memusage sites file"),
              std::string::npos);
    std::vector<std::byte> unfinished(100, std::byte{0});
    EXPECT_NE(memusagestat::parse_sites(unfinished, profile).error().find("truncated"),
              std::string::npos);
}

// As memusagestat refuses a FIFO given as a data file, so as a sites file: opening one for
// reading would wait for a writer, for ever. Read in a child, which is killed if it waits.
TEST(SitesFile, AFifoIsRefusedWithoutWaitingForAWriter) {
    const test_support::ScratchDirectory dir("sites_fifo");
    std::string fifo = dir.file("fifo");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        SitesProfile profile;
        std::string error = memusagestat::read_sites_file(fifo, profile).error();
        _exit(error.find("not a regular file") != std::string::npos ? 0 : 1);
    }
    int status = 0;
    bool finished = false;
    for (int tenths = 0; tenths < 300 && !finished; ++tenths) {
        finished = waitpid(child, &status, WNOHANG) == child;
        if (!finished) usleep(100000);
    }
    if (!finished) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    ASSERT_TRUE(finished) << "the reader waited on the FIFO";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace memusage
