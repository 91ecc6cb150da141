// SPDX-License-Identifier: MIT
#include "collector_location.h"

#include <gtest/gtest.h>

namespace memusage {
namespace {

TEST(CollectorLocation, BesideTheDriver) {
    EXPECT_EQ(collector_path_beside("/usr/bin/memusage", "../lib/x86_64-linux-gnu"),
              "/usr/lib/x86_64-linux-gnu/libmemusage.so");
    EXPECT_EQ(collector_path_beside("/opt/mu/bin/memusage", "../lib"),
              "/opt/mu/lib/libmemusage.so");
    EXPECT_EQ(collector_path_beside("/opt/mu/memusage", "."), "/opt/mu/libmemusage.so");
}

}  // namespace
}  // namespace memusage
