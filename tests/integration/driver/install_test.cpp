// SPDX-License-Identifier: MIT
// After `cmake --install` to any prefix, the installed driver finds the installed collector
// by itself.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

using InstallTest = ScratchDirectoryTest;

// `command` through the shell, its output into `log`; true when it exited 0 (else said).
bool runs_whole(const std::string& command, const std::string& log) {
    int status = std::system((command + " > '" + log + "' 2>&1").c_str());
    EXPECT_EQ(status, 0) << command << "\n" << read_file(log);
    return status == 0;
}

TEST_F(InstallTest, InstalledDriverPreloadsTheInstalledCollector) {
    std::string prefix = in_scratch("prefix");
    std::string command = std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix '" + prefix + "' > '" +
                          in_scratch("install.log") + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << read_file(in_scratch("install.log"));

    std::string driver = prefix + "/" + INSTALL_BINDIR + "/memusage";
    std::string collector = prefix + "/" + COLLECTOR_DIR + "/libmemusage.so";
    ASSERT_TRUE(std::filesystem::exists(driver));
    ASSERT_TRUE(std::filesystem::exists(collector));
    pid_t pid = start(driver, {"--color=never", FIXTURE_PATH, "env", "LD_PRELOAD"},
                      clean_environment({}), in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("out")), collector + "\n");

    // And the installed report module, beside the collector, for the options that draw.
    EXPECT_TRUE(std::filesystem::exists(prefix + "/" + COLLECTOR_DIR + "/memusage-reports.so"));
    pid = start(driver, {"-p", in_scratch("graph.png"), FIXTURE_PATH}, clean_environment({}),
                in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("graph.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
}

// Installing to a prefix where Debian's packages own glibc's tools (libc-devtools'
// /usr/bin/memusage) stops before writing anything, and says which package owns what.
TEST_F(InstallTest, RefusesToWriteOverAnotherPackagesFiles) {
    std::string owner = in_scratch("owner");
    ASSERT_EQ(std::system(("dpkg-query -S /usr/bin/memusage > '" + owner + "' 2>&1").c_str()), 0)
        << "glibc's memusage (libc-devtools) must be installed for this test";
    std::string before = read_file("/usr/bin/memusage");
    std::string command = std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix /usr > '" + in_scratch("install.log") +
                          "' 2>&1";
    EXPECT_NE(std::system(command.c_str()), 0);
    std::string log = read_file(in_scratch("install.log"));
    // (CMake wraps the message's lines: each part is looked for on its own.)
    EXPECT_NE(log.find("not installing: /usr/bin/memusage"), std::string::npos) << log;
    EXPECT_NE(log.find("'libc-devtools'"), std::string::npos) << log;
    EXPECT_EQ(read_file("/usr/bin/memusage"), before);
    EXPECT_FALSE(std::filesystem::exists(std::string("/usr/") + COLLECTOR_DIR + "/libmemusage.so"));
}

// On Debian the collector goes where an architecture's private libraries go,
// lib/<multiarch>/memusage/, beside (never at) the C library's own
// lib/<multiarch>/libmemusage.so; the installed driver preloads it from there.
TEST_F(InstallTest, TheCollectorGoesToTheArchitecturesPrivateDirectory) {
    std::string multiarch_file = in_scratch("multiarch");
    ASSERT_EQ(
        std::system(
            ("dpkg-architecture -qDEB_HOST_MULTIARCH > '" + multiarch_file + "' 2>&1").c_str()),
        0)
        << "dpkg-architecture (dpkg-dev) must be installed for this test: "
        << read_file(multiarch_file);
    std::string multiarch = read_file(multiarch_file);
    multiarch.erase(multiarch.find_last_not_of('\n') + 1);

    std::string prefix = in_scratch("prefix");
    std::string command = std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix '" + prefix + "' > '" +
                          in_scratch("install.log") + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << read_file(in_scratch("install.log"));
    std::string collector = prefix + "/lib/" + multiarch + "/memusage/libmemusage.so";
    EXPECT_TRUE(std::filesystem::exists(collector)) << collector;
    EXPECT_FALSE(std::filesystem::exists(prefix + "/lib/" + multiarch + "/libmemusage.so"));
    EXPECT_FALSE(std::filesystem::exists(prefix + "/lib/memusage/libmemusage.so"));

    pid_t pid = start(prefix + "/" + INSTALL_BINDIR + "/memusage",
                      {"--color=never", FIXTURE_PATH, "env", "LD_PRELOAD"}, clean_environment({}),
                      in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("out")), collector + "\n");
}

// A program using <memusage/memusage.h> builds against the installed header through
// pkg-config and through find_package(memusage), and runs with and without memusage.
TEST_F(InstallTest, TheApiHeaderBuildsThroughPkgConfigAndCMake) {
    std::string prefix = in_scratch("prefix");
    std::string log = in_scratch("log");
    auto system_ok = [&](const std::string& command) { return runs_whole(command, log); };
    ASSERT_TRUE(system_ok(std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix '" + prefix + "'"));
    ASSERT_TRUE(std::filesystem::exists(prefix + "/include/memusage/memusage.h"));
    EXPECT_FALSE(std::filesystem::exists(prefix + "/include/memusage/summary_format.h"))
        << "only the API header and the live figures' are installed";

    std::string pkgconfig = "PKG_CONFIG_PATH='" + prefix + "/" + INSTALL_LIBDIR + "/pkgconfig' ";
    ASSERT_TRUE(system_ok(pkgconfig + "pkg-config --cflags memusage"));
    std::string flags = read_file(log);
    ASSERT_EQ(flags.substr(0, 2), "-I");
    std::string include_dir = flags.substr(2, flags.find_first_of(" \n") - 2);
    EXPECT_EQ(std::filesystem::canonical(include_dir),
              std::filesystem::canonical(prefix + "/include"));
    std::string with_pkgconfig = in_scratch("with_pkgconfig");
    ASSERT_TRUE(system_ok("cc -o '" + with_pkgconfig + "' '" + API_USER_SOURCE + "' $(" +
                          pkgconfig + "pkg-config --cflags memusage) -pthread"));

    std::string project = in_scratch("project");
    std::filesystem::create_directories(project);
    {
        std::ofstream lists(project + "/CMakeLists.txt");
        lists << "cmake_minimum_required(VERSION 3.25)\nproject(uses_memusage C)\n"
              << "find_package(memusage REQUIRED)\nfind_package(Threads REQUIRED)\n"
              << "add_executable(with_cmake " << API_USER_SOURCE << ")\n"
              << "target_link_libraries(with_cmake PRIVATE memusage::api Threads::Threads)\n";
    }
    ASSERT_TRUE(system_ok(std::string("'") + CMAKE_COMMAND_PATH + "' -S '" + project + "' -B '" +
                          project + "/build' -DCMAKE_PREFIX_PATH='" + prefix + "'"));
    ASSERT_TRUE(
        system_ok(std::string("'") + CMAKE_COMMAND_PATH + "' --build '" + project + "/build'"));

    std::string driver = prefix + "/" + INSTALL_BINDIR + "/memusage";
    for (const std::string& program : {with_pkgconfig, project + "/build/with_cmake"}) {
        pid_t bare =
            start(program, {}, clean_environment({}), in_scratch("out"), in_scratch("err"));
        EXPECT_EQ(wait_exit_code(bare), 0) << read_file(in_scratch("err"));
        EXPECT_EQ(read_file(in_scratch("out")), "tracking 0\n");
        pid_t profiled =
            start(driver, {program}, clean_environment({}), in_scratch("out"), in_scratch("err"));
        EXPECT_EQ(wait_exit_code(profiled), 0) << read_file(in_scratch("err"));
        EXPECT_EQ(read_file(in_scratch("out")).substr(0, 11), "tracking 1\n");
    }
}

// A reader of the live figures of one's own builds against the installed headers alone
// (pkg-config's flags) and finds a program's file where the collector makes it.
TEST_F(InstallTest, TheLiveFiguresHeadersBuildAReaderOfOnesOwn) {
    std::string prefix = in_scratch("prefix");
    std::string log = in_scratch("log");
    auto system_ok = [&](const std::string& command) { return runs_whole(command, log); };
    ASSERT_TRUE(system_ok(std::string("'") + CMAKE_COMMAND_PATH + "' --install '" +
                          PROJECT_BUILD_DIR + "' --prefix '" + prefix + "'"));
    for (const char* header : {"live_format.h", "live_directory.h"})
        EXPECT_TRUE(std::filesystem::exists(prefix + "/include/memusage/" + header)) << header;
    std::string pkgconfig = "PKG_CONFIG_PATH='" + prefix + "/" + INSTALL_LIBDIR + "/pkgconfig' ";
    std::string reader = in_scratch("live_reader");
    ASSERT_TRUE(system_ok("c++ -std=c++20 -Wall -Werror -o '" + reader + "' '" +
                          LIVE_FORMAT_USER_SOURCE + "' $(" + pkgconfig +
                          "pkg-config --cflags memusage)"));

    pid_t bare = start(reader, {}, clean_environment({}), in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(bare), 1) << "no figures without the collector";
    pid_t profiled =
        start(prefix + "/" + INSTALL_BINDIR + "/memusage", {reader},
              clean_environment({"MEMUSAGE_LIVE=1"}), in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(profiled), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("out")).substr(0, 28), "live figures of live_reader,")
        << read_file(in_scratch("out"));
}

}  // namespace
}  // namespace driver_test
