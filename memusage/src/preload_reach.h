// SPDX-License-Identifier: MIT
// Whether LD_PRELOAD can reach a program at all. The dynamic loader never runs for a static
// program, and ignores LD_PRELOAD for one that gains privileges at exec (set-user-ID or
// set-group-ID, or file capabilities), so either runs unprofiled; glibc's script says nothing, we
// say why.
#pragma once

#include <string>

namespace memusage {

enum class PreloadObstacle { none, static_program, set_user_id, set_group_id, file_capabilities };

PreloadObstacle preload_obstacle(const std::string& program_path);

// "is statically linked" and so on, to follow the program's name in a message.
const char* describe(PreloadObstacle obstacle);

}  // namespace memusage
