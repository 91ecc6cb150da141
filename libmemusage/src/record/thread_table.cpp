// SPDX-License-Identifier: MIT
#include "record/thread_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "platform/pages.h"

namespace memusage {

void read_thread_name(pid_t tid, char (&name)[16]) {
    char path[64] = "/proc/self/task/";
    size_t n = strlen(path);
    char digits[16];
    size_t count = 0;
    for (auto value = static_cast<uint32_t>(tid); count == 0 || value != 0; value /= 10)
        digits[count++] = static_cast<char>('0' + value % 10);
    while (count > 0) path[n++] = digits[--count];
    memcpy(path + n, "/comm", sizeof "/comm");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length = read(fd, name, sizeof(name) - 1);
    close(fd);
    if (length <= 0) return;
    if (name[length - 1] == '\n') --length;
    name[length] = '\0';
}

void ThreadTable::keep_row_locked(const ThreadLog& log) {
    if (row_count_ == row_capacity_) {
        size_t capacity = row_capacity_ == 0 ? 256 : row_capacity_ * 2;
        auto* rows = static_cast<ThreadRow*>(allocate_pages(capacity * sizeof(ThreadRow)));
        if (rows == nullptr) return;  // the table will lack this thread; the summary does not
        if (rows_ != nullptr) {
            memcpy(rows, rows_, row_count_ * sizeof(ThreadRow));
            free_pages(rows_, row_capacity_ * sizeof(ThreadRow));
        }
        rows_ = rows;
        row_capacity_ = capacity;
    }
    ThreadRow& row = rows_[row_count_++];
    row.serial = log.serial;
    row.tid = log.owner_thread;
    memcpy(row.name, log.name, sizeof(row.name));
    row.name[sizeof(row.name) - 1] = '\0';
    row.calls = row.allocated = row.freed = row.stack_peak = 0;
    row.net = 0;
    // A signal handler's calls, counted in the thread's nested log, are the thread's too.
    for (const ThreadLog* part : {&log, static_cast<const ThreadLog*>(log.nested)}) {
        if (part == nullptr) continue;
        for (uint64_t calls : part->stats.calls) row.calls += calls;
        row.allocated += part->stats.heap_total();
        row.freed += part->stats.bytes_of(Call::free);
        row.net += part->net_heap;
        row.stack_peak = part->stack_peak > row.stack_peak ? part->stack_peak : row.stack_peak;
    }
}

const ThreadRow* ThreadTable::rows_locked(ThreadLog* logs, size_t& count) {
    if (keep_rows_) {
        for (ThreadLog* log = logs; log != nullptr; log = log->next) {
            if (!log->in_use || log->parent != nullptr) continue;
            if (log->name[0] == '\0') read_thread_name(log->owner_thread, log->name);
            keep_row_locked(*log);
        }
        keep_rows_ = false;  // each running thread once
        // Insertion sort by serial: the table lists threads in the order they began.
        for (size_t i = 1; i < row_count_; ++i) {
            ThreadRow row = rows_[i];
            size_t j = i;
            for (; j > 0 && rows_[j - 1].serial > row.serial; --j) rows_[j] = rows_[j - 1];
            rows_[j] = row;
        }
    }
    count = row_count_;
    return rows_;
}

}  // namespace memusage
