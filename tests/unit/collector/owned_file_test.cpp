// SPDX-License-Identifier: MIT
// The one way the collector opens the files it writes (OwnedFile::open), through each of
// the four files that use it: a failure leaves in errno the reason of the step that failed,
// which the collector's message then names, whatever the closing of the descriptor did.
#include "platform/owned_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>

#include "record/data_file.h"
#include "record/events_file.h"
#include "record/summary_file.h"
#include "sites/sites_file.h"
#include "test_files.h"

namespace memusage {
namespace {

// A scratch directory, removed with what the tests put in it.
class ScratchDirectory {
  public:
    ScratchDirectory() {
        char pattern[] = "/tmp/memusage-unit-XXXXXX";
        if (mkdtemp(pattern) != nullptr) path_ = pattern;
    }
    ~ScratchDirectory() {
        for (const char* name : {"fifo", "directory/inside", "directory"})
            ::remove((path_ + "/" + name).c_str());
        ::rmdir(path_.c_str());
    }
    std::string operator/(const char* name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

// Each file that opens through OwnedFile::open, as a function opening `path`.
struct OpeningFile {
    const char* what;
    std::function<OpenResult(const char* path)> open;
};

std::vector<OpeningFile> opening_files() {
    return {{"data file",
             [](const char* path) {
                 DataFile file;
                 OpenResult result = file.open(path, 1);
                 file.close();
                 return result;
             }},
            {"events file",
             [](const char* path) {
                 EventsFile file;
                 OpenResult result = file.open(path, 0);
                 file.close();
                 return result;
             }},
            {"summary file",
             [](const char* path) {
                 SummaryFile file;
                 OpenResult result = file.open(path);
                 file.close();
                 return result;
             }},
            {"sites file", [](const char* path) {
                 SitesFile file;
                 OpenResult result = file.open(path);
                 file.close();
                 return result;
             }}};
}

// errno when `open` failed on `path`; -1 when it did not fail.
int failure_errno(const OpeningFile& file, const std::string& path) {
    errno = 0;
    if (file.open(path.c_str()) != OpenResult::failed) return -1;
    return errno;
}

TEST(OwnedFile, AFailedOpenLeavesItsOwnReasonInErrno) {
    ScratchDirectory scratch;
    ASSERT_EQ(::mkdir((scratch / "directory").c_str(), 0700), 0);
    ASSERT_EQ(::mkfifo((scratch / "fifo").c_str(), 0600), 0);
    // A name too long to keep fails before any system call, as open(2) would.
    const std::string too_long(OwnedFile::kMaxPath, 'x');
    for (const OpeningFile& file : opening_files()) {
        SCOPED_TRACE(file.what);
        EXPECT_EQ(failure_errno(file, ""), ENOENT);
        EXPECT_EQ(failure_errno(file, too_long), ENAMETOOLONG);
        EXPECT_EQ(failure_errno(file, scratch / "no-such-directory/file"), ENOENT);
        EXPECT_EQ(failure_errno(file, scratch / "directory"), EISDIR);
        // Never waiting for a reader: the open fails at once.
        EXPECT_EQ(failure_errno(file, scratch / "fifo"), ENXIO);
        // Opened and locked, then refused by the emptying: its reason, not the close's.
        EXPECT_EQ(failure_errno(file, "/dev/null"), EINVAL);
    }
}

// Another process's lock (here, another descriptor's): busy, the file left as it was.
TEST(OwnedFile, AFileLockedElsewhereIsBusyAndLeftWhole) {
    ScratchFile scratch;
    {
        FILE* f = fopen(scratch.path(), "w");
        fputs("another run's", f);
        fclose(f);
    }
    const int holder = ::open(scratch.path(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(holder, 0);
    ASSERT_EQ(flock(holder, LOCK_EX | LOCK_NB), 0);
    for (const OpeningFile& file : opening_files()) {
        SCOPED_TRACE(file.what);
        EXPECT_EQ(file.open(scratch.path()), OpenResult::busy);
        EXPECT_EQ(scratch.size(), 13);
    }
    ::close(holder);
}

// The program may close the collector's descriptor behind its back: letting go of the file
// then fails with EBADF, which must not reach the program's errno.
TEST(OwnedFile, ClosingLeavesErrnoAsItWas) {
    ScratchFile scratch;
    OwnedFile file;
    ASSERT_EQ(file.open(scratch.path()), OpenResult::opened);
    ::close(file.fd());
    errno = EAGAIN;
    file.close();
    EXPECT_EQ(errno, EAGAIN);
    EXPECT_FALSE(file.is_open());
}

}  // namespace
}  // namespace memusage
