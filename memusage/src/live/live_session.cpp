// SPDX-License-Identifier: MIT
#include "live/live_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "child_process.h"
#include "live/terminal_view.h"
#include "memusage/live_format.h"

namespace memusage::live {
namespace {

// One of the program's output streams: held while the view is up, then passed on.
class HeldStream {
  public:
    explicit HeldStream(int destination) : destination_(destination) {
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) != 0) return;
        read_end_ = ends[0];
        write_end_ = ends[1];
        ::fcntl(read_end_, F_SETFL, O_NONBLOCK);
    }
    ~HeldStream() {
        if (read_end_ >= 0) ::close(read_end_);
    }
    HeldStream(const HeldStream&) = delete;
    HeldStream& operator=(const HeldStream&) = delete;

    bool ok() const { return read_end_ >= 0; }
    int write_end() const { return write_end_; }  // the child's; run_child closes it

    // What has come so far, kept.
    void take() {
        char buffer[65536];
        for (;;) {
            ssize_t got = ::read(read_end_, buffer, sizeof buffer);
            if (got > 0) {
                held_.append(buffer, static_cast<size_t>(got));
                continue;
            }
            if (got == 0) open_ = false;
            return;
        }
    }
    // What was kept, passed on; from now on everything is passed on as it comes.
    void release() {
        write_all(held_);
        held_.clear();
    }
    // The whole line that begins with `prefix`, taken out of what is held; what follows
    // the prefix, or empty when no such line has come.
    std::string take_line(const std::string& prefix) {
        for (size_t at = 0; at < held_.size();) {
            size_t end = held_.find('\n', at);
            if (end == std::string::npos) break;
            if (held_.compare(at, prefix.size(), prefix) == 0) {
                std::string rest = held_.substr(at + prefix.size(), end - at - prefix.size());
                held_.erase(at, end + 1 - at);
                return rest;
            }
            at = end + 1;
        }
        return {};
    }
    int read_end() const { return read_end_; }
    bool open() const { return open_; }
    // A line of the driver's own, before what is held.
    void say(const std::string& line) { write_all(line); }
    void pass_on() {
        take();
        release();
    }

  private:
    void write_all(const std::string& text) {
        size_t done = 0;
        while (done < text.size()) {
            ssize_t n = ::write(destination_, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            done += static_cast<size_t>(n);
        }
    }
    int destination_;
    int read_end_ = -1, write_end_ = -1;
    bool open_ = true;
    std::string held_;
};

bool has_ended(pid_t child) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == child;
}

}  // namespace

ProgramOutcome run_with_live_view(const std::string& path,
                                  const std::vector<std::string>& arguments,
                                  const std::vector<std::string>& environment) {
    HeldStream output(STDOUT_FILENO), errors(STDERR_FILENO);
    ChildWatch watch;
    if (output.ok() && errors.ok()) {
        watch.output_fd = output.write_end();
        watch.error_fd = errors.write_end();
    }
    watch.while_running = [&](pid_t child) {
        ViewSource source;
        source.pid = child;
        source.ended = [child] { return has_ended(child); };
        source.tick = [&] {
            output.take();
            errors.take();
        };
        source.wait_for_file_ms = 5000;
        // The collector's warning that it cannot publish (its file system full or
        // read-only, its directory not the user's): the view's reason, said once.
        const std::string warning = std::string("memusage: ") + live_format::kNotPublished;
        source.not_published = [&] {
            std::string reason = errors.take_line(warning);
            return reason.empty() ? reason
                                  : "the live view has nothing to show: the program publishes no "
                                    "live figures (" +
                                        reason + "); it runs on without the view";
        };
        const Result<ViewEnd> shown = show_live_view(source);
        // Said now, before the program's held output, not at its end.
        if (!shown.ok()) {
            std::string line = "memusage: " + shown.error() + "\n";
            errors.say(line);
        }
        output.release();
        errors.release();
        // The rest as it comes, until the program (and whatever inherited its output) is done.
        while (output.open() || errors.open()) {
            pollfd fds[2] = {{output.read_end(), POLLIN, 0}, {errors.read_end(), POLLIN, 0}};
            if (!output.open()) fds[0].fd = -1;
            if (!errors.open()) fds[1].fd = -1;
            if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
            output.pass_on();
            errors.pass_on();
        }
    };
    return run_child(path, arguments, environment, &watch);
}

}  // namespace memusage::live
