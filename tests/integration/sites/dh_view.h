// SPDX-License-Identifier: MIT
// Valgrind's DHAT viewer (dh_view.html, from Debian's valgrind package) in headless
// Chromium, for the tests of the DHAT export: the page is loaded as dh_view.html loads it,
// but with the file handed over by a script instead of the file picker a user would click,
// and the text it renders comes back.
#pragma once

#include <string>
#include <vector>

#include "collector_run.h"

namespace sites_test {

std::string read_file(const std::string& path);

// The text dh_view renders for the JSON file at `json_path`; scratch holds the page and
// Chromium's profile.
std::string rendered(const std::string& json_path, const collector_test::Scratch& scratch);

// The program point whose frames include `frame`: from its "PP " line to the next; empty
// if none.
std::string program_point(const std::string& text, const std::string& frame);

// Checks that the program point with `frame` (program_point) shows each of `figures`.
void expect_point(const std::string& text, const std::string& frame,
                  const std::vector<std::string>& figures);

// The first number after `label` in text (grouping commas skipped); -1 if none.
double number_after(const std::string& text, const std::string& label);

}  // namespace sites_test
