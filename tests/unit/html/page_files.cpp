// SPDX-License-Identifier: MIT
#include "page_files.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "records.h"

namespace report_test {

Scratch::Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "report-test.XXXXXX").string();
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
}

Scratch::~Scratch() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

events_test::EventsFileBuilder churn_recording(uint64_t events, uint64_t pid) {
    namespace format = memusage::events_format;
    events_test::EventsFileBuilder builder(format::kHasSites, pid);
    // Times in the file are shifted: a unit is 2^kTimeShift cycles.
    const uint64_t unit = uint64_t{1} << format::kTimeShift;
    const uint64_t step = 1000 / unit + 1;
    uint64_t time = 1000;
    builder.clock(time, time * unit).thread(1, pid).thread_name(1, "churn");
    for (uint64_t n = 0; 2 * n < events; ++n) {
        const uint64_t address = 0x100000 + 64 * n;
        const uint64_t size = n == events / 4 ? (1 << 20) : 16 + n % 100;
        builder.allocate(time += step, address, size, 2 + n % 3);
        if (n % 7 == 0)
            builder.allocate(time += step, 0x90000000 + 64 * n, 32, 5);  // kept
        else
            builder.release(time += step, address);
    }
    return builder.trailer(time + step, (time + step) * unit);
}

std::vector<memusage::Record> data_file_records(uint64_t records, uint64_t spike) {
    std::vector<memusage::Record> all = stat_test::header(0, 0, 0, 1000, 1000 + 10 * records);
    uint64_t peak = 0, stack_peak = 0;
    for (uint64_t n = 0; n < records; ++n) {
        const uint64_t heap = n == spike ? 5000000 : 1000 + n % 500;
        all.push_back(stat_test::record(heap, 100 + n % 50, 1000 + 10 * (n + 1)));
        peak = std::max(peak, heap);
        stack_peak = std::max(stack_peak, 100 + n % 50);
    }
    all[0] = stat_test::record(0, peak + stack_peak, 1000);
    all[1] = stat_test::record(peak, stack_peak, 1000 + 10 * records);
    return all;
}

bool write_bytes(const std::string& path, const void* data, size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    return out.good();
}

nlohmann::json json_of_page(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"report-data\">";
    const size_t at = html.find(open);
    EXPECT_NE(at, std::string::npos) << "no report-data element";
    if (at == std::string::npos) return {};
    const size_t begin = at + open.size();
    const size_t end = html.find("</script>", begin);
    return nlohmann::json::parse(html.substr(begin, end - begin));
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace report_test
