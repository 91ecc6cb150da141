// SPDX-License-Identifier: MIT
#include "driver_run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace driver_test {

std::vector<std::string> clean_environment(const std::vector<std::string>& extra) {
    std::vector<std::string> entries;
    auto is_replaced = [&](const std::string& entry) {
        for (const std::string& added : extra) {
            std::string name = added.substr(0, added.find('=') + 1);
            if (entry.starts_with(name)) return true;
        }
        return false;
    };
    for (char** entry = environ; *entry; ++entry) {
        std::string text = *entry;
        if (text.starts_with("MEMUSAGE_") || text.starts_with("LD_PRELOAD=")) continue;
        if (!is_replaced(text)) entries.push_back(text);
    }
    entries.insert(entries.end(), extra.begin(), extra.end());
    return entries;
}

pid_t start(const std::string& executable, const std::vector<std::string>& arguments,
            const std::vector<std::string>& environment, const std::string& out_path,
            const std::string& err_path) {
    std::vector<char*> argv{const_cast<char*>(executable.c_str())};
    for (const std::string& argument : arguments)
        argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const std::string& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = -1;
    int error = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error("cannot start " + executable);
    return pid;
}

int wait_exit_code(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1000;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

bool wait_until_exists(const std::string& path) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!std::filesystem::exists(path)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

DriverRun run_driver(const std::vector<std::string>& arguments, const std::string& scratch,
                     const std::vector<std::string>& extra_environment) {
    std::string out_path = scratch + "/driver.out";
    std::string err_path = scratch + "/driver.err";
    pid_t pid = start(MEMUSAGE_DRIVER_PATH, arguments, clean_environment(extra_environment),
                      out_path, err_path);
    DriverRun run;
    run.exit_code = wait_exit_code(pid);
    run.out = read_file(out_path);
    run.err = read_file(err_path);
    return run;
}

}  // namespace driver_test
