// SPDX-License-Identifier: MIT
// A private directory per test, removed afterwards (the tests' shared helper).
#pragma once

#include "support/scratch_directory.h"

namespace driver_test {

using test_support::ScratchDirectoryTest;

}  // namespace driver_test
