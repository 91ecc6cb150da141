// SPDX-License-Identifier: MIT
// What the integration tests share: data files on disk, running a tool, decoding PNGs.
#pragma once

#include <fcntl.h>
#include <memusage/record.h>
#include <png.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/scratch_directory.h"

extern char** environ;

namespace stat_test {

inline memusage::Record record(uint64_t heap, uint64_t stack, uint64_t time) {
    memusage::Record r{heap, stack, 0, 0};
    r.set_time(time);
    return r;
}

// A data file: the header as the collector writes it at exit, then the events.
struct DataFile {
    uint64_t heap_peak = 0, stack_peak = 0, total_peak = 0, start = 0, end = 0;
    std::vector<memusage::Record> events;

    // A run from time 0 to `end` whose header holds these peaks.
    static DataFile with_peaks(uint64_t heap, uint64_t stack, uint64_t total, uint64_t end) {
        DataFile data;
        data.heap_peak = heap;
        data.stack_peak = stack;
        data.total_peak = total;
        data.end = end;
        return data;
    }

    void write(const std::string& path, std::size_t drop_bytes = 0) const {
        std::vector<memusage::Record> all = {record(0, total_peak, start),
                                             record(heap_peak, stack_peak, end)};
        all.insert(all.end(), events.begin(), events.end());
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(all.data()),
                  static_cast<std::streamsize>(all.size() * sizeof(memusage::Record) - drop_bytes));
    }
};

// A fresh directory per test, removed afterwards.
class ScratchDir {
  public:
    std::string operator/(const std::string& name) const { return directory_.file(name); }
    const std::string& path() const { return directory_.path(); }

  private:
    test_support::ScratchDirectory directory_{"memusagestat-test"};
};

struct Outcome {
    int exit_code = -1;  // 128 + signal when killed
    std::string output;  // standard output and standard error together
};

// Runs a program without a shell, capturing its output; `env` adds NAME=VALUE entries.
inline Outcome run(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    const test_support::ScratchDirectory output("memusagestat-output");
    const std::string capture = output.file("output");
    const int fd = ::open(capture.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, 1);
    posix_spawn_file_actions_adddup2(&actions, fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    Outcome outcome;
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    posix_spawn_file_actions_destroy(&actions);
    close(fd);
    std::ifstream in(capture);
    outcome.output.assign(std::istreambuf_iterator<char>(in), {});
    std::filesystem::remove(capture);
    return outcome;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

struct Rgb {
    uint8_t r, g, b;
    bool reddish() const { return r > 170 && g < 110 && b < 110; }
    bool greenish() const { return g > 90 && r < 80 && b < 80; }
    bool blackish() const { return r < 70 && g < 70 && b < 70; }
    bool white() const { return r > 245 && g > 245 && b > 245; }
};

// A decoded PNG (any colour type, palette included), as RGB.
struct Image {
    unsigned width = 0, height = 0;
    std::vector<uint8_t> pixels;

    Rgb at(unsigned x, unsigned y) const {
        const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
        return {pixels[i], pixels[i + 1], pixels[i + 2]};
    }
    // Whether a pixel within `slack` rows of y (at column x) satisfies `test`.
    template <typename Test>
    bool near(unsigned x, double y, Test test, int slack = 2) const {
        for (int dy = -slack; dy <= slack; ++dy) {
            const int row = static_cast<int>(y) + dy;
            if (row >= 0 && row < static_cast<int>(height) && test(at(x, row))) return true;
        }
        return false;
    }
};

// Constant heap at 0.6 of its peak, constant stack at 0.3 of its peak: values that keep
// clear of the quarter lines.
inline DataFile flat_heap_and_stack(std::size_t count = 1000) {
    DataFile data = DataFile::with_peaks(1000000, 1000, 1001000, count);
    for (std::size_t i = 0; i < count; ++i) data.events.push_back(record(600000, 300, i + 1));
    return data;
}

inline bool decode_png(const std::string& path, Image& image) {
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path.c_str())) return false;
    png.format = PNG_FORMAT_RGB;
    image.width = png.width;
    image.height = png.height;
    image.pixels.resize(PNG_IMAGE_SIZE(png));
    const bool ok = png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr);
    png_image_free(&png);
    return ok;
}

// Where the default 800x600 picture puts a value: the frame is inset 40 px left and
// right and 20 px top and bottom, one column per pixel inside.
inline double value_row(double value, double top, unsigned height = 600) {
    return (height - 20.0) - value / top * (height - 40.0);
}
inline unsigned event_column(uint64_t event, uint64_t events, unsigned width = 800) {
    return 40 + static_cast<unsigned>(event * (width - 80) / events);
}

}  // namespace stat_test
