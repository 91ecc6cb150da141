// SPDX-License-Identifier: MIT
// A scratch XDG_RUNTIME_DIR (mode 0700, the test's own) for as long as this lives: the
// live figures a test makes or forges go to DIRECTORY/memusage, out of every other run's
// way, and the reader looks there first.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/scratch_directory.h"

class RuntimeDirectory {
  public:
    RuntimeDirectory() : base_(scratch_.path()) {
        if (const char* previous = getenv("XDG_RUNTIME_DIR")) previous_ = previous;
        had_previous_ = getenv("XDG_RUNTIME_DIR") != nullptr;
        setenv("XDG_RUNTIME_DIR", base_.c_str(), 1);
    }
    ~RuntimeDirectory() {
        if (had_previous_)
            setenv("XDG_RUNTIME_DIR", previous_.c_str(), 1);
        else
            unsetenv("XDG_RUNTIME_DIR");
    }
    RuntimeDirectory(const RuntimeDirectory&) = delete;
    RuntimeDirectory& operator=(const RuntimeDirectory&) = delete;

    const std::string& base() const { return base_; }
    // Where the live figures go, made as the collector makes it.
    std::string figures() const {
        std::string directory = base_ + "/memusage";
        mkdir(directory.c_str(), 0700);
        return directory;
    }
    std::string file(pid_t pid) const { return figures() + "/" + std::to_string(pid); }

  private:
    test_support::ScratchDirectory scratch_{"memusage-live-unit"};
    std::string base_, previous_;
    bool had_previous_ = false;
};
