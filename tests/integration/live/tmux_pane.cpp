// SPDX-License-Identifier: MIT
#include "tmux_pane.h"

#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace live_test {

std::string shell_output(const std::string& command) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return output;
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
    pclose(pipe);
    return output;
}

namespace {
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}
}  // namespace

TmuxPane::TmuxPane(const std::string& command) {
    static std::atomic<int> count{0};
    socket_ = "/tmp/memusage-live-test-" + std::to_string(getpid()) + "-" +
              std::to_string(count++) + ".tmux";
    // The pane stays after the command ends, so its last screen can be read.
    tmux("new-session -d -x 80 -y 24 " + quoted("env TERM=xterm-256color LANG=C.UTF-8 " + command +
                                                "; echo PANE-EXIT=$?; sleep 600"));
}

TmuxPane::~TmuxPane() {
    tmux("kill-server");
    unlink(socket_.c_str());
}

std::string TmuxPane::tmux(const std::string& arguments) const {
    return shell_output("tmux -S " + socket_ + " -f /dev/null " + arguments + " 2>&1");
}

std::string TmuxPane::screen() const { return tmux("capture-pane -p -S -200"); }

std::string TmuxPane::screen_unwrapped() const { return tmux("capture-pane -p -J -S -200"); }

std::string TmuxPane::screen_with_attributes() const { return tmux("capture-pane -p -e"); }

void TmuxPane::send_keys(const std::string& keys) const { tmux("send-keys " + keys); }

void TmuxPane::resize(int columns, int rows) const {
    tmux("resize-window -x " + std::to_string(columns) + " -y " + std::to_string(rows));
}

bool TmuxPane::wait_for(const std::string& text, std::string& last,
                        std::chrono::seconds limit) const {
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        last = screen();
        if (last.find(text) != std::string::npos) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace live_test
