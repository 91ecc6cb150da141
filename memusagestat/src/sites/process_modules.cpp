// SPDX-License-Identifier: MIT
#include "sites/process_modules.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace memusagestat {
namespace {

struct Mapped {
    uint64_t start = UINT64_MAX, end = 0;
    uint64_t first_start = 0;  // where its file offset 0 is mapped
    bool has_first = false;
};

// The file's build-id and its lowest loadable segment's address (page-aligned): the
// address its offset 0 is mapped for. False when it is not a readable ELF file.
bool read_elf(const std::string& path, std::string& build_id, uint64_t& lowest) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = false;
    if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
        size_t count = 0;
        if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
            lowest = UINT64_MAX;
            for (size_t i = 0; i < count; ++i) {
                GElf_Phdr header;
                if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr) continue;
                if (header.p_type != PT_LOAD) continue;
                uint64_t aligned = header.p_vaddr - header.p_offset;
                if (aligned < lowest) lowest = aligned;
            }
            const void* bytes = nullptr;
            ssize_t length = dwelf_elf_gnu_build_id(elf, &bytes);
            if (length > 0)
                build_id.assign(static_cast<const char*>(bytes), static_cast<size_t>(length));
            ok = lowest != UINT64_MAX;
        }
        elf_end(elf);
    }
    ::close(fd);
    return ok;
}

}  // namespace

std::vector<SitesModule> process_modules(pid_t pid) {
    elf_version(EV_CURRENT);
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::map<std::string, Mapped> files;
    std::string line;
    while (std::getline(maps, line)) {
        uint64_t start = 0, end = 0, offset = 0;
        char permissions[8] = {};
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start,
                        &end, permissions, &offset, &path_at) < 4 ||
            path_at <= 0)
            continue;
        std::string path = line.substr(static_cast<size_t>(path_at));
        if (path.empty() || path[0] != '/' || path.ends_with(" (deleted)")) continue;
        Mapped& mapped = files[path];
        if (start < mapped.start) mapped.start = start;
        if (end > mapped.end) mapped.end = end;
        if (offset == 0 && !mapped.has_first) {
            mapped.first_start = start;
            mapped.has_first = true;
        }
    }
    std::vector<SitesModule> modules;
    for (const auto& [path, mapped] : files) {
        SitesModule module;
        uint64_t lowest = 0;
        if (!mapped.has_first || !read_elf(path, module.build_id, lowest)) continue;
        module.load_bias = mapped.first_start - lowest;
        module.start = mapped.start;
        module.end = mapped.end;
        module.path = path;
        modules.push_back(std::move(module));
    }
    return modules;
}

}  // namespace memusagestat
