// SPDX-License-Identifier: MIT
#include "intercept/collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <initializer_list>

#include "heap/allocation_gate.h"
#include "heap/block.h"
#include "heap/counting_extras.h"
#include "intercept/ending_signals.h"
#include "intercept/sampler.h"
#include "memusage/live_format.h"
#include "memusage/summary.h"
#include "memusage/summary_format.h"
#include "platform/originals.h"
#include "platform/owned_file.h"
#include "platform/quiet_writes.h"
#include "platform/stacks.h"
#include "publish/publisher.h"
#include "record/events_file.h"
#include "record/output_claim.h"
#include "record/summary_file.h"
#include "sites/sites.h"
#include "sites/stack_peaks.h"

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
constinit EventsFile events_file;
pthread_key_t thread_key;
uintptr_t main_thread_stack_start;
constinit Stats totals{};
constinit SummaryFile figures_file;  // MEMUSAGE_SUMMARY_FILE
// Set while the collector does something of its own that allocates (attaching a thread,
// starting the live publisher): those calls are not the program's.
__thread bool collector_busy = false;

// The standard error the program started with. The summary goes there even if the
// program closes or redirects its own (coreutils close it before exiting).
struct SavedStderr {
    bool known = false;  // descriptor 2 was open when the collector started
    int fd = -1;         // our copy of it
    dev_t device = 0;
    ino_t inode = 0;
} saved_stderr;

constexpr int kFatalSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
// What ends a program from outside (kill, a closed terminal, Ctrl-C or Ctrl-\\, a reader of
// its output that left): by default they end the process, which leaves no time to remove its
// live figures' file.
constexpr int kEndingSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};

// Standard error may be a pipe whose reader has left: the program still exits as it
// would have, its own buffers flushed.
void write_all(int fd, const char* text, size_t length) {
    QuietWrites quiet;
    while (length > 0) {
        ssize_t n = write(fd, text, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        length -= static_cast<size_t>(n);
    }
}

int summary_fd();

__attribute__((noinline)) void warn_parts(std::initializer_list<const char*> parts) {
    char line[512];
    size_t n = 0;
    for (const char* part : parts)
        for (; *part != '\0' && n < sizeof(line) - 1; ++part) line[n++] = *part;
    // An attached collector's messages go with its summary, not into the program's output.
    const int fd = kAttachVariant ? summary_fd() : STDERR_FILENO;
    if (fd >= 0) write_all(fd, line, n);
}

void warn(const char* what, const char* detail) { warn_parts({"memusage: ", what, detail, "\n"}); }

// "memusage: cannot write the WHAT PATH: REASON", the reason from the errno opening it left;
// a FIFO or a device (opened without waiting, so that the program runs on) is "not a
// regular file".
void warn_cannot_open(const char* what, const char* path) {
    const int error = errno;
    struct stat st;
    const char* reason = strerrordesc_np(error);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) reason = "not a regular file";
    warn_parts({"memusage: cannot write the ", what, " ", path, ": ",
                reason != nullptr ? reason : "unknown error", "\n"});
}

// A file another process's collector holds, one that did not start this process (those
// pass it on, and this one would not have tried): "memusage: cannot write the WHAT PATH:
// process PID is writing it", so that a second run given the same name does not pass the
// first run's file for its own. Nothing is said when /proc/locks names no holder, or names
// this process: its own lock from before an exec, kept by a child it forked.
void warn_held(const char* what, const char* path) {
    long holder = lock_holder(path);
    if (holder == 0 || holder == static_cast<long>(getpid())) return;
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", holder);
    warn_parts(
        {"memusage: cannot write the ", what, " ", path, ": process ", pid, " is writing it\n"});
}

// An attached collector's text goes to the file the driver reads, not to the program's
// standard error.
void use_report_file(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    saved_stderr = SavedStderr{true, fd, st.st_dev, st.st_ino};
}

void keep_stderr() {
    struct stat st;
    if (fstat(STDERR_FILENO, &st) != 0) return;
    int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 901);
    saved_stderr = SavedStderr{true, fd, st.st_dev, st.st_ino};
}

// Where our text may go: our copy of the standard error the program started with, or
// the program's descriptor 2 if our copy is gone (closefrom) and that still leads to the
// same file; else nowhere (-1). A program that closed everything may have opened a file
// of its own as descriptor 2, or under our copy's number: our text must not land in it.
int summary_fd() {
    if (!saved_stderr.known) return -1;
    for (int fd : {saved_stderr.fd, STDERR_FILENO}) {
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == saved_stderr.device &&
            st.st_ino == saved_stderr.inode)
            return fd;
    }
    return -1;
}

// Async-signal-safe: the data file reports a failed write from wherever it happens.
void warn_on_stderr(const char* text, size_t length) {
    int fd = summary_fd();
    if (fd >= 0) write_all(fd, text, length);
}

bool use_color(int fd) {
    if (config.color != ColorMode::automatic) return config.color == ColorMode::always;
    const char* no_color = getenv("NO_COLOR");
    return isatty(fd) && (no_color == nullptr || no_color[0] == '\0');
}

// Not the thread's last call: other keys' destructors and glibc's own teardown still
// allocate and free, counted in the same log, which the recorder takes back once the
// thread is gone. The thread's name is read while it is still the thread's.
void on_thread_exit(void* value) {
    auto* log = static_cast<ThreadLog*>(value);
    if (config.thread_table || config.events != nullptr) prctl(PR_GET_NAME, log->name);
    ending_signals::take_back_thread_stack(log->signal_stack);
    sites::end_thread();
    recorder.end_thread(log);
}

// fork() must stay what glibc makes it: free of deadlocks with stdio, and
// async-signal-safe in a single-threaded program. So nothing is locked before it
// (the parent needs nothing), and the child repairs what the fork caught halfway,
// without waiting. Its own calls are not counted meanwhile: a signal handler that
// allocates there would find the recorder half-repaired.
void after_fork_in_child() {
    publish::after_fork_in_child();  // the live figures' file is the parent's
    if (thread_log != nullptr) thread_log->publish_countdown = 0;  // the child's, at its next call
    sites::after_fork_in_child();  // the sites file is the parent's, whatever the state
    figures_file.close();          // and so is the summary file
    if (state.load(std::memory_order_acquire) != State::active) return;
    ThreadLog* counting = counting_log;
    counting_log = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    mappings.after_fork_in_child();
    recorder.after_fork_in_child(thread_log);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    counting_log = counting;
}

// The buffers the standard streams hold: stdio allocated them, as it does any stream's, but
// they are the C library's own, kept until exit by design, where a buffer of a stream the
// program opened and never closed is the program's leak. Only the stream itself tells them
// apart. A buffer the program gave (setvbuf: _IO_USER_BUF, as an unbuffered stream's
// one-byte buffer in the FILE) or one allocated before the collector started is not a
// block of ours. Reads three pointers: safe in a fatal signal's handler too.
uint32_t standard_stream_buffers(sites_format::StreamBufferRecord* out) {
    constexpr int kUserBuffer = 0x0001;  // glibc's _IO_USER_BUF
    uint32_t count = 0;
    for (FILE* stream : {stdin, stdout, stderr}) {
        if (stream == nullptr || stream->_IO_buf_base == nullptr ||
            (stream->_flags & kUserBuffer) != 0)
            continue;
        OurBlock block;
        if (!find_block(stream->_IO_buf_base, block) || block.site == 0) continue;
        out[count++] = {stack_id_of(block.site), 0, block.size,
                        reinterpret_cast<uintptr_t>(stream->_IO_buf_base)};
    }
    return count;
}

// Writes the sites file (sites::finish) with the standard streams' buffers.
const char* finish_sites(bool crashed) {
    sites_format::StreamBufferRecord buffers[sites_format::kMaxStreamBuffers];
    uint32_t count = standard_stream_buffers(buffers);
    return sites::finish(crashed, buffers, count);
}

void on_fatal_signal(int signal_number) {
    // The handler was one-shot (SA_RESETHAND): re-raising gives the default death.
    State expected = State::active;
    if (state.compare_exchange_strong(expected, State::finished)) {
        sampler::stop();
        publish::stop();
        if (recorder.finish_file_after_crash(cycle_counter(), thread_log)) finish_sites(true);
    }
    raise(signal_number);
}

// A one-shot `handler` for each of `signals` the program left at its default action (one it
// ignores or handles itself stays so); the collector holds it, so that the program reads the
// default back.
template <size_t N>
void install_where_default(const int (&signals)[N], void (*handler)(int), int flags) {
    for (int signal_number : signals) {
        struct sigaction current;
        if (original::sigaction(signal_number, nullptr, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
        struct sigaction action = {};
        action.sa_handler = handler;
        action.sa_flags = SA_RESETHAND | SA_NODEFER | flags;
        sigemptyset(&action.sa_mask);
        if (original::sigaction(signal_number, &action, nullptr) != 0) continue;
        ending_signals::hold(signal_number);
    }
}

// Only where the program left the default: a program that ignores or handles these
// signals itself keeps doing so. On the thread's alternate stack, which a stack
// overflow needs. The mask stays the program's: one inherited through exec that blocks
// a fault means a file kept complete at every write (program_blocks_faults).
void install_fatal_signal_handlers() {
    install_where_default(kFatalSignals, on_fatal_signal, SA_ONSTACK);
    sigset_t inherited;
    if (original::pthread_sigmask(SIG_BLOCK, nullptr, &inherited) == 0 &&
        ending_signals::blocks_held_fault(&inherited))
        recorder.keep_file_complete(nullptr, false);
}

// The live figures' file goes, and the signal is raised again: the handler was one-shot
// (SA_RESETHAND), so the process ends by it as it would have. Nothing else of the run is
// done here: without the live figures these signals end the program as under glibc's
// collector, and they still do.
void on_ending_signal(int signal_number) {
    publish::before_signal_death();
    raise(signal_number);
}

// With the live figures published, and only where the program left the default (a program
// that ignores or handles these signals keeps doing so, and one that reads the disposition
// back reads the default).
void install_ending_signal_handlers() {
    install_where_default(kEndingSignals, on_ending_signal, 0);
}

// Not when a process of the run that the environment names owns it (this process's
// parent, say); an image exec'd in place of the owner takes the file over, as with
// glibc; any other process only while no process of the run has written it.
void open_data_file() {
    if (config.output_owner != 0 && config.output_owner != getpid()) return;
    FileState at_run_start;
    bool taking_over = config.output_owner == getpid();
    bool conditional =
        !taking_over && output_claim::state_at_run_start(config.output, at_run_start);
    data_file.report_write_errors_to(warn_on_stderr);
    switch (data_file.open(config.output, cycle_counter(), conditional ? &at_run_start : nullptr)) {
        case OpenResult::opened: {
            char pid[24];
            snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
            setenv(kOutputOwnerVariable, pid, 1);
            break;
        }
        case OpenResult::busy:  // a process of the run has it, or had it
            break;
        case OpenResult::held:
            warn_held("data file", config.output);
            break;
        case OpenResult::failed:
            warn_cannot_open("data file", config.output);
            break;
    }
}

// The event recording, unless another process of the run (one that started this one)
// owns it: then this one records none. Opened once the sites are known (the header says
// whether the allocate records carry site ids); an image exec'd in place of the owner
// takes the file over.
void open_events_file() {
    if (config.events_owner != 0 && config.events_owner != getpid()) return;
    uint32_t flags = sites::enabled ? events_format::kHasSites : 0;
    if (sites::enabled && sites::sample_interval != 0) flags |= events_format::kSampledBlocksOnly;
    switch (events_file.open(config.events, flags)) {
        case OpenResult::opened: {
            char pid[24];
            snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
            setenv(kEventsOwnerVariable, pid, 1);
            events_file.report_write_errors_to(warn_on_stderr);
            recorder.record_events(&events_file);
            // Blocks with a site describe themselves to their release (heap/block.h); an
            // attached collector's blocks have no header to carry it (heap/address_table.h).
            described_blocks = sites::enabled && !kAttachVariant;
            break;
        }
        case OpenResult::busy:
        case OpenResult::held:
            warn_held("events file", config.events);
            break;
        case OpenResult::failed:
            warn_cannot_open("events file", config.events);
            break;
    }
}

// The summary file, unless another process of the run (one that started this one) owns it;
// an image exec'd in place of the owner takes it over.
void open_summary_file() {
    if (config.summary_file_owner != 0 && config.summary_file_owner != getpid()) return;
    switch (figures_file.open(config.summary_file)) {
        case OpenResult::opened: {
            char pid[24];
            snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
            setenv(kSummaryFileOwnerVariable, pid, 1);
            break;
        }
        case OpenResult::busy:
        case OpenResult::held:
            warn_held("summary file", config.summary_file);
            break;
        case OpenResult::failed:
            warn_cannot_open("summary file", config.summary_file);
            break;
    }
}

// A program (or a library searched before us) with a malloc of its own: the collector
// never sees its allocations, and an all-zero summary would not say why.
void note_malloc_not_ours(int fd) {
    void* found = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info theirs, ours;
    if (found == nullptr || dladdr(found, &theirs) == 0 ||
        dladdr(reinterpret_cast<void*>(&note_malloc_not_ours), &ours) == 0 ||
        theirs.dli_fbase == ours.dli_fbase)
        return;
    const char* where = theirs.dli_fname != nullptr && theirs.dli_fname[0] != '\0'
                            ? theirs.dli_fname
                            : program_invocation_name;
    const char* parts[] = {
        "memusage: malloc is not the C library's but ", where, "'s own: its calls are not counted",
        config.trace_mmap ? " (the memory it maps is)\n" : " (-m counts the memory it maps)\n"};
    for (const char* part : parts) write_all(fd, part, strlen(part));
}

// The summary, then what the run's settings add to it: what the allocation gate
// refused, the per-thread table; and why it may be empty.
void print_final_report() {
    int fd = summary_fd();
    if (fd < 0) return;
    print_summary(totals, fd);
    // An attached collector takes the C library's malloc over by its callers' entries.
    if (!kAttachVariant) note_malloc_not_ours(fd);
    SummaryStyle style = summary_style(fd);
    if (allocation_gate.active())
        write_gate_report(allocation_gate.report(), style, write_to_fd, &fd);
    if (config.thread_table) {
        size_t count = 0;
        const ThreadRow* rows = recorder.thread_rows(count);
        write_thread_table(rows, count, style, write_to_fd, &fd);
    }
}

// The live figures as the program starts (its first calls may have made the file already):
// with MEMUSAGE_LIVE=1, the publisher's thread too. pthread_create's allocations (the new
// thread's TLS vector) are not the program's, so this thread counts none of its calls
// meanwhile.
void start_live_figures() {
    ThreadLog* counting = counting_log;
    counting_log = nullptr;
    collector_busy = true;
    if (config.live) {
        if (const char* problem = publish::start(thread_log))
            warn(live_format::kNotPublished, problem);
        else
            install_ending_signal_handlers();
    } else if (publish::serve_now(thread_log) != publish::Served::nothing) {
        install_ending_signal_handlers();
    }
    collector_busy = false;
    counting_log = counting;
}

// An attached collector (loaded into a running process) starts when it is told to
// (start_attached), not as it is loaded.
__attribute__((constructor)) void start_with_program() {
    if constexpr (kAttachVariant) return;
    if (current_state() == State::active && !config.unpublished) start_live_figures();
}

__attribute__((destructor)) void finish_with_program() { finish(); }

// The calling thread's log, made now, its stack measured from `stack_start` (0: from its
// first call) within `own_stack`. This runs inside the thread's first call, which may be
// an mmap made under the lock of the program's own allocator: nothing here allocates or
// waits for a lock but the recorder's. Null when no log can be had.
ThreadLog* attach_calling_thread(uintptr_t stack_start, StackRange own_stack) {
    collector_busy = true;
    ThreadLog* log = recorder.attach_thread(&counting_log);
    if (log != nullptr) {
        log->stack_start = stack_start;
        // Where the thread's own stack lies, so that one of its calls on another stack (a
        // handler's on its alternate stack, a coroutine's) is not measured from its start.
        log->own_stack = own_stack;
        log->stack_capture_above = stack_peaks::enabled ? 0 : UINT64_MAX;
        thread_log = log;
        pthread_setspecific(thread_key, log);
        ending_signals::give_thread_a_stack(log->signal_stack);
        sites::prepare_thread();  // what it allocates is the collector's, not the program's
    }
    collector_busy = false;
    return log;
}

}  // namespace

void write_to_fd(void* fd, const char* text, size_t length) {
    write_all(*static_cast<int*>(fd), text, length);
}

SummaryStyle summary_style(int fd) {
    SummaryStyle style;
    style.color = use_color(fd);
    style.mmap_rows = config.trace_mmap;
    return style;
}

void print_summary(const Stats& stats, int fd) {
    if (fd < 0) fd = summary_fd();
    if (fd < 0) return;
    SummaryStyle style = summary_style(fd);
    write_summary(stats, style, write_to_fd, &fd);
}

void print_summary_line(const char* text, size_t length, int fd) {
    if (fd < 0) fd = summary_fd();
    if (fd >= 0) write_all(fd, text, length);
}

void repair_in_forked_child() { after_fork_in_child(); }

// Every kCallsPerLook calls of the thread's own, or after a large change; the file the
// first look makes is removed by the signals that end the process, as at the start. errno
// stays the call's.
void look_at_live_figures(ThreadLog& log) {
    const bool large_change = log.publish_countdown < -1;
    log.publish_countdown = kCallsPerLook;
    if (log.parent != nullptr || current_state() != State::active) return;
    int saved_errno = errno;
    if (publish::serve_from_call(log, large_change) == publish::Served::created)
        install_ending_signal_handlers();
    errno = saved_errno;
}

void program_blocks_faults() {
    if (current_state() != State::active) return;
    int saved_errno = errno;
    // Inside one of this thread's calls (a signal handler interrupted it), the stream may
    // be halfway through an event: the file is only kept complete from the next write.
    bool interrupted_a_call = thread_log != nullptr && counting_log == nullptr;
    ThreadLog* counting = counting_log;
    counting_log = nullptr;  // a handler's calls meanwhile are not counted in our own log
    std::atomic_signal_fence(std::memory_order_seq_cst);
    recorder.keep_file_complete(thread_log, !interrupted_a_call);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    counting_log = counting;
    errno = saved_errno;
}

void start_publishing() {
    if (!config.unpublished) start_live_figures();
}

bool finish() {
    State expected = State::active;
    if (!state.compare_exchange_strong(expected, State::finished)) return false;
    counting_log = nullptr;
    sampler::stop();
    publish::stop();
    if ((config.thread_table || config.events != nullptr) && thread_log != nullptr)
        prctl(PR_GET_NAME, thread_log->name);
    bool complete = recorder.finish(totals, cycle_counter(), thread_log);
    // A run whose end stopped a merge halfway leaves the sites file as a killed run
    // leaves it, as it does the data file.
    if (complete) {
        if (const char* problem = finish_sites(false)) warn(problem, "");
        if (const char* summary = sites::verify_summary()) warn(summary, "");
    }
    // The figures the summary prints, whether or not there is a standard error to print on.
    if (figures_file.is_open() &&
        !figures_file.write(totals, config.trace_mmap ? summary_format::kMmapRows : 0)) {
        const char* reason = strerrordesc_np(figures_file.write_error());
        warn_parts({"memusage: cannot write the summary file ", config.summary_file, ": ",
                    reason != nullptr ? reason : "unknown error", "; it is left incomplete\n"});
    }
    print_final_report();
    return true;
}

State initialize() { return initialize_from(nullptr, -1); }

State initialize_from(const char* (*lookup)(const char*), int report_fd) {
    State expected = State::uninitialized;
    if (!state.compare_exchange_strong(expected, State::initializing)) return expected;
    // The main thread's stack is measured from here, where the program starts (our
    // constructor, or its first allocation if that comes earlier), as glibc does: from
    // this frame's top, so that what this function keeps on the stack (it grows as the
    // collector learns more settings) does not push the start below the program's own
    // calls and flatten the stack curve to zero.
    main_thread_stack_start = this_frame_top();
    if (!original::resolve()) {
        warn("cannot find the C library's allocator", "");
        _exit(127);
    }
    if (lookup == nullptr) lookup = [](const char* name) -> const char* { return getenv(name); };
    output_claim::mark_run_start();
    config = Config::read(lookup, program_invocation_short_name);
    if (!config.profiled) {
        state.store(State::passthrough, std::memory_order_release);
        return State::passthrough;
    }
    for (int i = 0; i < config.rejected_count; ++i) {
        warn_parts({"memusage: ", config.rejected[i].variable, " ignored: it should be ",
                    config.rejected[i].expected, "\n"});
    }
    allocation_gate.configure(config.gate);
    if (config.thread_table) {
        // The table's figures are kept by the counting's optional work.
        counting_extras::turn_on();
        recorder.keep_thread_rows();
    }
    pthread_key_create(&thread_key, on_thread_exit);
    pthread_atfork(nullptr, nullptr, after_fork_in_child);
    if (report_fd >= 0)
        use_report_file(report_fd);
    else
        keep_stderr();
    if (config.output != nullptr) open_data_file();
    if (!recorder.init(&data_file, config.buffer_records)) {
        warn("out of memory for the record buffer", "");
        data_file.close();
    }
    if (config.sites != nullptr) {
        if (const char* problem = sites::start(
                config.sites, config.sites_owner, config.sites_sample,
                config.sites_seeded ? &config.sites_seed : nullptr, config.sites_verify))
            warn(problem, "");
        recorder.keep_site_figures(sites::accounts());
    } else if (config.stack_peak != nullptr) {
        if (const char* problem =
                sites::start_stack_peaks_only(config.stack_peak, config.sites_owner))
            warn(problem, "");
    }
    if (config.events != nullptr) open_events_file();
    // Sampled sites alone take the sampled short way; exact sites or the event recording,
    // the general one.
    if (sites::enabled && sites::sample_interval != 0 && !recorder.logs_have_blocks())
        counting_extras::calls_will_sample();
    else if (recorder.new_blocks_need_more())
        counting_extras::calls_will_do_more();
    if (config.summary_file != nullptr) open_summary_file();
    // The file itself is made at the first look (a call) or the constructor, whichever
    // comes first.
    if (!config.unpublished)
        publish::prepare(recorder, config.trace_mmap ? live_format::kMmapRows : 0);
    install_fatal_signal_handlers();
    learn_thread_stack_layout();
    // The main thread is counted from the start, profiling ticks before its first
    // allocation included (a thread starting the collector is not the main one).
    if (gettid() == getpid()) {
        if (ThreadLog* log = attach_calling_thread(main_thread_stack_start,
                                                   main_thread_stack(main_thread_stack_start)))
            counting_log = log;
    }
    state.store(State::active, std::memory_order_release);
    if (data_file.is_open() && config.timer && !kAttachVariant) sampler::start();
    return State::active;
}

void thread_begins(uintptr_t stack_start, StackRange own_stack) {
    if (collector_busy || thread_log != nullptr || current_state() != State::active) return;
    int saved_errno = errno;
    if (ThreadLog* log = attach_calling_thread(stack_start, own_stack)) counting_log = log;
    errno = saved_errno;
}

bool starting_own_thread() { return collector_busy; }

UncommonCount begin_uncommon_count() {
    if (collector_busy || current_state() != State::active) return {nullptr, nullptr};
    if (thread_log != nullptr) {
        // The main thread's log, made as the collector started, which that start (in
        // this call) made: the thread is between calls, and this one is its own.
        ThreadLog* own = counting_log;
        if (own == thread_log) {
            __atomic_store_n(&counting_log, nullptr, __ATOMIC_RELAXED);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            if (own->stop_requested.load(std::memory_order_relaxed)) return {nullptr, own};
            return {own, own};
        }
        // Inside one of the thread's calls. The C library's allocator never calls ours,
        // so this is a signal handler's call, counted as glibc counts it when it can be.
        // Another allocator after us may be calling back from inside our call to it: its
        // calls pass through, uncounted and without our header, which it would not know.
        if (!original::allocator_is_libc) return {nullptr, nullptr};
        ThreadLog* nested = recorder.begin_nested(*thread_log);
        if (nested != nullptr) counting_log = nested;
        return {nested, nullptr};
    }
    // A thread that did not start through our start routine (the C library starts some
    // itself): measured from its first call; or the main thread, after a fork.
    uintptr_t sp = stack_pointer();
    bool main_thread = gettid() == getpid();
    ThreadLog* log = main_thread ? attach_calling_thread(main_thread_stack_start,
                                                         main_thread_stack(main_thread_stack_start))
                                 : attach_calling_thread(0, unknown_thread_stack(sp));
    return {log, log};
}

}  // namespace memusage::collector
