// SPDX-License-Identifier: MIT
#include "preload_reach.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace memusage {
namespace {

class FileDescriptor {
  public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

bool read_exactly(int fd, void* buffer, size_t size, off_t offset) {
    return ::pread(fd, buffer, size, offset) == static_cast<ssize_t>(size);
}

// The dynamic loader, and so LD_PRELOAD, only runs for a program with both an interpreter
// (PT_INTERP) and a dynamic section (PT_DYNAMIC); static-pie has the second but not the first.
// Anything that is not a readable native ELF file (a script, say) gets the benefit of the
// doubt: its interpreter will be dynamic.
template <typename Header, typename ProgramHeader>
bool is_static_elf(int fd) {
    Header header;
    if (!read_exactly(fd, &header, sizeof header, 0)) return false;
    if (header.e_phentsize != sizeof(ProgramHeader) || header.e_phnum == 0) return false;
    std::vector<ProgramHeader> segments(header.e_phnum);
    if (!read_exactly(fd, segments.data(), segments.size() * sizeof(ProgramHeader),
                      static_cast<off_t>(header.e_phoff))) {
        return false;
    }
    bool has_interpreter = false;
    bool has_dynamic_section = false;
    for (const ProgramHeader& segment : segments) {
        has_interpreter |= segment.p_type == PT_INTERP;
        has_dynamic_section |= segment.p_type == PT_DYNAMIC;
    }
    return !has_interpreter || !has_dynamic_section;
}

bool is_static_program(const std::string& path) {
    FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0) return false;
    unsigned char identity[EI_NIDENT];
    if (!read_exactly(file.get(), identity, sizeof identity, 0)) return false;
    if (std::memcmp(identity, ELFMAG, SELFMAG) != 0) return false;
    const unsigned char native_data =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
    if (identity[EI_DATA] != native_data) return false;
    if (identity[EI_CLASS] == ELFCLASS64) return is_static_elf<Elf64_Ehdr, Elf64_Phdr>(file.get());
    if (identity[EI_CLASS] == ELFCLASS32) return is_static_elf<Elf32_Ehdr, Elf32_Phdr>(file.get());
    return false;
}

uint32_t little_endian_32(const unsigned char* bytes) {
    return static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
           static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
}

// File capabilities (setcap) make the exec a secure one when they give a user other than
// root capabilities it did not have: effective ones, or permitted ones. The attribute
// holds a word of flags (bit 0: effective), then permitted and inheritable words, one pair
// (version 1) or two (versions 2 and 3, which adds the owner's user ID).
bool gains_file_capabilities(const std::string& path) {
    if (::getuid() == 0) return false;
    unsigned char data[24] = {};
    ssize_t size = ::getxattr(path.c_str(), "security.capability", data, sizeof data);
    if (size < 12) return false;
    constexpr uint32_t kEffective = 0x000001;
    if ((little_endian_32(data) & kEffective) != 0) return true;
    uint32_t permitted = little_endian_32(data + 4);
    if (size >= 20) permitted |= little_endian_32(data + 12);
    return permitted != 0;
}

}  // namespace

PreloadObstacle preload_obstacle(const std::string& program_path) {
    if (is_static_program(program_path)) return PreloadObstacle::static_program;
    struct stat status {};
    if (::stat(program_path.c_str(), &status) != 0) return PreloadObstacle::none;
    // The kernel ignores the set-id bits and file capabilities on a nosuid mount, and an exec that
    // does not change our identity is not a secure exec either; only a real change disables
    // LD_PRELOAD.
    struct statvfs volume {};
    if (::statvfs(program_path.c_str(), &volume) == 0 && (volume.f_flag & ST_NOSUID)) {
        return PreloadObstacle::none;
    }
    if ((status.st_mode & S_ISUID) && status.st_uid != ::getuid()) {
        return PreloadObstacle::set_user_id;
    }
    if ((status.st_mode & S_ISGID) && (status.st_mode & S_IXGRP) && status.st_gid != ::getgid()) {
        return PreloadObstacle::set_group_id;
    }
    if (gains_file_capabilities(program_path)) return PreloadObstacle::file_capabilities;
    return PreloadObstacle::none;
}

const char* describe(PreloadObstacle obstacle) {
    switch (obstacle) {
        case PreloadObstacle::static_program:
            return "is statically linked";
        case PreloadObstacle::set_user_id:
            return "is set-user-ID";
        case PreloadObstacle::set_group_id:
            return "is set-group-ID";
        case PreloadObstacle::file_capabilities:
            return "has file capabilities";
        case PreloadObstacle::none:
            break;
    }
    return "can be profiled";
}

}  // namespace memusage
