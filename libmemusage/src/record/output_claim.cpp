// SPDX-License-Identifier: MIT
#include "record/output_claim.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "platform/config.h"

namespace memusage::output_claim {
namespace {

// The run's record names the file by its absolute name: a process that changed directory
// and names the file relatively means another file, and a run of its own.
bool absolute_name(const char* output, char* out, size_t room) {
    size_t length = strlen(output);
    if (output[0] == '/') {
        if (length >= room) return false;
        memcpy(out, output, length + 1);
        return true;
    }
    if (getcwd(out, room) == nullptr) return false;
    size_t directory = strlen(out);
    if (directory + 1 + length >= room) return false;
    out[directory] = '/';
    memcpy(out + directory + 1, output, length + 1);
    return true;
}

}  // namespace

void mark_run_start() {
    const char* output = getenv("MEMUSAGE_OUTPUT");
    char name[PATH_MAX];
    if (output == nullptr || output[0] == '\0' || !absolute_name(output, name, sizeof name)) return;
    FileState state;
    if (parse_run_start(getenv(kRunStartVariable), name, state)) return;  // under way
    char text[PATH_MAX + 128];
    if (!format_run_start(file_state(name), name, text, sizeof text)) return;
    setenv(kRunStartVariable, text, 1);
    unsetenv(kOutputOwnerVariable);
}

bool state_at_run_start(const char* output, FileState& state) {
    char name[PATH_MAX];
    return absolute_name(output, name, sizeof name) &&
           parse_run_start(getenv(kRunStartVariable), name, state);
}

}  // namespace memusage::output_claim
