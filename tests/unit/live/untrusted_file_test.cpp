// SPDX-License-Identifier: MIT
// A live-figures reader against files it did not write: the directory's checks, a FIFO,
// a link or another user's file under a name it opens, counts past the layout, a file
// truncated under it. Each must be refused or bounded at once, never hang or crash it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "live/live_figures_file.h"
#include "memusage/live_directory.h"
#include "publish/shared_figures.h"
#include "runtime_directory.h"

namespace {

using memusage::live_format::Header;

std::unique_ptr<Header> live_header(const char* program) {
    auto header = std::make_unique<Header>();
    std::memcpy(header->magic, memusage::live_format::kMagic, sizeof header->magic);
    header->version = memusage::live_format::kVersion;
    header->header_bytes = sizeof(Header);
    header->byte_order = memusage::live_format::kByteOrderMark;
    header->word_bytes = sizeof(void*);
    header->pid = static_cast<uint32_t>(getpid());
    header->start_ticks = memusage::live::process_start_ticks(getpid()).value();
    std::memcpy(header->program, program, strnlen(program, sizeof header->program));
    return header;
}

void write_file(const std::string& path, const Header& header) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(&header), sizeof header);
}

// Whether --ps would list this test process (other runs' processes may be listed too, in
// /dev/shm).
bool listed() {
    for (const auto& process : memusage::live::running_processes())
        if (process.pid == getpid()) return true;
    return false;
}

uid_t nobody() {
    const passwd* entry = getpwnam("nobody");
    return entry != nullptr ? entry->pw_uid : 65534;
}

// Root (and not root of a user namespace that maps no one else) can make a file nobody's.
bool can_give_files_away(const std::string& directory) {
    std::string probe = directory + "/probe";
    std::ofstream(probe) << "";
    bool given = chown(probe.c_str(), nobody(), static_cast<gid_t>(-1)) == 0;
    unlink(probe.c_str());
    return given;
}

TEST(LiveDirectory, TheRuntimeDirectoryWhenItIsTheUsersOwnElseSharedMemory) {
    RuntimeDirectory runtime;
    char path[memusage::live_format::kPathBytes];
    using memusage::live_format::Place;
    ASSERT_TRUE(memusage::live_format::directory_path(Place::runtime, geteuid(),
                                                      runtime.base().c_str(), path));
    EXPECT_EQ(std::string(path), runtime.base() + "/memusage");
    // Open to others, relative, unset: not usable.
    chmod(runtime.base().c_str(), 0755);
    EXPECT_FALSE(memusage::live_format::directory_path(Place::runtime, geteuid(),
                                                       runtime.base().c_str(), path));
    chmod(runtime.base().c_str(), 0700);
    EXPECT_FALSE(memusage::live_format::directory_path(Place::runtime, geteuid(), "tmp", path));
    EXPECT_FALSE(memusage::live_format::directory_path(Place::runtime, geteuid(), nullptr, path));
    // Another user's (sudo keeps the invoking user's XDG_RUNTIME_DIR).
    EXPECT_FALSE(memusage::live_format::directory_path(Place::runtime, geteuid() + 1,
                                                       runtime.base().c_str(), path));
    ASSERT_TRUE(memusage::live_format::directory_path(Place::shared_memory, 1000, nullptr, path));
    EXPECT_STREQ(path, "/dev/shm/memusage-1000");
}

// What another user may have left where the collector would make its directory.
TEST(LiveDirectory, TheCollectorPublishesOnlyInARealDirectoryOfTheUsersClosedToOthers) {
    RuntimeDirectory runtime;
    std::string directory = runtime.base() + "/memusage";
    std::string elsewhere = runtime.base() + "/elsewhere";
    mkdir(elsewhere.c_str(), 0700);
    auto refusal = [&] {
        memusage::publish::SharedFigures figures;
        const char* problem = figures.create("untrusted_test", 0);
        std::string said = problem != nullptr ? problem : "";
        if (problem == nullptr) figures.remove();
        return said;
    };
    ASSERT_EQ(symlink(elsewhere.c_str(), directory.c_str()), 0);
    EXPECT_EQ(refusal(), directory + " is not a directory");
    EXPECT_TRUE(std::filesystem::is_empty(elsewhere)) << "nothing is made through the link";
    unlink(directory.c_str());

    ASSERT_EQ(mkdir(directory.c_str(), 0755), 0);
    EXPECT_EQ(refusal(), directory + " is open to other users (its mode is not 0700)");
    chmod(directory.c_str(), 0700);
    EXPECT_EQ(refusal(), "") << "a directory of the user's own, closed to others";

    if (can_give_files_away(runtime.base())) {
        ASSERT_EQ(chown(directory.c_str(), nobody(), 0), 0);
        EXPECT_EQ(refusal(), directory + " belongs to another user");
    }
    rmdir(directory.c_str());
    EXPECT_EQ(refusal(), "") << "made when missing";
    struct stat st;
    ASSERT_EQ(lstat(directory.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(UntrustedFile, AFifoUnderTheNameIsRefusedWithoutWaitingForAWriter) {
    RuntimeDirectory runtime;
    std::string path = runtime.file(getpid());
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    memusage::live::LiveFiguresFile file;
    // Without O_NONBLOCK the open waits for a writer for ever (the test's time limit).
    // (Then what /dev/shm holds, as the second place.)
    EXPECT_EQ(looked_text(file.open_process(getpid()))
                  .find(path + ": not a regular file, not a live-figures file"),
              0u);
    EXPECT_FALSE(listed());
    EXPECT_TRUE(std::filesystem::exists(path)) << "not this reader's to remove";
}

TEST(UntrustedFile, ALinkUnderTheNameIsRefused) {
    RuntimeDirectory runtime;
    std::string target = runtime.base() + "/target";
    write_file(target, *live_header("linked"));
    ASSERT_EQ(symlink(target.c_str(), runtime.file(getpid()).c_str()), 0);
    memusage::live::LiveFiguresFile file;
    EXPECT_NE(looked_text(file.open_process(getpid())).find("a symbolic link"), std::string::npos);
    EXPECT_FALSE(listed());
}

TEST(UntrustedFile, AFileOfAnotherUserIsNotRead) {
    RuntimeDirectory runtime;
    if (!can_give_files_away(runtime.base()))
        GTEST_SKIP() << "making a file another user's needs root";
    std::string path = runtime.file(getpid());
    write_file(path, *live_header("forged"));
    memusage::live::LiveFiguresFile file;
    ASSERT_TRUE(file.open_process(getpid()).empty()) << "the user's own is read";
    ASSERT_TRUE(listed());
    ASSERT_EQ(chown(path.c_str(), nobody(), 0), 0);
    EXPECT_EQ(looked_text(file.open_process(getpid()))
                  .find(path + ": a file of another user's, not read"),
              0u);
    EXPECT_FALSE(listed());
    EXPECT_TRUE(std::filesystem::exists(path)) << "another user's file is left alone";
}

TEST(UntrustedFile, AFileNamedForOneProcessWithAnothersFiguresIsRefused) {
    RuntimeDirectory runtime;
    auto header = live_header("misnamed");
    header->pid = 1;
    write_file(runtime.file(getpid()), *header);
    memusage::live::LiveFiguresFile file;
    EXPECT_NE(looked_text(file.open_process(getpid())).find("another process"), std::string::npos);
    EXPECT_FALSE(listed());
}

TEST(UntrustedFile, CountsPastTheLayoutAreCut) {
    RuntimeDirectory runtime;
    auto header = live_header("counts");
    header->figures.threads = 4'000'000'000u;
    header->figures.thread_rows = 4'000'000'000u;
    header->figures.site_rows = 1'000'000u;
    for (auto& site : header->figures.sites) site.depth = 1u << 31;
    write_file(runtime.file(getpid()), *header);
    memusage::live::LiveFiguresFile file;
    ASSERT_TRUE(file.open_process(getpid()).empty());
    memusage::live_format::Figures figures;
    ASSERT_TRUE(file.read(figures));
    EXPECT_EQ(figures.thread_rows, memusage::live_format::kThreadRows);
    EXPECT_EQ(figures.site_rows, memusage::live_format::kSiteRows);
    for (const auto& site : figures.sites)
        EXPECT_EQ(site.depth, memusage::live_format::kSiteFrames);
    EXPECT_EQ(file.header().figures.thread_rows, memusage::live_format::kThreadRows);
    // The program's name: its 64 bytes at most, with no terminating zero.
    std::memset(header->program, 'x', sizeof header->program);
    write_file(runtime.file(getpid()), *header);
    ASSERT_TRUE(file.open_process(getpid()).empty());
    EXPECT_EQ(file.program(), std::string(sizeof header->program, 'x'));
}

// The collector's own file, cut short by someone who can write it while a reader has it
// open: the reader's copies fail; a mapped reader would die of SIGBUS.
TEST(UntrustedFile, AFileTruncatedUnderItsReaderFailsToReadAndDoesNotCrashIt) {
    RuntimeDirectory runtime;
    memusage::publish::SharedFigures writer;
    ASSERT_EQ(writer.create("truncated_test", 0), nullptr);
    memusage::live::LiveFiguresFile reader;
    ASSERT_TRUE(reader.open_process(getpid()).empty());
    memusage::live_format::Figures figures;
    ASSERT_TRUE(reader.read(figures));
    std::string path = runtime.file(getpid());
    for (off_t size : {off_t{sizeof(Header) / 2}, off_t{0}}) {
        ASSERT_EQ(truncate(path.c_str(), size), 0);
        EXPECT_FALSE(reader.read(figures)) << "at " << size << " bytes";
    }
    EXPECT_EQ(reader.program(), "truncated_test") << "the header read at open stays";
    // The writer's mapping is past the file's end now: it must not publish again.
    writer.forget();
    unlink(path.c_str());
}

}  // namespace
