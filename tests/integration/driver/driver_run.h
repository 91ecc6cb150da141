// SPDX-License-Identifier: MIT
// Runs the built memusage driver for the integration tests, with a clean environment and
// its output captured in files.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace driver_test {

struct DriverRun {
    int exit_code = -1;  // the driver's exit status, or -signal if it died of one
    std::string out;
    std::string err;
};

// The environment the driver runs in: ours without MEMUSAGE_* and LD_PRELOAD, so the driver
// finds the build's collector by itself, plus extra ("NAME=VALUE", replacing).
std::vector<std::string> clean_environment(const std::vector<std::string>& extra);

// Starts the executable with stdout and stderr sent to the given files.
pid_t start(const std::string& executable, const std::vector<std::string>& arguments,
            const std::vector<std::string>& environment, const std::string& out_path,
            const std::string& err_path);

// Waits for pid; exit status, or -signal.
int wait_exit_code(pid_t pid);

std::string read_file(const std::string& path);

// Polls for a file a fixture creates to say it has started; false after the time limit.
bool wait_until_exists(const std::string& path);

// Runs the driver to the end. scratch: a directory for the captured output.
DriverRun run_driver(const std::vector<std::string>& arguments, const std::string& scratch,
                     const std::vector<std::string>& extra_environment = {});

}  // namespace driver_test
