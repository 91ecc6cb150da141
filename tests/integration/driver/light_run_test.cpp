// SPDX-License-Identifier: MIT
// A run that only prints the summary loads nothing of the drawing and reporting: not the
// report module, nor Cairo, Pango, libdw or protobuf. The options that need them load them
// before the program runs, and a driver without its module still runs programs.
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

using LightRunTest = ScratchDirectoryTest;

const std::vector<std::string> kReportLibraries = {"memusage-reports.so", "libcairo", "libpango",
                                                   "libdw", "libprotobuf"};

// The files the driver has mapped while the program runs (its /proc/PID/maps), for a run
// of the fixture with `options` before it; the run is then ended by SIGTERM.
std::string maps_while_running(const std::string& driver, const std::string& scratch,
                               const std::vector<std::string>& options,
                               const std::vector<std::string>& environment = {}) {
    const std::string started = scratch + "/started";
    std::filesystem::remove(started);
    std::vector<std::string> arguments = options;
    arguments.insert(arguments.end(), {FIXTURE_PATH, "wait", started});
    pid_t pid = start(driver, arguments, clean_environment(environment), scratch + "/out",
                      scratch + "/err");
    const bool running = wait_until_exists(started);
    std::string maps = read_file("/proc/" + std::to_string(pid) + "/maps");
    ::kill(pid, SIGTERM);
    EXPECT_EQ(wait_exit_code(pid), 128 + SIGTERM) << read_file(scratch + "/err");
    EXPECT_TRUE(running) << read_file(scratch + "/err");
    return maps;
}

TEST_F(LightRunTest, ASummaryOnlyRunLoadsNoDrawingOrReportLibrary) {
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{}, {"--color=never", "-d", in_scratch("data"), "-m"}}) {
        std::string maps = maps_while_running(MEMUSAGE_DRIVER_PATH, scratch(), options);
        ASSERT_NE(maps.find("libc.so"), std::string::npos) << maps;
        for (const std::string& library : kReportLibraries)
            EXPECT_EQ(maps.find(library), std::string::npos) << library << " is loaded:\n" << maps;
    }
}

// The check above sees them when they are there: the options that need them load them, before
// the program runs.
TEST_F(LightRunTest, TheOptionsThatDrawOrReportLoadTheModuleBeforeTheProgramRuns) {
    struct Case {
        std::vector<std::string> options;
        std::vector<std::string> libraries;
    };
    for (const Case& each : std::vector<Case>{
             {{"-p", in_scratch("graph.png")}, {"memusage-reports.so", "libcairo", "libpango"}},
             {{"--pprof=" + in_scratch("profile.pb.gz")}, {"memusage-reports.so", "libprotobuf"}},
             {{"--leaks"}, {"memusage-reports.so", "libdw"}},
             {{"--html=" + in_scratch("report.html")}, {"memusage-reports.so"}}}) {
        SCOPED_TRACE(each.options.front());
        std::string maps = maps_while_running(MEMUSAGE_DRIVER_PATH, scratch(), each.options);
        for (const std::string& library : each.libraries)
            EXPECT_NE(maps.find(library), std::string::npos) << library << " is not loaded";
    }
}

// A copy of the build's driver beside a copy of its collector, laid out as in the build, and
// what `module` names (nothing if empty) as its report module.
std::string driver_copy(const std::string& scratch, const std::string& module) {
    namespace fs = std::filesystem;
    const fs::path driver_dir = fs::path(MEMUSAGE_DRIVER_PATH).parent_path();
    const fs::path collector_dir = fs::path(COLLECTOR_PATH).parent_path();
    const fs::path bin = fs::path(scratch) / "copy" / "bin";
    const fs::path lib = (bin / collector_dir.lexically_relative(driver_dir)).lexically_normal();
    fs::create_directories(bin);
    fs::create_directories(lib);
    fs::copy_file(MEMUSAGE_DRIVER_PATH, bin / "memusage");
    fs::copy_file(COLLECTOR_PATH, lib / "libmemusage.so");
    if (!module.empty()) fs::copy_file(module, lib / "memusage-reports.so");
    return (bin / "memusage").string();
}

TEST_F(LightRunTest, WithoutItsModuleTheDriverRunsProgramsAndRefusesToDraw) {
    const std::string driver = driver_copy(scratch(), "");
    pid_t pid = start(driver, {"--color=never", FIXTURE_PATH, "args", "ran"}, clean_environment({}),
                      in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("out")), "[ran]\n");
    EXPECT_NE(read_file(in_scratch("err")).find("Memory usage summary:"), std::string::npos)
        << read_file(in_scratch("err"));

    const std::string module =
        (std::filesystem::path(driver).parent_path() /
         std::filesystem::path(COLLECTOR_PATH)
             .parent_path()
             .lexically_relative(std::filesystem::path(MEMUSAGE_DRIVER_PATH).parent_path()) /
         "memusage-reports.so")
            .lexically_normal()
            .string();
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{"-p", "out.png"}, {"--sites"}, {"--html=out.html"}}) {
        SCOPED_TRACE(options.front());
        std::vector<std::string> arguments = options;
        arguments.insert(arguments.end(), {FIXTURE_PATH, "args", "ran"});
        pid = start(driver, arguments, clean_environment({}), in_scratch("out"), in_scratch("err"));
        EXPECT_EQ(wait_exit_code(pid), 1);
        EXPECT_EQ(read_file(in_scratch("out")), "") << "the program ran";
        const std::string err = read_file(in_scratch("err"));
        EXPECT_EQ(
            err.rfind("memusage: cannot load the drawing and report module " + module + ": ", 0),
            0u)
            << err;
        EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
    }
}

TEST_F(LightRunTest, AModuleNotOfItsBuildIsRefusedWithTheReason) {
    const std::string driver = driver_copy(scratch(), NOT_A_MODULE_PATH);
    pid_t pid = start(driver, {"-p", "out.png", FIXTURE_PATH, "args", "ran"}, clean_environment({}),
                      in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 1);
    EXPECT_EQ(read_file(in_scratch("out")), "") << "the program ran";
    const std::string err = read_file(in_scratch("err"));
    EXPECT_NE(err.find("it has no memusage_report_functions (not memusage's module)\n"),
              std::string::npos)
        << err;
}

TEST_F(LightRunTest, TheDriversCopyWithItsModuleDrawsAsTheBuildsDoes) {
    const std::string driver = driver_copy(scratch(), REPORT_MODULE_PATH);
    pid_t pid = start(driver, {"-p", in_scratch("graph.png"), FIXTURE_PATH}, clean_environment({}),
                      in_scratch("out"), in_scratch("err"));
    EXPECT_EQ(wait_exit_code(pid), 0) << read_file(in_scratch("err"));
    EXPECT_EQ(read_file(in_scratch("graph.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
}

}  // namespace
}  // namespace driver_test
