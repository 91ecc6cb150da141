// A private directory per test, removed afterwards.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace driver_test {

class ScratchDirectoryTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char pattern[] = "/tmp/memusage-driver-test-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        scratch_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(scratch_); }

    std::string scratch() const { return scratch_.string(); }
    std::string in_scratch(const std::string& name) const { return (scratch_ / name).string(); }

  private:
    std::filesystem::path scratch_;
};

}  // namespace driver_test
