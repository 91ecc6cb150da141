// SPDX-License-Identifier: MIT
#include "live/live_figures_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "memusage/live_directory.h"

namespace memusage::live {
namespace {

// All of `length` bytes at `offset`, or false (an error, or the file ends before).
bool read_at(int fd, void* out, size_t length, off_t offset) {
    auto* bytes = static_cast<char*>(out);
    while (length > 0) {
        ssize_t got = ::pread(fd, bytes, length, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        bytes += got;
        length -= static_cast<size_t>(got);
        offset += got;
    }
    return true;
}

bool read_sequence(int fd, uint64_t& sequence) {
    return read_at(fd, &sequence, sizeof sequence, offsetof(live_format::Header, sequence));
}

// A name of digits only, as the collector gives its file: the pid.
std::optional<pid_t> pid_named(const std::string& name) {
    pid_t pid = 0;
    auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (name.empty() || name[0] == '+' || error != std::errc() ||
        end != name.data() + name.size() || pid <= 0)
        return std::nullopt;
    return pid;
}

}  // namespace

std::vector<std::string> figures_directories() {
    std::vector<std::string> found;
    uid_t uid = geteuid();
    char path[live_format::kPathBytes];
    for (live_format::Place place :
         {live_format::Place::runtime, live_format::Place::shared_memory})
        if (live_format::directory_path(place, uid, std::getenv("XDG_RUNTIME_DIR"), path) &&
            live_format::own_directory_problem(path, uid) == nullptr &&
            std::find(found.begin(), found.end(), path) == found.end())
            found.emplace_back(path);
    return found;
}

std::optional<uint64_t> process_start_ticks(pid_t pid) {
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat_file, text)) return std::nullopt;
    // The name in parentheses may hold anything: the fields count from its last ')'.
    size_t name_end = text.rfind(')');
    if (name_end == std::string::npos || name_end + 2 > text.size()) return std::nullopt;
    std::istringstream fields(text.substr(name_end + 2));
    std::string field;
    for (int number = 3; number <= 22 && fields >> field; ++number) {
        if (number < 22) continue;
        uint64_t ticks = 0;
        auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), ticks);
        if (error != std::errc()) return std::nullopt;
        return ticks;
    }
    return std::nullopt;
}

void bound_counts(live_format::Figures& figures) {
    figures.thread_rows = std::min(figures.thread_rows, live_format::kThreadRows);
    figures.site_rows = std::min(figures.site_rows, live_format::kSiteRows);
    for (live_format::HeldSite& site : figures.sites)
        site.depth = std::min(site.depth, live_format::kSiteFrames);
}

// Another process writes while this one copies: the copy is checked by the counter, and
// kept only when no write overlapped it. The fences order this thread's reads (the
// kernel's copies are this thread's too) as the writer's release stores require.
bool copy_figures(int fd, live_format::Figures& out, int attempts) {
    for (int attempt = 0; attempt < attempts; ++attempt) {
        uint64_t before = 0, after = 0;
        if (!read_sequence(fd, before)) return false;
        if (before % 2 != 0) {
            sched_yield();
            continue;
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (!read_at(fd, &out, sizeof out, offsetof(live_format::Header, figures))) return false;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (!read_sequence(fd, after)) return false;
        if (after == before) {
            bound_counts(out);
            return true;
        }
    }
    return false;
}

bool is_stale(const live_format::Header& header) {
    // A pid no process can have (the file's word only) is no process's.
    if (header.pid == 0 || header.pid > static_cast<uint32_t>(INT32_MAX)) return true;
    std::optional<uint64_t> start = process_start_ticks(static_cast<pid_t>(header.pid));
    if (!start) return true;
    // A process that took the pid since started after the file's writer: later than the
    // file says. A writer under qemu-user (a board's program run on the desktop) read the
    // start qemu makes up for it, from qemu's own clock reading once it has loaded: up to
    // this many ticks (of 10 ms) later than the kernel's.
    constexpr uint64_t kEmulatedStartSlack = 100;
    return *start > header.start_ticks || header.start_ticks - *start > kEmulatedStartSlack;
}

LiveFiguresFile::~LiveFiguresFile() {
    if (fd_ >= 0) ::close(fd_);
}

LiveFiguresFile::LiveFiguresFile(LiveFiguresFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), header_(other.header_) {}

Status LiveFiguresFile::open(const std::string& path, std::optional<pid_t> pid, int* open_error) {
    // O_NONBLOCK: a FIFO's open would wait for a writer, for ever.
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int error = fd < 0 ? errno : 0;
    if (open_error != nullptr) *open_error = error;
    if (fd < 0)
        return Failure{error == ELOOP ? "a symbolic link, not a live-figures file"
                                      : std::strerror(error)};
    struct stat st;
    const char* problem = nullptr;
    live_format::Header header{};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        problem = "not a regular file, not a live-figures file";
    else if (st.st_uid != geteuid())
        problem = "a file of another user's, not read";
    else if (static_cast<uint64_t>(st.st_size) < live_format::kFileBytes ||
             !read_at(fd, &header, sizeof header, 0))
        problem = "not a live-figures file";
    else if (std::memcmp(header.magic, live_format::kMagic, sizeof header.magic) != 0)
        problem = "not a live-figures file (or one still being made)";
    else if (header.version != live_format::kVersion ||
             header.header_bytes != sizeof(live_format::Header))
        problem = "live figures of another version of memusage";
    else if (header.byte_order != live_format::kByteOrderMark || header.word_bytes != sizeof(void*))
        problem = "live figures of a program of another byte order or word size";
    else if (pid && header.pid != static_cast<uint32_t>(*pid))
        problem = "the live figures of another process than its name says";
    if (problem != nullptr) {
        ::close(fd);
        return Failure{problem};
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    path_ = path;
    bound_counts(header.figures);
    header_ = header;
    return {};
}

void LiveFiguresFile::ask_for_sites(uint64_t now_ns) const {
    if (fd_ < 0) return;
    int fd = ::open(path_.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    struct stat written, read;
    // Only the file being read: its name may have been taken by another since.
    if (fstat(fd, &written) == 0 && fstat(fd_, &read) == 0 && S_ISREG(written.st_mode) &&
        written.st_dev == read.st_dev && written.st_ino == read.st_ino)
        (void)::pwrite(fd, &now_ns, sizeof now_ns, offsetof(live_format::Header, sites_wanted_ns));
    ::close(fd);
}

std::vector<LookedAt> LiveFiguresFile::open_process(pid_t pid) {
    std::vector<std::string> directories = figures_directories();
    if (directories.empty()) {
        char path[live_format::kPathBytes];
        live_format::directory_path(live_format::Place::shared_memory, geteuid(), nullptr, path);
        return {{path, ENOENT, "no directory of this user's live figures"}};
    }
    std::vector<LookedAt> looked;
    for (const std::string& directory : directories) {
        LookedAt place{directory + "/" + std::to_string(pid), 0, {}};
        Status opened = open(place.path, pid, &place.error);
        if (opened.ok()) return {};
        place.problem = opened.error();
        looked.push_back(std::move(place));
    }
    return looked;
}

std::string looked_text(const std::vector<LookedAt>& looked, bool missing) {
    std::string text;
    for (const LookedAt& place : looked)
        if (missing || place.error != ENOENT)
            text += (text.empty() ? "" : "; ") + place.path + ": " + place.problem;
    return text;
}

std::string LiveFiguresFile::program() const {
    return std::string(header_.program, strnlen(header_.program, sizeof header_.program));
}

bool LiveFiguresFile::read(live_format::Figures& out) const {
    return fd_ >= 0 && copy_figures(fd_, out);
}

bool LiveFiguresFile::replaced() const {
    struct stat named, open_one;
    return fd_ >= 0 && ::lstat(path_.c_str(), &named) == 0 && ::fstat(fd_, &open_one) == 0 &&
           (named.st_ino != open_one.st_ino || named.st_dev != open_one.st_dev);
}

bool LiveFiguresFile::unlinked() const {
    struct stat open_one;
    return fd_ >= 0 && ::fstat(fd_, &open_one) == 0 && open_one.st_nlink == 0;
}

std::vector<RunningProcess> running_processes(const std::vector<std::string>& directories) {
    std::vector<RunningProcess> found;
    uid_t uid = geteuid();
    for (const std::string& directory : directories) {
        if (live_format::own_directory_problem(directory.c_str(), uid) != nullptr) continue;
        DIR* listing = opendir(directory.c_str());
        if (listing == nullptr) continue;
        while (dirent* entry = readdir(listing)) {
            std::optional<pid_t> pid = pid_named(entry->d_name);
            if (!pid) continue;
            if (std::any_of(found.begin(), found.end(),
                            [&](const RunningProcess& seen) { return seen.pid == *pid; }))
                continue;
            std::string path = directory + "/" + entry->d_name;
            LiveFiguresFile file;
            if (!file.open(path, *pid).ok()) {
                // A file of this user's whose header was never finished (its process killed
                // while making it): stale once no process has the pid in its name.
                struct stat st;
                if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
                    !process_start_ticks(*pid))
                    unlink(path.c_str());
                continue;
            }
            if (is_stale(file.header())) {
                unlink(path.c_str());
                continue;
            }
            RunningProcess process{*pid, file.program(), file.header().start_ns, {}};
            if (!file.read(process.figures)) continue;
            found.push_back(std::move(process));
        }
        closedir(listing);
    }
    std::sort(found.begin(), found.end(),
              [](const RunningProcess& a, const RunningProcess& b) { return a.pid < b.pid; });
    return found;
}

}  // namespace memusage::live
