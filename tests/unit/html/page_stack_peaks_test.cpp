// SPDX-License-Identifier: MIT
// The report's `stack_peaks` from a sites file written here: this test's own module, and
// stack peaks whose frames are return addresses of a real recursion in it, with stack
// pointers chosen so that each frame's bytes are known.
#include "html/page_stack_peaks.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>
#include <memusage/sites_format.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include "html/page_data.h"
#include "page_files.h"
#include "reports/stack_peaks_report.h"

namespace memusagestat {
namespace {

namespace format = memusage::sites_format;
using report_test::Scratch;

// This program as the collector records it: load bias, the span of its loadable segments
// and its build-id.
struct OwnModule {
    uint64_t load_bias = 0, start = UINT64_MAX, end = 0;
    std::string build_id, path;
};

OwnModule own_module() {
    OwnModule module;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            auto& own = *static_cast<OwnModule*>(out);
            own.load_bias = info->dlpi_addr;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                const uint64_t at = info->dlpi_addr + segment.p_vaddr;
                if (segment.p_type == PT_LOAD) {
                    own.start = std::min(own.start, at);
                    own.end = std::max(own.end, at + segment.p_memsz);
                } else if (segment.p_type == PT_NOTE) {
                    for (uint64_t offset = 0; offset + sizeof(ElfW(Nhdr)) <= segment.p_memsz;) {
                        const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at + offset);
                        const char* name = reinterpret_cast<const char*>(note + 1);
                        const uint64_t name_bytes = (note->n_namesz + 3) & ~3u;
                        if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                            std::memcmp(name, "GNU", 4) == 0)
                            own.build_id.assign(name + name_bytes, note->n_descsz);
                        offset += sizeof(ElfW(Nhdr)) + name_bytes + ((note->n_descsz + 3) & ~3u);
                    }
                }
            }
            return 1;  // the program comes first
        },
        &module);
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path);
    module.path.assign(path, length > 0 ? static_cast<size_t>(length) : 0);
    return module;
}

int recursive_call_line = 0;

// Records each level's return address: the first into its caller, the others into itself.
__attribute__((noinline)) int deep(int n, std::vector<uint64_t>& returns) {
    volatile char frame[4096];
    frame[n] = static_cast<char>(n);
    returns.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
    if (n == 0) return frame[0];
    recursive_call_line = __LINE__ + 1;
    return deep(n - 1, returns) + frame[n];
}

struct Peak {
    format::StackPeakRecord record;
    std::vector<format::StackPeakFrame> frames;  // innermost first
};

template <typename T>
void append(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

bool write_sites_file(const std::string& path, uint64_t pid, const std::vector<Peak>& peaks) {
    const OwnModule module = own_module();
    std::string out;
    format::FileHeader header = {};
    std::memcpy(header.magic, format::kMagic, sizeof header.magic);
    header.version = format::kVersion;
    header.header_bytes = sizeof header;
    header.module_count = 1;
    header.flags = format::kNoAllocationSites;
    header.max_depth = format::kMaxDepth;
    header.pid = pid;
    header.stack_peak_count = static_cast<uint32_t>(peaks.size());
    append(out, header);
    append(out, format::ModuleRecord{module.load_bias, module.start, module.end,
                                     static_cast<uint32_t>(module.build_id.size()),
                                     static_cast<uint32_t>(module.path.size())});
    out += module.build_id + module.path;
    out.resize(format::padded_to_8(out.size()));
    for (const Peak& peak : peaks) {
        append(out, peak.record);
        for (const format::StackPeakFrame& frame : peak.frames) append(out, frame);
    }
    format::FileTrailer trailer = {};
    std::memcpy(trailer.magic, format::kTrailerMagic, sizeof trailer.magic);
    trailer.file_bytes = out.size() + sizeof trailer;
    append(out, trailer);
    return report_test::write_bytes(path, out.data(), out.size());
}

constexpr uint64_t kBase = 0x7ffd00200000;
constexpr uint64_t kLevel = 4144, kOuter = 512, kBelow = 256;

// The main thread at a recursion five deep: the test's frame holds kOuter bytes, each
// recursive frame kLevel, the collector's call below them kBelow; outermost, a frame above
// the base (the C library's start of the program) holds none.
Peak recursion_peak(uint64_t tid, const std::vector<uint64_t>& returns) {
    Peak peak{};
    peak.record.bytes = kOuter + 5 * kLevel + kBelow;
    peak.record.base = kBase;
    peak.record.time_ns = 1500000;  // 1.5 ms
    peak.record.tid = tid;
    peak.record.is_main = 1;
    peak.record.stack = format::kThreadStack;
    std::strcpy(peak.record.name, "churn");
    // returns: [into the test, into deep x5]; innermost first: the deepest level's.
    for (size_t level = returns.size() - 1; level > 0; --level)
        peak.frames.push_back({returns[level], kBase - kOuter - level * kLevel});
    peak.frames.push_back({returns[0], kBase - kOuter});
    peak.frames.push_back({0x10, kBase + 64});
    peak.record.depth = static_cast<uint32_t>(peak.frames.size());
    return peak;
}

TEST(ReportStackPeaks, EachFrameWithTheBytesItHeldOutermostFirst) {
    std::vector<uint64_t> returns;
    deep(5, returns);
    const int call_line = __LINE__ - 1;
    ASSERT_EQ(returns.size(), 6u);
    Scratch scratch;
    const uint64_t pid = 4242;
    // A thread no event names, on its alternate signal stack, its stack cut: its outermost
    // kept frame (holding an unknown part of 9000 bytes with those dropped) is left out.
    Peak handler{};
    handler.record.bytes = 9000 + 3000;
    handler.record.base = kBase + 0x100000;
    handler.record.time_ns = 2000000;
    handler.record.tid = 77;
    handler.record.stack = format::kSignalStack;
    handler.record.flags = format::kPeakFramesCut;
    handler.frames = {{returns[1], handler.record.base - 12000},
                      {returns[0], handler.record.base - 9000}};
    handler.record.depth = 2;
    ASSERT_TRUE(
        write_sites_file(scratch / "run.sites", pid, {handler, recursion_peak(pid, returns)}));
    // The recording gives the clock and the threads (the main thread's serial is 1).
    ASSERT_TRUE(report_test::churn_recording(1000, pid).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.sites_path = scratch / "run.sites";
    request.events_path = scratch / "run.events";
    nlohmann::json data;
    std::vector<std::string> warnings;
    ASSERT_EQ(build_report_data(request, {}, data, warnings).error(), "");
    const nlohmann::json& peaks = data["stack_peaks"];
    ASSERT_TRUE(peaks.is_array()) << data.dump();
    ASSERT_EQ(peaks.size(), 2u);

    const nlohmann::json& main = peaks[0];  // the main thread first
    EXPECT_EQ(main["thread"], 1);
    EXPECT_EQ(main["tid"], pid);
    EXPECT_EQ(main["name"], "churn");
    EXPECT_TRUE(main["main_thread"]);
    EXPECT_EQ(main["stack"], "own");
    EXPECT_FALSE(main["from_tick"]);
    EXPECT_DOUBLE_EQ(main["time"].get<double>(), 0.0015);
    EXPECT_EQ(main["bytes"], kOuter + 5 * kLevel + kBelow);
    EXPECT_FALSE(main["cut"]);
    EXPECT_EQ(main["outer"], 0);
    const nlohmann::json& frames = main["frames"];
    ASSERT_EQ(frames.size(), 7u) << frames.dump();
    EXPECT_TRUE(frames[0]["bytes"].is_null()) << "above the base: '-' in the text report";
    EXPECT_EQ(frames[1]["bytes"], kOuter);
    const nlohmann::json& test_frame = data["frames"][frames[1]["frame"].get<size_t>()];
    EXPECT_NE(test_frame["function"].get<std::string>().find("EachFrameWithTheBytesItHeld"),
              std::string::npos)
        << test_frame;
    EXPECT_EQ(test_frame["line"], call_line);
    for (size_t i = 2; i < 7; ++i) {
        EXPECT_EQ(frames[i]["bytes"], kLevel) << i;
        EXPECT_EQ(frames[i]["frame"], frames[2]["frame"]) << "one entry for the recursive call";
    }
    const nlohmann::json& recursive = data["frames"][frames[2]["frame"].get<size_t>()];
    EXPECT_NE(recursive["function"].get<std::string>().find("deep"), std::string::npos);
    EXPECT_TRUE(recursive["file"].get<std::string>().ends_with("page_stack_peaks_test.cpp"));
    EXPECT_EQ(recursive["line"], recursive_call_line);
    EXPECT_NE(recursive["source"].get<std::string>().find("deep(n - 1, returns)"),
              std::string::npos);

    const nlohmann::json& other = peaks[1];
    EXPECT_TRUE(other["thread"].is_null()) << "no event names thread 77";
    EXPECT_EQ(other["tid"], 77);
    EXPECT_EQ(other["stack"], "signal");
    EXPECT_TRUE(other["cut"]);
    EXPECT_EQ(other["outer"], 9000);
    ASSERT_EQ(other["frames"].size(), 1u) << "the outermost kept frame of a cut stack is left out";
    EXPECT_EQ(other["frames"][0]["bytes"], 3000);

    // The same frames and bytes as the text report folds them.
    SitesProfile profile;
    ASSERT_EQ(read_sites_file(scratch / "run.sites", profile).error(), "");
    Symbolizer symbolizer(profile.modules);
    const std::string text = stack_peak_report(profile, symbolizer, {});
    EXPECT_NE(text.find("\u00d75, 4,144 B each = 20,720 B"), std::string::npos) << text;
}

TEST(ReportStackPeaks, NullWithoutPeaksAndTimelessWithoutAClockRate) {
    Scratch scratch;
    ASSERT_TRUE(write_sites_file(scratch / "none.sites", 4242, {}));
    HtmlReportRequest request;
    request.sites_path = scratch / "none.sites";
    nlohmann::json data;
    std::vector<std::string> warnings;
    ASSERT_EQ(build_report_data(request, {}, data, warnings).error(), "");
    EXPECT_TRUE(data["stack_peaks"].is_null());

    std::vector<uint64_t> returns;
    deep(5, returns);
    ASSERT_TRUE(write_sites_file(scratch / "run.sites", 4242, {recursion_peak(4242, returns)}));
    request.sites_path = scratch / "run.sites";
    ASSERT_EQ(build_report_data(request, {}, data, warnings).error(), "");
    ASSERT_EQ(data["stack_peaks"].size(), 1u);
    EXPECT_TRUE(data["stack_peaks"][0]["time"].is_null());
    EXPECT_TRUE(data["stack_peaks"][0]["thread"].is_null()) << "no events: no serial";
    EXPECT_NE(data["run"]["notes"].dump().find("stack peaks' times are not given"),
              std::string::npos);
}

}  // namespace
}  // namespace memusagestat
