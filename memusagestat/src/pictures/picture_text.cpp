// SPDX-License-Identifier: MIT
#include "pictures/picture_text.h"

#include <cstdio>

#include "sites/site_names.h"

namespace memusagestat {

std::string run_name(const std::string& program, uint64_t pid) {
    const std::string id = "pid " + std::to_string(pid);
    return program.empty() ? id : program + " (" + id + ")";
}

std::string run_name(const SitesProfile& profile) {
    return run_name(program_name(profile), profile.pid);
}

void warn(const PictureOptions& options, const std::string& message) {
    if (options.on_warning)
        options.on_warning(message);
    else
        std::fprintf(stderr, "memusagestat: warning: %s\n", message.c_str());
}

std::vector<PngText> png_texts(const std::string& title, const std::string& source) {
    return {{"Title", title},
            {"Source", source},
            {"Software", "memusagestat (memusage " MEMUSAGE_VERSION ")"}};
}

}  // namespace memusagestat
