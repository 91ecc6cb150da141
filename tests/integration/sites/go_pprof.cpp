// SPDX-License-Identifier: MIT
#include "go_pprof.h"

#include <sstream>

namespace sites_test {

collector_test::Outcome go_pprof(const std::vector<std::string>& options,
                                 const std::string& profile, const std::string& scratch) {
    // Debian's golang-go (.ci/deps --tests).
    std::vector<std::string> argv = {"/usr/bin/go", "tool", "pprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(profile);
    // Never the network: no toolchain download, no module fetch, no symbol server.
    return collector_test::run(argv,
                               {"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "HOME=" + scratch,
                                "GOCACHE=" + scratch + "/gocache", "GOPATH=" + scratch + "/go",
                                "PPROF_TMPDIR=" + scratch, "PPROF_BINARY_PATH=" + scratch},
                               "");
}

std::map<std::string, std::string> top_rows(const std::string& top) {
    std::map<std::string, std::string> rows;
    std::istringstream in(top);
    std::string line;
    bool table = false;
    while (std::getline(in, line)) {
        if (line.find("flat%") != std::string::npos) {
            table = true;
            continue;
        }
        if (!table) continue;
        // "   97.66kB 57.71% 57.71%    97.66kB 57.71%  make_peak": five columns, then the name.
        std::istringstream columns(line);
        std::string flat, skip;
        columns >> flat >> skip >> skip >> skip >> skip;
        std::string name;
        std::getline(columns, name);
        name.erase(0, name.find_first_not_of(' '));
        if (!name.empty()) rows[name] = flat;
    }
    return rows;
}

std::string top_total(const std::string& top) {
    size_t end = top.find(" total\n");
    if (end == std::string::npos) return {};
    size_t start = top.rfind(" of ", end);
    return start == std::string::npos ? std::string() : top.substr(start + 4, end - start - 4);
}

}  // namespace sites_test
