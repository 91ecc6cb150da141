// SPDX-License-Identifier: MIT
#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>

namespace memusage {
namespace {

constexpr std::array kForwardedSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT};

volatile sig_atomic_t forward_to_pid = 0;

void forward_signal(int signal_number, siginfo_t* info, void*) {
    // A signal from the terminal (Ctrl-C, Ctrl-\, hangup) goes to the whole foreground
    // process group, the program included: passing it on would deliver it twice.
    if (info && info->si_code == SI_KERNEL) return;
    if (forward_to_pid > 0) ::kill(forward_to_pid, signal_number);
}

// Handles the forwarded signals while alive; restores the old handlers on the way out.
class SignalForwarding {
  public:
    SignalForwarding() {
        for (size_t i = 0; i < kForwardedSignals.size(); ++i) {
            ::sigaction(kForwardedSignals[i], nullptr, &previous_[i]);
            // A signal the driver was started ignoring (nohup, a background job of a
            // non-interactive shell) stays ignored, for the program too.
            if (previous_[i].sa_handler == SIG_IGN) continue;
            struct sigaction action {};
            action.sa_sigaction = forward_signal;
            action.sa_flags = SA_SIGINFO | SA_RESTART;
            sigemptyset(&action.sa_mask);
            ::sigaction(kForwardedSignals[i], &action, nullptr);
        }
    }
    ~SignalForwarding() {
        for (size_t i = 0; i < kForwardedSignals.size(); ++i) {
            ::sigaction(kForwardedSignals[i], &previous_[i], nullptr);
        }
        forward_to_pid = 0;
    }
    SignalForwarding(const SignalForwarding&) = delete;
    SignalForwarding& operator=(const SignalForwarding&) = delete;

  private:
    std::array<struct sigaction, kForwardedSignals.size()> previous_{};
};

// Blocks the forwarded signals until the child's pid is known, so none is lost in between.
class SignalBlock {
  public:
    SignalBlock() {
        sigset_t blocked;
        sigemptyset(&blocked);
        for (int signal_number : kForwardedSignals) sigaddset(&blocked, signal_number);
        ::sigprocmask(SIG_BLOCK, &blocked, &previous_);
    }
    ~SignalBlock() { restore(); }
    void restore() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
    const sigset_t& previous_mask() const { return previous_; }
    SignalBlock(const SignalBlock&) = delete;
    SignalBlock& operator=(const SignalBlock&) = delete;

  private:
    sigset_t previous_;
};

std::vector<char*> null_terminated(const std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    pointers.reserve(strings.size() + 1);
    for (const std::string& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

// In the child: exec, or report errno through the pipe. Only async-signal-safe calls.
[[noreturn]] void exec_in_child(const char* path, char* const* argv, char* const* envp,
                                char* const* shell_argv, const sigset_t& mask, int report_fd,
                                int output_fd, int error_fd) {
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    if (output_fd >= 0) ::dup2(output_fd, STDOUT_FILENO);
    if (error_fd >= 0) ::dup2(error_fd, STDERR_FILENO);
    ::execve(path, argv, envp);
    // A file without a #! line is a shell script, as execvp and shells treat it.
    if (errno == ENOEXEC) ::execve("/bin/sh", shell_argv, envp);
    int error = errno;
    ssize_t ignored = ::write(report_fd, &error, sizeof error);
    (void)ignored;
    ::_exit(127);
}

int wait_for(pid_t child) {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return 0;
    }
    return status;
}

// errno the child sent before dying, or 0 once exec closed the pipe.
int read_exec_error(int fd) {
    int error = 0;
    ssize_t got;
    do {
        got = ::read(fd, &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    return got == static_cast<ssize_t>(sizeof error) ? error : 0;
}

}  // namespace

ProgramOutcome run_child(const std::string& path, const std::vector<std::string>& arguments,
                         const std::vector<std::string>& environment, const ChildWatch* watch) {
    std::vector<char*> argv = null_terminated(arguments);
    std::vector<char*> envp = null_terminated(environment);
    std::vector<std::string> shell_arguments{arguments.front(), path};
    shell_arguments.insert(shell_arguments.end(), arguments.begin() + 1, arguments.end());
    std::vector<char*> shell_argv = null_terminated(shell_arguments);

    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return {ProgramOutcome::Kind::not_run, errno, false};

    std::fflush(nullptr);  // or the child would write our buffered output again
    SignalBlock block;     // first, so a signal arriving before the pid is known waits for it
    SignalForwarding forwarding;
    pid_t child = ::fork();
    if (child == 0) {
        ::close(report[0]);
        exec_in_child(path.c_str(), argv.data(), envp.data(), shell_argv.data(),
                      block.previous_mask(), report[1], watch ? watch->output_fd : -1,
                      watch ? watch->error_fd : -1);
    }
    int fork_error = errno;
    ::close(report[1]);
    if (watch != nullptr) {
        for (int fd : {watch->output_fd, watch->error_fd})
            if (fd >= 0) ::close(fd);
    }
    if (child < 0) {
        ::close(report[0]);
        return {ProgramOutcome::Kind::not_run, fork_error, false};
    }
    forward_to_pid = child;
    block.restore();

    int exec_error = read_exec_error(report[0]);
    ::close(report[0]);
    if (exec_error == 0 && watch != nullptr && watch->while_running) watch->while_running(child);
    int status = wait_for(child);
    forward_to_pid = 0;  // the pid may be reused from here on
    if (exec_error != 0) return {ProgramOutcome::Kind::not_run, exec_error, false};
    return outcome_from_wait_status(status);
}

}  // namespace memusage
