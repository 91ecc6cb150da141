// After `cmake --install` to any prefix, the installed driver finds the installed collector
// by itself.
#include <cstdlib>
#include <filesystem>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

using InstallTest = ScratchDirectoryTest;

TEST_F(InstallTest, InstalledDriverPreloadsTheInstalledCollector) {
    std::string prefix = in_scratch("prefix");
    std::string command = std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix '" + prefix + "' > '" +
                          in_scratch("install.log") + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << read_file(in_scratch("install.log"));

    std::string driver = prefix + "/" + INSTALL_BINDIR + "/memusage";
    std::string collector = prefix + "/" + INSTALL_LIBDIR + "/libmemusage.so";
    ASSERT_TRUE(std::filesystem::exists(driver));
    ASSERT_TRUE(std::filesystem::exists(collector));
    pid_t pid = start(driver, {"--color=never", FIXTURE_PATH, "env", "LD_PRELOAD"},
                      clean_environment({}), in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("out")), collector + "\n");
}

}  // namespace
}  // namespace driver_test
