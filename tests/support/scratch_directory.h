// SPDX-License-Identifier: MIT
// A private directory for one test, made under $TMPDIR (else /tmp) and removed with
// everything in it when the helper goes: tests running at once never meet, and none leaves
// anything behind. The one helper of every suite that needs a place for files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

namespace test_support {

class ScratchDirectory {
  public:
    // `prefix` starts the directory's name, to tell which suite left it should one remain.
    explicit ScratchDirectory(const std::string& prefix = "memusage-test") {
        std::string pattern = base_directory() + "/" + prefix + "-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("cannot make a scratch directory " + pattern + ": " +
                                     std::strerror(errno));
        path_ = pattern;
    }
    ~ScratchDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;

    const std::string& path() const { return path_; }
    // `name` inside the directory.
    std::string file(const std::string& name) const { return path_ + "/" + name; }

  private:
    // $TMPDIR when it names a directory (made absolute: a test may change directory), else
    // /tmp, as mkstemp's users expect.
    static std::string base_directory() {
        const char* tmpdir = std::getenv("TMPDIR");
        std::error_code error;
        if (tmpdir != nullptr && *tmpdir != '\0' && std::filesystem::is_directory(tmpdir, error)) {
            std::filesystem::path absolute = std::filesystem::absolute(tmpdir, error);
            if (!error) return absolute.string();
        }
        return "/tmp";
    }

    std::string path_;
};

// A fixture with a scratch directory per test.
class ScratchDirectoryTest : public ::testing::Test {
  protected:
    void SetUp() override { scratch_.emplace("memusage-test"); }
    void TearDown() override { scratch_.reset(); }

    std::string scratch() const { return scratch_->path(); }
    std::string in_scratch(const std::string& name) const { return scratch_->file(name); }

  private:
    std::optional<ScratchDirectory> scratch_;
};

}  // namespace test_support
