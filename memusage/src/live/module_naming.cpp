// SPDX-License-Identifier: MIT
// A board's live view names a stack by where its innermost frames are: module and offset
// in the module's file ("libfoo.so+0x1a2c"), which `addr2line -e` turns into a line on the
// desktop. The board's driver has no symbolizer (memusagestat stays on the desktop).
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>

#include "live/stack_naming.h"

namespace memusage::live {
namespace {

struct Mapping {
    uint64_t start = 0, end = 0, offset = 0;
    std::string name;  // the file's name, without its folder
};

class ModuleNaming final : public StackNaming {
  public:
    explicit ModuleNaming(pid_t pid) : pid_(pid) {}

    void read_modules() override {
        mappings_.clear();
        std::ifstream maps("/proc/" + std::to_string(pid_) + "/maps");
        std::string line;
        while (std::getline(maps, line)) {
            Mapping mapping;
            int path_at = 0;
            if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n",
                            &mapping.start, &mapping.end, &mapping.offset, &path_at) < 3 ||
                path_at <= 0 || line.compare(static_cast<size_t>(path_at), 1, "/") != 0)
                continue;  // anonymous, or [stack], [heap], ...
            const std::string path = line.substr(static_cast<size_t>(path_at));
            mapping.name = path.substr(path.rfind('/') + 1);
            mappings_.push_back(std::move(mapping));
        }
    }

    std::string name_of(const std::vector<uint64_t>& stack, bool& resolved) override {
        resolved = true;
        std::string name;
        // Two frames: the allocating function's, and its caller's when it is a wrapper.
        for (size_t k = 0; k < stack.size() && k < 2; ++k) {
            if (k > 0) name += " < ";
            name += frame_name(stack[k], resolved);
        }
        return name.empty() ? "?" : name;
    }

  private:
    std::string frame_name(uint64_t address, bool& resolved) const {
        char text[32];
        for (const Mapping& mapping : mappings_) {
            if (address < mapping.start || address >= mapping.end) continue;
            std::snprintf(text, sizeof text, "+0x%" PRIx64,
                          address - mapping.start + mapping.offset);
            return mapping.name + text;
        }
        resolved = false;
        std::snprintf(text, sizeof text, "0x%" PRIx64, address);
        return text;
    }

    pid_t pid_;
    std::vector<Mapping> mappings_;
};

}  // namespace

std::unique_ptr<StackNaming> stack_naming(pid_t pid) { return std::make_unique<ModuleNaming>(pid); }

}  // namespace memusage::live
