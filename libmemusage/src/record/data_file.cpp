// SPDX-License-Identifier: MIT
#include "record/data_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/data_file_clock.h"
#include "platform/quiet_writes.h"

namespace memusage {

OpenResult DataFile::open(const char* path, uint64_t start_time, const FileState* untouched_since) {
    // A sibling started with the same environment must not empty the file being written,
    // nor one it wrote and finished.
    const OpenResult opened = file_.open(path, untouched_since);
    if (opened != OpenResult::opened) return opened;
    start_data_file_clock(start_time);
    start_time_ = start_time;
    end_ = 0;
    write_failed_ = false;
    Record header[kHeaderRecords] = {};
    header[0].set_time(data_file_time(start_time));
    header[1].set_time(data_file_time(start_time));
    append(header, kHeaderRecords);
    return OpenResult::opened;
}

// A full file system, a file size limit, a file that takes no writes (-d /proc/version):
// the records written so far stay, whole, and the header stays provisional, so readers
// see the file of a run that died. Said once, with write(2) only: this may run in a
// signal handler, or with the allocator's locks held.
void DataFile::give_up_writing(int error, size_t bytes_written) {
    write_failed_ = true;
    end_ += static_cast<off_t>(bytes_written / sizeof(Record) * sizeof(Record));
    [[maybe_unused]] int ignored = ftruncate(file_.fd(), end_);  // drop the room, and a cut record
    say_write_failed(warning_sink_, "data file", file_, error, "at record",
                     static_cast<uint64_t>(end_) / sizeof(Record));
}

// The file takes its new length before the records go in. SIGKILL stops a write
// between two pages, and pages do not end on record boundaries: the killed run then
// leaves whole records of zeros, which readers drop, instead of a torn last record,
// which glibc's memusagestat refuses to read.
void DataFile::append(const Record* records, size_t count) {
    if (count == 0 || write_failed_ || !file_.still_ours()) return;
    int saved_errno = errno;
    size_t bytes = count * sizeof(Record);
    off_t new_end = end_ + static_cast<off_t>(bytes);
    size_t written = 0;
    QuietWrites quiet;  // growing the file may meet the size limit
    if (ftruncate(file_.fd(), new_end) == 0 &&
        write_fully_at(file_.fd(), records, bytes, end_, &written))
        end_ = new_end;
    else
        give_up_writing(errno, written);
    errno = saved_errno;
}

void DataFile::write_header(uint64_t total_peak, uint64_t heap_peak, uint64_t stack_peak,
                            uint64_t end_time) {
    if (write_failed_ || !file_.still_ours()) return;
    int saved_errno = errno;
    Record header[kHeaderRecords] = {};
    header[0].stack = total_peak;
    header[0].set_time(data_file_time(start_time_));
    header[1].heap = heap_peak;
    header[1].stack = stack_peak;
    header[1].set_time(data_file_time(end_time));
    write_fully_at(file_.fd(), header, sizeof(header), 0);
    errno = saved_errno;
}

void DataFile::close() { file_.close(); }

}  // namespace memusage
