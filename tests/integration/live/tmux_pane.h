// SPDX-License-Identifier: MIT
// Drives a program in a detached tmux pane of 80x24, as a user's terminal would show it:
// keys in, the screen's text out. Each pane is its own tmux server (its own socket in
// /tmp, removed with it), so tests running at once never meet.
#pragma once

#include <chrono>
#include <string>

namespace live_test {

class TmuxPane {
  public:
    // Starts `command` (a shell command line) in a new pane.
    explicit TmuxPane(const std::string& command);
    ~TmuxPane();
    TmuxPane(const TmuxPane&) = delete;
    TmuxPane& operator=(const TmuxPane&) = delete;

    std::string screen() const;                  // the visible screen, and what scrolled off it
    std::string screen_with_attributes() const;  // the visible screen, escape sequences kept
    std::string screen_unwrapped() const;  // as screen(), a line wrapped at the edge made whole
    void send_keys(const std::string& keys) const;
    // The pane's terminal resized, as a user's window would be.
    void resize(int columns, int rows) const;
    // Polls the screen until it holds `text`; false after `limit`, with the last screen.
    bool wait_for(const std::string& text, std::string& last,
                  std::chrono::seconds limit = std::chrono::seconds(30)) const;

  private:
    std::string tmux(const std::string& arguments) const;
    std::string socket_;
};

// The output of a shell command line.
std::string shell_output(const std::string& command);

}  // namespace live_test
