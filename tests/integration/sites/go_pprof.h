// SPDX-License-Identifier: MIT
// `go tool pprof` (Debian's golang-go) run on a profile, for the tests of the pprof export:
// offline, with its caches in the test's scratch directory.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "collector_run.h"

namespace sites_test {

// go tool pprof OPTIONS... PROFILE, its caches and home under `scratch`.
collector_test::Outcome go_pprof(const std::vector<std::string>& options,
                                 const std::string& profile, const std::string& scratch);

// The rows of `-top` output: the node's name -> its flat value, as printed ("100000B", "6").
std::map<std::string, std::string> top_rows(const std::string& top);

// The total of `-top` output ("... of 119179B total"): the text before " total".
std::string top_total(const std::string& top);

}  // namespace sites_test
