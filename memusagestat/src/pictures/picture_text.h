// SPDX-License-Identifier: MIT
// The words the pictures share: which run a picture is of, warnings for the user, and the
// text chunks of a PNG.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "draw/png_writer.h"
#include "memusagestat/pictures.h"
#include "read/sites_reader.h"

namespace memusagestat {

// "word_census (pid 1234)", or "pid 1234" without a program name.
std::string run_name(const std::string& program, uint64_t pid);
std::string run_name(const SitesProfile& profile);

void warn(const PictureOptions& options, const std::string& message);

std::vector<PngText> png_texts(const std::string& title, const std::string& source);

}  // namespace memusagestat
