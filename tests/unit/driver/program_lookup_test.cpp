// SPDX-License-Identifier: MIT
#include "program_lookup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "support/scratch_directory.h"

namespace memusage {
namespace {

namespace fs = std::filesystem;

// A scratch tree: one/ holds a non-executable "tool", two/ an executable one.
class ProgramLookupTest : public ::testing::Test {
  protected:
    void SetUp() override {
        scratch_.emplace("memusage-lookup");
        root_ = scratch_->path();
        fs::create_directories(root_ / "one");
        fs::create_directories(root_ / "two");
        write(root_ / "one" / "tool", 0644);
        write(root_ / "two" / "tool", 0755);
        write(root_ / "one" / "only-here", 0644);
    }
    void TearDown() override { scratch_.reset(); }

    static void write(const fs::path& path, mode_t mode) {
        std::ofstream(path) << "#!/bin/sh\n";
        ::chmod(path.c_str(), mode);
    }
    std::string dir(const char* name) const { return (root_ / name).string(); }

    std::optional<test_support::ScratchDirectory> scratch_;
    fs::path root_;
};

TEST_F(ProgramLookupTest, FirstExecutableInPathWins) {
    std::string path = dir("one") + ":" + dir("two");
    ProgramLookup found = find_program("tool", path.c_str());
    EXPECT_EQ(found.path, dir("two") + "/tool");
    EXPECT_EQ(found.error, 0);
}

TEST_F(ProgramLookupTest, NotFoundIsEnoent) {
    std::string path = dir("one") + ":" + dir("two");
    ProgramLookup found = find_program("absent", path.c_str());
    EXPECT_TRUE(found.path.empty());
    EXPECT_EQ(found.error, ENOENT);
}

TEST_F(ProgramLookupTest, FoundButNotExecutableIsEacces) {
    std::string path = dir("one");
    // No execute bit at all: refused even to root.
    ProgramLookup found = find_program("only-here", path.c_str());
    EXPECT_TRUE(found.path.empty());
    EXPECT_EQ(found.error, EACCES);
}

TEST_F(ProgramLookupTest, NamesWithASlashAreNotSearched) {
    std::string path = dir("two");
    std::string direct = dir("two") + "/tool";
    EXPECT_EQ(find_program(direct, "/nonexistent").path, direct);
    EXPECT_EQ(find_program("./tool", path.c_str()).error, ENOENT);
    EXPECT_EQ(find_program(dir("two"), path.c_str()).error, EISDIR);
}

TEST_F(ProgramLookupTest, EmptyEntryIsTheCurrentDirectory) {
    fs::path before = fs::current_path();
    fs::current_path(root_ / "two");
    ProgramLookup found = find_program("tool", ":/nonexistent");
    fs::current_path(before);
    EXPECT_EQ(found.path, "./tool");
}

TEST(ProgramLookup, UnsetPathUsesTheSystemDefault) {
    EXPECT_FALSE(find_program("sh", nullptr).path.empty());
}

TEST(ProgramLookup, EmptyNameIsNotFound) { EXPECT_EQ(find_program("", "/bin").error, ENOENT); }

}  // namespace
}  // namespace memusage
