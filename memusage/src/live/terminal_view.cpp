// SPDX-License-Identifier: MIT
#include "live/terminal_view.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

#include "live/figure_history.h"
#include "live/live_figures_file.h"
#include "live/live_site_names.h"
#include "live/printable_text.h"
#include "live/screen_text.h"

namespace memusage::live {
namespace {

constexpr int kKeyPollMs = 100;
constexpr int kRefreshMs = 1000;
// Readings after an exec with no file of the new program's before the view says it
// publishes none: its collector makes the file as it starts, well within a second.
constexpr int kReadingsForANewFile = 2;

uint64_t monotonic_ns() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

// The name the kernel gives process `pid` (its program's, cut to 15 bytes).
std::string process_name(pid_t pid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    return name;
}

class ThreadNames {
  public:
    ThreadNames(pid_t pid, bool utf8) : pid_(pid), utf8_(utf8) {}
    std::string operator()(uint64_t tid) {
        auto known = names_.find(tid);
        if (known != names_.end()) return known->second;
        std::ifstream comm("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(tid) +
                           "/comm");
        std::string name;
        std::getline(comm, name);
        return names_[tid] = printable(name, utf8_);
    }

  private:
    pid_t pid_;
    bool utf8_;
    std::map<uint64_t, std::string> names_;
};

// The terminal in curses mode for as long as this lives.
class CursesScreen {
  public:
    CursesScreen() {
        initscr();
        cbreak();
        noecho();
        curs_set(0);
        keypad(stdscr, TRUE);
        timeout(kKeyPollMs);
        const char* no_color = std::getenv("NO_COLOR");
        color_ = has_colors() && (no_color == nullptr || no_color[0] == '\0');
        if (color_) {
            start_color();
            use_default_colors();
            init_pair(1, COLOR_GREEN, -1);
            init_pair(2, COLOR_RED, -1);
        }
    }
    ~CursesScreen() { endwin(); }
    CursesScreen(const CursesScreen&) = delete;
    CursesScreen& operator=(const CursesScreen&) = delete;

    void draw(const std::vector<std::string>& lines) {
        erase();
        for (size_t row = 0; row < lines.size(); ++row) {
            // The title and the course stand out; without colour, the title is bold.
            bool title = row == 0;
            bool course = row == 8;  // the sparkline (screen_text.cpp)
            attr_t attributes = title ? A_BOLD : 0;
            if (color_ && title) attributes |= COLOR_PAIR(1);
            if (color_ && course) attributes |= COLOR_PAIR(2);
            attron(attributes);
            mvaddstr(static_cast<int>(row), 0, lines[row].c_str());
            attroff(attributes);
        }
        refresh();
    }

  private:
    bool color_ = false;
};

bool utf8_locale() {
    const char* codeset = nl_langinfo(CODESET);
    return codeset != nullptr && std::strcmp(codeset, "UTF-8") == 0;
}

// What the view shows of the process it follows, begun anew when the process execs.
struct FollowedProcess {
    FollowedProcess(pid_t pid, bool unicode) : names(pid, unicode) {}
    ScreenState state;
    std::unique_ptr<LiveSiteNames> site_names;
    FigureHistory history;
    ThreadNames names;
    int readings_without_file = 0;  // since the open file lost its name
};

// The process exec'd another program: under the collector, its file is a new one of the
// same pid (in this directory, or another when the program's environment chose another).
// The view follows it, with figures of its own from their start.
void follow_exec(LiveFiguresFile& file, pid_t pid, FollowedProcess& followed) {
    ScreenState& state = followed.state;
    if (file.open_process(pid).empty()) {
        state.exec_from = state.program;
        state.program = printable(file.program(), state.unicode);
        state.sites = (file.header().flags & live_format::kSites) != 0;
        state.not_profiled = false;
        followed.site_names = std::make_unique<LiveSiteNames>(pid);
        followed.history = FigureHistory();
        followed.names = ThreadNames(pid, state.unicode);
        followed.readings_without_file = 0;
    } else if (!state.not_profiled && ++followed.readings_without_file >= kReadingsForANewFile) {
        // No file yet: the program publishes none (not under the collector). The old
        // image's figures are not this program's: none are shown.
        state.exec_from = state.program;
        state.program = printable(process_name(pid), state.unicode);
        state.sites = false;
        state.not_profiled = true;
        followed.history = FigureHistory();
    }
}

// The screen drawn from the readings kept, at `now`.
void draw_view(CursesScreen& screen, const LiveFiguresFile& file, FollowedProcess& followed,
               uint64_t now, bool ended) {
    ScreenState& state = followed.state;
    // The start is the file's word: one in the future is no time at all.
    uint64_t start = file.header().start_ns;
    state.elapsed_seconds = now > start ? static_cast<double>(now - start) / 1e9 : 0;
    state.ended = ended;
    std::vector<ThreadLine> threads =
        followed.history.threads(state.order, std::ref(followed.names));
    std::vector<SiteLine> sites;
    if (state.sites && !followed.history.empty())
        sites = followed.site_names->lines(followed.history.latest());
    for (SiteLine& site : sites) site.name = printable(site.name, state.unicode);
    screen.draw(screen_lines(followed.history, state, threads, COLS, LINES, sites));
}

// A key pressed: false for quit. `redraw` is set when the key changes what is shown.
bool take_key(int key, ScreenState& state, bool& redraw) {
    if (key == 'q' || key == 'Q') return false;
    if (key == 's' || key == 'S') state.order = next_order(state.order);
    if (key == 'p' || key == 'P' || key == ' ') state.paused = !state.paused;
    // Drawn again at once from the readings kept, not read anew: the history holds one
    // reading a second, whatever the keys and resizes between.
    if (key == 's' || key == 'S' || key == 'p' || key == 'P' || key == ' ' || key == KEY_RESIZE)
        redraw = true;
    return true;
}

// The view of the figures in `file` (open, of a running process) until the process ends
// or the user quits.
ViewEnd watch_figures(LiveFiguresFile& file, const ViewSource& source) {
    setlocale(LC_ALL, "");
    const bool unicode = utf8_locale();
    FollowedProcess followed(source.pid, unicode);
    ScreenState& state = followed.state;
    state.unicode = unicode;
    // Names are another process's word: none reaches the terminal unescaped.
    state.program = printable(file.program(), state.unicode);
    state.pid = source.pid;
    state.sites = (file.header().flags & live_format::kSites) != 0;
    followed.site_names = std::make_unique<LiveSiteNames>(source.pid);
    CursesScreen screen;
    uint64_t next_reading = 0;
    bool redraw = false;
    for (;;) {
        bool ended = source.ended ? source.ended() : is_stale(file.header());
        uint64_t now = monotonic_ns();
        bool reading_due = ended || now >= next_reading;
        if (reading_due && !ended && (file.replaced() || file.unlinked()))
            follow_exec(file, source.pid, followed);
        if (reading_due) {
            live_format::Figures figures;
            // The top sites are a pass over the collector's site table: made for a reader
            // that shows them, who asks before each reading.
            if (state.sites && !state.not_profiled) file.ask_for_sites(monotonic_ns());
            if (!state.paused && !state.not_profiled && file.read(figures))
                followed.history.add(figures);
            next_reading = now + kRefreshMs * 1'000'000ULL;
        }
        if (reading_due || redraw) {
            redraw = false;
            draw_view(screen, file, followed, now, ended);
        }
        if (ended) return ViewEnd::process_ended;
        int key = getch();
        if (source.tick) source.tick();
        if (!take_key(key, state, redraw)) return ViewEnd::quit;
    }
}

// The collector is loaded in process `pid` (one of this user's): a library of its name in
// the process's maps.
bool runs_under_memusage(pid_t pid) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(maps, line))
        // Ours lives in a directory of its own; the C library's collector of the same name,
        // which publishes nothing, does not.
        if (line.ends_with("/memusage/libmemusage.so")) return true;
    return false;
}

// Process `pid` (one of this user's) was started asking for no live figures:
// MEMUSAGE_LIVE=0 in the environment it started with.
bool asked_not_to_publish(pid_t pid) {
    std::ifstream environ("/proc/" + std::to_string(pid) + "/environ");
    std::string variable;
    while (std::getline(environ, variable, '\0'))
        if (variable.starts_with("MEMUSAGE_LIVE=")) return variable.substr(14) == "0";
    return false;
}

// Why --watch has nothing to show of process `pid`, and what would make it publish.
std::string watch_problem(pid_t pid, const std::vector<LookedAt>& looked) {
    std::string process = "process " + std::to_string(pid);
    struct stat st;
    if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0)
        return "no " + process + " is running";
    std::string why;
    if (st.st_uid != geteuid())
        why = process + " is another user's: --watch shows only this user's processes";
    else if (runs_under_memusage(pid) && asked_not_to_publish(pid))
        why = process +
              " runs under memusage with MEMUSAGE_LIVE=0, which publishes no live figures: "
              "start it without that setting to watch it";
    else if (runs_under_memusage(pid))
        why = process +
              " runs under memusage but publishes nothing: its collector could not make its "
              "file, or the program has not started yet (memusage --live says why on the "
              "program's standard error: 'memusage: live figures not published: ...')";
    else
        why = process +
              " is not running under memusage: start the program with memusage PROGRAM (or "
              "memusage --live PROGRAM to watch it at once), or profile it from now on with "
              "memusage --attach=" +
              std::to_string(pid) + " and watch it then";
    if (std::string refused = looked_text(looked, false); !refused.empty())
        why += " (" + refused + ")";
    return why;
}

}  // namespace

Status terminal_problem() {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return Failure{"the live view needs a terminal: standard input and output must be one"};
    const char* term = std::getenv("TERM");
    if (term == nullptr || term[0] == '\0' || std::strcmp(term, "dumb") == 0)
        return Failure{"the live view needs a terminal that can draw (TERM is unset or dumb)"};
    return {};
}

Result<ViewEnd> show_live_view(const ViewSource& source) {
    LiveFiguresFile file;
    for (int waited = 0;; waited += 50) {
        std::vector<LookedAt> looked = file.open_process(source.pid);
        if (looked.empty()) break;
        // What the process said so far, its end included: the collector's warning that it
        // publishes nothing comes before that.
        bool ended = source.ended && source.ended();
        if (source.tick) source.tick();
        // The collector said why it publishes nothing: no use waiting.
        if (std::string problem = source.not_published ? source.not_published() : "";
            !problem.empty()) {
            return Failure{problem};
        }
        if (ended) return ViewEnd::process_ended;
        if (waited >= source.wait_for_file_ms) {
            // A program this driver started (--live) runs under memusage, as this user.
            return Failure{source.ended
                               ? "no live figures for process " + std::to_string(source.pid) +
                                     " (" + looked_text(looked) + ")"
                               : watch_problem(source.pid, looked)};
        }
        usleep(50'000);
    }
    if (is_stale(file.header())) {
        return Failure{"process " + std::to_string(source.pid) + " is no longer running"};
    }

    return watch_figures(file, source);
}

}  // namespace memusage::live
