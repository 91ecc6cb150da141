// Scratch files for the collector's unit tests.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "memusage/record.h"

namespace memusage {

class ScratchFile {
  public:
    ScratchFile() {
        char pattern[] = "/tmp/memusage-unit-XXXXXX";
        int fd = mkstemp(pattern);
        if (fd >= 0) close(fd);
        path_ = pattern;
    }
    ~ScratchFile() { unlink(path_.c_str()); }
    const char* path() const { return path_.c_str(); }

    std::vector<Record> records() const {
        std::vector<Record> result;
        if (FILE* f = fopen(path_.c_str(), "rb")) {
            Record r;
            while (fread(&r, sizeof r, 1, f) == 1) result.push_back(r);
            fclose(f);
        }
        return result;
    }
    long size() const {
        FILE* f = fopen(path_.c_str(), "rb");
        if (f == nullptr) return -1;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fclose(f);
        return n;
    }

  private:
    std::string path_;
};

}  // namespace memusage
