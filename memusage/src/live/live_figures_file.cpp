#include "live/live_figures_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace memusage::live {

std::string figures_file_path(uid_t uid, pid_t pid, const std::string& directory) {
    return directory + "/" + live_format::kNamePrefix + std::to_string(uid) + "-" +
           std::to_string(pid);
}

std::optional<uint64_t> process_start_ticks(pid_t pid) {
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat_file, text)) return std::nullopt;
    // The name in parentheses may hold anything: the fields count from its last ')'.
    size_t name_end = text.rfind(')');
    if (name_end == std::string::npos) return std::nullopt;
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

// Another process writes while this one copies: the copy is checked by the counter, and
// kept only when no write overlapped it.
__attribute__((no_sanitize("thread"))) bool copy_figures(const live_format::Header& shared,
                                                         live_format::Figures& out, int attempts) {
    for (int attempt = 0; attempt < attempts; ++attempt) {
        uint64_t before = __atomic_load_n(&shared.sequence, __ATOMIC_ACQUIRE);
        if (before % 2 != 0) {
            sched_yield();
            continue;
        }
        std::memcpy(&out, &shared.figures, sizeof out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&shared.sequence, __ATOMIC_RELAXED) == before) return true;
    }
    return false;
}

bool is_stale(const live_format::Header& header) {
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
    if (header_ != nullptr)
        munmap(const_cast<live_format::Header*>(header_), live_format::kFileBytes);
}

LiveFiguresFile::LiveFiguresFile(LiveFiguresFile&& other) noexcept
    : header_(std::exchange(other.header_, nullptr)) {}

std::string LiveFiguresFile::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) < live_format::kFileBytes) {
        ::close(fd);
        return "not a live-figures file";
    }
    void* memory = mmap(nullptr, live_format::kFileBytes, PROT_READ, MAP_SHARED, fd, 0);
    int error = errno;
    ::close(fd);
    if (memory == MAP_FAILED) return std::strerror(error);
    auto* header = static_cast<const live_format::Header*>(memory);
    const char* problem = nullptr;
    if (std::memcmp(header->magic, live_format::kMagic, sizeof header->magic) != 0)
        problem = "not a live-figures file (or one still being made)";
    else if (header->version != live_format::kVersion ||
             header->header_bytes != sizeof(live_format::Header))
        problem = "live figures of another version of memusage";
    else if (header->byte_order != live_format::kByteOrderMark ||
             header->word_bytes != sizeof(void*))
        problem = "live figures of a program of another byte order or word size";
    if (problem != nullptr) {
        munmap(memory, live_format::kFileBytes);
        return problem;
    }
    header_ = header;
    return {};
}

std::vector<RunningProcess> running_processes(const std::string& directory) {
    std::vector<RunningProcess> found;
    const std::string prefix = live_format::kNamePrefix + std::to_string(getuid()) + "-";
    DIR* listing = opendir(directory.c_str());
    if (listing == nullptr) return found;
    while (dirent* entry = readdir(listing)) {
        std::string name = entry->d_name;
        if (!name.starts_with(prefix)) continue;
        std::string path = directory + "/" + name;
        LiveFiguresFile file;
        if (!file.open(path).empty()) {
            // A file whose header was never finished (its process killed while making it):
            // stale once no process has the pid in its name.
            pid_t pid = 0;
            std::string digits = name.substr(prefix.size());
            auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
            if (error == std::errc() && end == digits.data() + digits.size() && pid > 0 &&
                !process_start_ticks(pid))
                unlink(path.c_str());
            continue;
        }
        if (is_stale(file.header())) {
            unlink(path.c_str());
            continue;
        }
        RunningProcess process{
            static_cast<pid_t>(file.header().pid),
            std::string(file.header().program,
                        strnlen(file.header().program, sizeof file.header().program)),
            file.header().start_ns,
            {}};
        if (!file.read(process.figures)) continue;
        found.push_back(std::move(process));
    }
    closedir(listing);
    std::sort(found.begin(), found.end(),
              [](const RunningProcess& a, const RunningProcess& b) { return a.pid < b.pid; });
    return found;
}

}  // namespace memusage::live
