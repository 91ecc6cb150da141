#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memusage/summary.h"
#include "originals.h"
#include "sampler.h"
#include "sites.h"

namespace memusage::collector {

// All of the collector's state is constant-initialized (constinit): the program's
// first allocation may come before any constructor has run, and a constructor running
// after it would wipe what that allocation set up.
constinit std::atomic<State> state{State::uninitialized};
constinit Config config;
constinit Recorder recorder;
constinit MappingSet mappings;
__thread ThreadLog* thread_log = nullptr;
__thread ThreadLog* counting_log = nullptr;

namespace {

constinit DataFile data_file;
pthread_key_t thread_key;
uintptr_t main_thread_stack_start;
constinit Stats totals{};

// The standard error the program started with. The summary goes there even if the
// program closes or redirects its own (coreutils close it before exiting).
struct SavedStderr {
    int fd = -1;
    dev_t device = 0;
    ino_t inode = 0;
} saved_stderr;

constexpr int kFatalSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};

void write_all(int fd, const char* text, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, text, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        length -= static_cast<size_t>(n);
    }
}

void warn(const char* what, const char* detail) {
    char line[512];
    size_t n = 0;
    for (const char* part : {"memusage: ", what, detail, "\n"})
        for (; *part != '\0' && n < sizeof(line) - 1; ++part) line[n++] = *part;
    write_all(STDERR_FILENO, line, n);
}

void keep_stderr() {
    struct stat st;
    if (fstat(STDERR_FILENO, &st) != 0) return;
    int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 901);
    if (fd < 0) return;
    saved_stderr = SavedStderr{fd, st.st_dev, st.st_ino};
}

int summary_fd() {
    struct stat st;
    if (saved_stderr.fd >= 0 && fstat(saved_stderr.fd, &st) == 0 &&
        st.st_dev == saved_stderr.device && st.st_ino == saved_stderr.inode)
        return saved_stderr.fd;
    return STDERR_FILENO;
}

bool use_color(int fd) {
    if (config.color != ColorMode::automatic) return config.color == ColorMode::always;
    const char* no_color = getenv("NO_COLOR");
    return isatty(fd) && (no_color == nullptr || no_color[0] == '\0');
}

void print_summary() {
    int fd = summary_fd();
    SummaryStyle style;
    style.color = use_color(fd);
    style.mmap_rows = config.trace_mmap;
    auto sink = [](void* context, const char* text, size_t length) {
        write_all(*static_cast<int*>(context), text, length);
    };
    write_summary(totals, style, sink, &fd);
}

void on_thread_exit(void* value) {
    counting_log = nullptr;
    recorder.detach_thread(static_cast<ThreadLog*>(value));
    thread_log = nullptr;  // a later call (another key's destructor) attaches anew
}

void before_fork() {
    if (state.load() == State::active) recorder.before_fork(thread_log);
}
void after_fork_in_parent() {
    if (state.load() == State::active) recorder.after_fork_in_parent();
}
void after_fork_in_child() {
    if (state.load() == State::active) recorder.after_fork_in_child(thread_log);
    sites::after_fork_in_child();
}

void on_fatal_signal(int signal_number) {
    // The handler was one-shot (SA_RESETHAND): re-raising gives the default death.
    State expected = State::active;
    if (state.compare_exchange_strong(expected, State::finished)) {
        sampler::stop();
        if (recorder.finish_file_after_crash(cycle_counter(), thread_log)) sites::finish(true);
    }
    raise(signal_number);
}

// Only where the program left the default: a program that ignores or handles these
// signals itself keeps doing so.
void install_fatal_signal_handlers() {
    for (int signal_number : kFatalSignals) {
        struct sigaction current;
        if (original::sigaction(signal_number, nullptr, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
        struct sigaction action = {};
        action.sa_handler = on_fatal_signal;
        action.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        original::sigaction(signal_number, &action, nullptr);
    }
}

void open_data_file() {
    if (config.output_owner != 0 && config.output_owner != getpid()) return;
    switch (data_file.open(config.output, cycle_counter())) {
        case DataFile::OpenResult::opened: {
            char pid[24];
            snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
            setenv(kOutputOwnerVariable, pid, 1);
            break;
        }
        case DataFile::OpenResult::busy:
            break;
        case DataFile::OpenResult::failed:
            warn("cannot write the data file: ", config.output);
            break;
    }
}

__attribute__((constructor)) void start_with_program() { current_state(); }

__attribute__((destructor)) void finish_with_program() {
    State expected = State::active;
    if (!state.compare_exchange_strong(expected, State::finished)) return;
    counting_log = nullptr;
    sampler::stop();
    recorder.finish(totals, cycle_counter(), thread_log);
    if (const char* problem = sites::finish(false)) warn(problem, "");
    print_summary();
}

}  // namespace

State initialize() {
    State expected = State::uninitialized;
    if (!state.compare_exchange_strong(expected, State::initializing)) return expected;
    // The main thread's stack is measured from here, where the program starts (our
    // constructor, or its first allocation if that comes earlier), as glibc does.
    main_thread_stack_start = stack_pointer();
    if (!original::resolve()) {
        warn("cannot find the C library's allocator", "");
        _exit(127);
    }
    auto lookup = [](const char* name) -> const char* { return getenv(name); };
    config = Config::read(lookup, program_invocation_short_name);
    if (!config.profiled) {
        state.store(State::passthrough, std::memory_order_release);
        return State::passthrough;
    }
    pthread_key_create(&thread_key, on_thread_exit);
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    keep_stderr();
    if (config.output != nullptr) open_data_file();
    if (!recorder.init(&data_file, config.buffer_records)) {
        warn("out of memory for the record buffer", "");
        data_file.close();
    }
    if (config.sites != nullptr) {
        if (const char* problem = sites::start(config.sites, config.sites_owner)) warn(problem, "");
        recorder.keep_site_figures(sites::accounts());
    }
    install_fatal_signal_handlers();
    state.store(State::active, std::memory_order_release);
    if (data_file.is_open() && config.timer) sampler::start();
    return State::active;
}

ThreadLog* begin_first_count() {
    // A thread with a log that may not count is inside a hook, or past the summary.
    static __thread bool attaching = false;
    if (thread_log != nullptr || attaching || current_state() != State::active) return nullptr;
    attaching = true;
    ThreadLog* log = recorder.attach_thread();
    if (log != nullptr) {
        if (getpid() == static_cast<pid_t>(syscall(SYS_gettid)))
            log->stack_start = main_thread_stack_start;
        thread_log = log;
        pthread_setspecific(thread_key, log);
    }
    attaching = false;
    return log;
}

}  // namespace memusage::collector
