// SPDX-License-Identifier: MIT
// Scratch files for the collector's unit tests.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "memusage/record.h"
#include "support/scratch_directory.h"

namespace memusage {

class ScratchFile {
  public:
    ScratchFile() : path_(directory_.file("data")) {
        if (FILE* f = fopen(path_.c_str(), "wb")) fclose(f);
    }
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
    test_support::ScratchDirectory directory_{"memusage-unit"};
    std::string path_;
};

}  // namespace memusage
