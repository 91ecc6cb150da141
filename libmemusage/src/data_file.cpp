#include "data_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace memusage {
namespace {

// Out of the way of the small descriptor numbers programs assume are theirs.
constexpr int kPreferredFd = 900;

int move_out_of_the_way(int fd) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, kPreferredFd);
    if (moved < 0) return fd;
    ::close(fd);
    return moved;
}

}  // namespace

DataFile::OpenResult DataFile::open(const char* path, uint64_t start_time) {
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof(path_)) return OpenResult::failed;
    int fd = ::open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return OpenResult::failed;
    // A second process of the same run (a sibling started with the same environment)
    // must not truncate a file that is being written.
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return errno == EWOULDBLOCK ? OpenResult::busy : OpenResult::failed;
    }
    struct stat st;
    if (ftruncate(fd, 0) != 0 || fstat(fd, &st) != 0) {
        ::close(fd);
        return OpenResult::failed;
    }
    fd_ = move_out_of_the_way(fd);
    device_ = st.st_dev;
    inode_ = st.st_ino;
    memcpy(path_, path, length + 1);
    start_time_ = start_time;
    end_ = 0;
    Record header[kHeaderRecords] = {};
    header[0].set_time(start_time);
    header[1].set_time(start_time);
    append(header, kHeaderRecords);
    return OpenResult::opened;
}

// Programs close descriptors they did not open (closefrom, daemonising): write only
// while the descriptor still leads to our file, and reopen it by name when it does not.
bool DataFile::still_ours() {
    if (fd_ < 0) return false;
    struct stat st;
    if (fstat(fd_, &st) == 0 && st.st_dev == device_ && st.st_ino == inode_) return true;
    int fd = ::open(path_, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_dev != device_ || st.st_ino != inode_) {
        if (fd >= 0) ::close(fd);
        fd_ = -1;
        return false;
    }
    fd_ = move_out_of_the_way(fd);
    return true;
}

bool DataFile::write_at(const void* data, size_t bytes, off_t offset) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        ssize_t n = pwrite(fd_, p, bytes, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        bytes -= static_cast<size_t>(n);
        offset += n;
    }
    return true;
}

// The file takes its new length before the records go in. SIGKILL stops a write
// between two pages, and pages do not end on record boundaries: the killed run then
// leaves whole records of zeros, which readers drop, instead of a torn last record,
// which glibc's memusagestat refuses to read.
void DataFile::append(const Record* records, size_t count) {
    if (count == 0 || !still_ours()) return;
    int saved_errno = errno;
    size_t bytes = count * sizeof(Record);
    off_t new_end = end_ + static_cast<off_t>(bytes);
    if (ftruncate(fd_, new_end) == 0 && write_at(records, bytes, end_)) end_ = new_end;
    errno = saved_errno;
}

void DataFile::write_header(uint64_t total_peak, uint64_t heap_peak, uint64_t stack_peak,
                            uint64_t end_time) {
    if (!still_ours()) return;
    int saved_errno = errno;
    Record header[kHeaderRecords] = {};
    header[0].stack = total_peak;
    header[0].set_time(start_time_);
    header[1].heap = heap_peak;
    header[1].stack = stack_peak;
    header[1].set_time(end_time);
    write_at(header, sizeof(header), 0);
    errno = saved_errno;
}

void DataFile::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace memusage
