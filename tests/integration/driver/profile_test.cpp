// SPDX-License-Identifier: MIT
// What the run produces: the summary, the data file, the graph, and nothing left behind.
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSummaryTitle = "Memory usage summary:";

size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++count;
    }
    return count;
}

uint32_t big_endian_32(const std::string& bytes, size_t at) {
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

class ProfileTest : public ScratchDirectoryTest {
  protected:
    void SetUp() override {
        ScratchDirectoryTest::SetUp();
        temporary_directory_ = in_scratch("tmp");
        fs::create_directory(temporary_directory_);
    }
    // Runs with TMPDIR pointing at a directory of our own, to see what is left in it.
    DriverRun run(const std::vector<std::string>& arguments) {
        return run_driver(arguments, scratch(), {"TMPDIR=" + temporary_directory_});
    }
    bool temporary_directory_is_empty() const { return fs::is_empty(temporary_directory_); }

    std::string temporary_directory_;
};

TEST_F(ProfileTest, SummaryArrivesInTheRequestedColour) {
    DriverRun plain = run({"--color=never", FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(count_of(plain.err, kSummaryTitle), 1u) << plain.err;
    EXPECT_EQ(plain.err.find('\x1b'), std::string::npos) << plain.err;
    DriverRun coloured = run({"--color=always", FIXTURE_PATH, "exit", "0"});
    EXPECT_NE(coloured.err.find("\x1b[01;32mMemory usage summary:\x1b[0;0m"), std::string::npos)
        << coloured.err;
}

TEST_F(ProfileTest, DataFileIsKeptWhereAsked) {
    std::string data = in_scratch("run.dat");
    DriverRun result = run({"-d", data, "--no-timer", FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    ASSERT_TRUE(fs::exists(data));
    uintmax_t size = fs::file_size(data);
    EXPECT_EQ(size % 24, 0u);
    EXPECT_GE(size, 2u * 24) << "the header records at least";
    EXPECT_TRUE(temporary_directory_is_empty());
}

TEST_F(ProfileTest, ProgNameProfilesOnlyThatProcess) {
    std::vector<std::string> parent_runs_child = {FIXTURE_PATH, "run", CHILD_FIXTURE_PATH, "exit",
                                                  "0"};
    auto with_options = [&](std::vector<std::string> options) {
        options.insert(options.end(), parent_runs_child.begin(), parent_runs_child.end());
        return options;
    };
    DriverRun everyone = run(with_options({"--color=never"}));
    EXPECT_EQ(count_of(everyone.err, kSummaryTitle), 2u) << everyone.err;
    DriverRun child_only = run(with_options({"--color=never", "-n", "driver_fixture_child"}));
    EXPECT_EQ(count_of(child_only.err, kSummaryTitle), 1u) << child_only.err;
    DriverRun nobody = run(with_options({"--color=never", "--progname=nobody-by-that-name"}));
    EXPECT_EQ(count_of(nobody.err, kSummaryTitle), 0u) << nobody.err;
    EXPECT_EQ(nobody.exit_code, 0);
}

// -n with siblings under a shell. The first process of the name writes
// the file; the later ones leave it alone. Here the second prints, and so allocates
// stdout's buffer: its peak would be in the kilobytes, the first one's is 115 bytes.
TEST_F(ProfileTest, ProgNameWithSiblingsKeepsTheFirstOnesProfile) {
    std::string data = in_scratch("siblings.dat");
    std::string child = std::string("'") + CHILD_FIXTURE_PATH + "'";
    DriverRun result = run({"--color=never", "--no-timer", "-n", "driver_fixture_child", "-d", data,
                            "/bin/sh", "-c", child + " exit 0; " + child + " args x"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(count_of(result.err, kSummaryTitle), 2u) << result.err;
    std::string bytes = read_file(data);
    ASSERT_EQ(bytes.size(), 24u * (2 + 32)) << "the first one's 16 pairs";
    uint64_t heap_peak = 0;
    for (int i = 0; i < 8; ++i)
        heap_peak |= uint64_t{static_cast<unsigned char>(bytes[24 + i])} << (8 * i);
    EXPECT_EQ(heap_peak, 115u);
}

TEST_F(ProfileTest, PngHasTheRequestedSize) {
    std::string png = in_scratch("graph");  // .png gets appended
    DriverRun result = run({"-p", png, "-x", "420", "--y-size=310", FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::string bytes = read_file(png + ".png");
    ASSERT_GE(bytes.size(), 24u) << result.err;
    EXPECT_EQ(bytes.substr(1, 3), "PNG");
    EXPECT_EQ(bytes.substr(12, 4), "IHDR");
    EXPECT_EQ(big_endian_32(bytes, 16), 420u);
    EXPECT_EQ(big_endian_32(bytes, 20), 310u);
    EXPECT_TRUE(temporary_directory_is_empty()) << "the private data file must go";
}

TEST_F(ProfileTest, TitleWithSpacesStaysOneArgument) {
    std::string png = in_scratch("titled.png");
    DriverRun result =
        run({"--title", "Two words  and more", "-t", "-T", "-p", png, FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::string bytes = read_file(png);
    ASSERT_FALSE(bytes.empty()) << result.err;
    // The title travels in the PNG's text chunks (docs/file-formats.md, "Files for other
    // tools").
    EXPECT_NE(bytes.find("Two words  and more"), std::string::npos);
}

// /bin/true allocates nothing: its data file has zero peaks, as a run that died has, but
// it is complete and the graph is drawn without a warning.
TEST_F(ProfileTest, PngOfARunThatAllocatedNothingHasNoWarning) {
    std::string png = in_scratch("true.png");
    DriverRun result = run({"--color=never", "-p", png, "/bin/true"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(png));
    EXPECT_EQ(result.err.find("warning"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("incomplete"), std::string::npos) << result.err;
}

TEST_F(ProfileTest, PngAndDataTogetherKeepTheData) {
    std::string png = in_scratch("both.png");
    std::string data = in_scratch("both.dat");
    DriverRun result = run({"-p", png, "-d", data, FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(png));
    EXPECT_TRUE(fs::exists(data));
    EXPECT_TRUE(temporary_directory_is_empty());
}

TEST_F(ProfileTest, TemporaryFileGoesWhenTheProgramCrashes) {
    DriverRun result =
        run({"-p", in_scratch("crash.png"), FIXTURE_PATH, "signal", std::to_string(SIGSEGV)});
    EXPECT_EQ(result.exit_code, 128 + SIGSEGV);
    EXPECT_TRUE(temporary_directory_is_empty());
}

TEST_F(ProfileTest, TemporaryFileGoesWhenTheProgramCannotRun) {
    DriverRun result = run({"-p", in_scratch("none.png"), "memusage-no-such-program"});
    EXPECT_EQ(result.exit_code, 127);
    EXPECT_TRUE(temporary_directory_is_empty());
}

TEST_F(ProfileTest, NoGraphWhenNoProcessWasProfiled) {
    std::string png = in_scratch("nobody.png");
    DriverRun result = run({"-p", png, "-n", "nobody-by-that-name", FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_FALSE(fs::exists(png));
    EXPECT_NE(result.err.find("no profile data"), std::string::npos) << result.err;
    EXPECT_TRUE(temporary_directory_is_empty());
}

// A size the graph cannot have is a mistake found before the run, not after it.
TEST_F(ProfileTest, GraphSizeTooLargeIsRefusedBeforeTheProgramRuns) {
    std::string png = in_scratch("huge.png");
    for (const char* option : {"-x", "-y"}) {
        DriverRun result = run({option, "99999999", "-p", png, FIXTURE_PATH, "args", "ran"});
        EXPECT_EQ(result.exit_code, 1) << result.err;
        EXPECT_EQ(result.out.find("[ran]"), std::string::npos) << "the program ran";
        EXPECT_NE(result.err.find("too large"), std::string::npos) << result.err;
        EXPECT_FALSE(fs::exists(png));
        EXPECT_TRUE(temporary_directory_is_empty());
    }
}

TEST_F(ProfileTest, GraphThatCannotBeDrawnFailsTheRun) {
    std::string png = in_scratch("no/such/directory/graph.png");
    DriverRun result = run({"-p", png, FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(result.exit_code, 1) << "the program succeeded, the graph did not";
    EXPECT_NE(result.err.find("cannot draw " + png), std::string::npos) << result.err;
    result = run({"-p", png, FIXTURE_PATH, "exit", "5"});
    EXPECT_EQ(result.exit_code, 5) << "a failing program's own status stays";
    EXPECT_TRUE(temporary_directory_is_empty());
}

// mkstemp users expect /tmp when TMPDIR names no directory (glibc's tmpfile does so).
TEST_F(ProfileTest, TmpdirThatDoesNotExistFallsBackToTmp) {
    std::string png = in_scratch("fallback.png");
    DriverRun result = run_driver({"-p", png, FIXTURE_PATH, "exit", "0"}, scratch(),
                                  {"TMPDIR=" + in_scratch("no-such-directory")});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(png)) << result.err;
}

TEST_F(ProfileTest, StaticProgramRunsWithAMessage) {
    DriverRun result = run({"-p", in_scratch("static.png"), STATIC_FIXTURE_PATH, "exit", "6"});
    EXPECT_EQ(result.exit_code, 6) << "the program still runs";
    EXPECT_NE(result.err.find("statically linked"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("no memory profile"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find(kSummaryTitle), std::string::npos) << result.err;
    EXPECT_TRUE(temporary_directory_is_empty());
}

TEST_F(ProfileTest, SetUserIdProgramRunsWithAMessage) {
    std::string program = in_scratch("setuid_fixture");
    fs::copy_file(FIXTURE_PATH, program);
    // Only a change of user at exec makes it a secure exec: give the file to someone else.
    if (::chown(program.c_str(), 65534, 65534) != 0) {
        GTEST_SKIP() << "making a file set-user-ID for another user needs root";
    }
    ::chmod(program.c_str(), 04755);
    struct statvfs volume {};
    if (::statvfs(program.c_str(), &volume) == 0 && (volume.f_flag & ST_NOSUID)) {
        GTEST_SKIP() << "the scratch directory is on a nosuid mount";
    }
    DriverRun result = run({program, "exit", "9"});
    EXPECT_EQ(result.exit_code, 9) << "the program still runs";
    EXPECT_NE(result.err.find("set-user-ID"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("no memory profile"), std::string::npos) << result.err;
}

// A program with file capabilities (setcap) is a secure exec for a user who gains them:
// the loader ignores LD_PRELOAD, as for set-user-ID programs, and the driver says so. One
// whose capabilities are inheritable only gives nobody anything: it is profiled, silently.
TEST_F(ProfileTest, FileCapabilitiesProgramRunsWithAMessage) {
    // Gained only by a user other than root: the driver runs as nobody.
    for (fs::path dir = scratch(); dir != dir.root_path(); dir = dir.parent_path())
        ::chmod(dir.c_str(), 0755);
    for (const char* capabilities : {"cap_net_raw+ep", "cap_net_raw+p", "cap_net_raw+i"}) {
        SCOPED_TRACE(capabilities);
        const std::string given = std::string(capabilities).substr(std::strlen("cap_net_raw+"));
        const bool secure = given.find_first_of("ep") != std::string::npos;
        std::string program = in_scratch("capable_fixture");
        fs::remove(program);
        fs::copy_file(FIXTURE_PATH, program);
        // setcap is libcap2-bin's (.ci/deps --tests); it writes what the kernel reads, and
        // only root may (CI runs as root).
        if (geteuid() != 0) GTEST_SKIP() << "giving a program file capabilities needs root";
        pid_t setcap = start("/usr/sbin/setcap", {capabilities, program}, clean_environment({}),
                             in_scratch("out"), in_scratch("err"));
        ASSERT_EQ(wait_exit_code(setcap), 0) << "setcap needs root and libcap2-bin\n"
                                             << read_file(in_scratch("err"));
        struct statvfs volume {};
        if (::statvfs(program.c_str(), &volume) == 0 && (volume.f_flag & ST_NOSUID)) {
            GTEST_SKIP() << "the scratch directory is on a nosuid mount";
        }
        pid_t pid = start("/usr/bin/setpriv",
                          {"--reuid=65534", "--regid=65534", "--clear-groups", MEMUSAGE_DRIVER_PATH,
                           "--color=never", program, "exit", "9"},
                          clean_environment({}), in_scratch("out"), in_scratch("err"));
        int exit_code = wait_exit_code(pid);
        std::string err = read_file(in_scratch("err"));
        EXPECT_EQ(exit_code, 9) << "the program still runs\n" << err;
        if (secure) {
            EXPECT_NE(err.find("memusage: '" + program +
                               "' has file capabilities, so LD_PRELOAD cannot load the "
                               "collector into it: it runs, but no memory profile will come"),
                      std::string::npos)
                << err;
            EXPECT_EQ(err.find(kSummaryTitle), std::string::npos) << "it was profiled\n" << err;
        } else {
            EXPECT_EQ(err.find("file capabilities"), std::string::npos) << err;
            EXPECT_NE(err.find(kSummaryTitle), std::string::npos) << "not profiled\n" << err;
        }
    }
}

// Under a file size limit (ulimit -f) every file the driver writes that does not fit fails
// with a message naming it and the reason, and status 1; the driver is not killed by SIGXFSZ
// halfway through writing it. The limit is the driver's: the fixture lifts it for itself
// once started, so that the collector's files are whole (those it writes before the
// program's main, a data file's or a recording's header, fit in 48 bytes). The messages
// reach the test through a pipe, which the limit does not stop.
TEST_F(ProfileTest, AFileSizeLimitFailsEachOutputNotTheDriver) {
    struct Case {
        std::vector<std::string> option;
        const char* file;
        int limit;
    };
    const std::vector<Case> cases = {
        {{"--folded=" + in_scratch("out.folded")}, "out.folded", 16},
        {{"--pprof=" + in_scratch("out.pb.gz")}, "out.pb.gz", 48},
        {{"--dhat=" + in_scratch("out.json")}, "out.json", 48},
        {{"--massif=" + in_scratch("out.massif")}, "out.massif", 48},
        {{"-p", in_scratch("out.png")}, "out.png", 48},
        {{"--html=" + in_scratch("out.html")}, "out.html", 48},
    };
    for (const Case& limited : cases) {
        SCOPED_TRACE(limited.file);
        std::vector<std::string> arguments = {
            "-c",
            "(/usr/bin/prlimit --fsize=" + std::to_string(limited.limit) +
                ":unlimited \"$@\" 2>&1; echo \"status $?\") | cat",
            "sh", MEMUSAGE_DRIVER_PATH, "--color=never"};
        arguments.insert(arguments.end(), limited.option.begin(), limited.option.end());
        arguments.insert(arguments.end(), {FIXTURE_PATH, "lift-file-limit", "exit", "0"});
        pid_t pid =
            start("/bin/sh", arguments, clean_environment({"TMPDIR=" + temporary_directory_}),
                  in_scratch("out"), in_scratch("err"));
        ASSERT_EQ(wait_exit_code(pid), 0);
        std::string out = read_file(in_scratch("out"));
        EXPECT_NE(out.find(kSummaryTitle), std::string::npos) << out;
        EXPECT_EQ(out.find("cannot write the"), std::string::npos) << "the collector's\n" << out;
        EXPECT_NE(out.find("cannot write " + in_scratch(limited.file) + ": File too large\n"),
                  std::string::npos)
            << out;
        EXPECT_TRUE(out.ends_with("status 1\n")) << "(153 is SIGXFSZ's)\n" << out;
        EXPECT_TRUE(temporary_directory_is_empty());
    }
}

}  // namespace
}  // namespace driver_test

namespace driver_test {
namespace {

// A name -n matches in no process is said, whatever else was asked: no summary is printed
// and no file written, and a silent run would look like a program that allocates nothing.
TEST_F(ProfileTest, ProgNameMatchingNoProcessIsSaid) {
    for (std::vector<std::string> extra :
         {std::vector<std::string>{}, {"-d", "nobody.dat"}, {"-p", "nobody.png"}}) {
        std::vector<std::string> arguments = {"--color=never", "-n", "nobody-by-that-name"};
        for (const std::string& word : extra)
            arguments.push_back(word.ends_with(".dat") || word.ends_with(".png") ? in_scratch(word)
                                                                                 : word);
        arguments.insert(arguments.end(), {FIXTURE_PATH, "exit", "0"});
        DriverRun result = run(arguments);
        EXPECT_EQ(result.exit_code, 0);
        EXPECT_EQ(count_of(result.err,
                           "memusage: no process was profiled: none of those the run started is "
                           "named 'nobody-by-that-name'"),
                  1u)
            << result.err;
        EXPECT_TRUE(temporary_directory_is_empty());
    }
    // A name that matches says nothing of the kind, even when the process dies.
    for (const char* how : {"exit", "signal"}) {
        DriverRun matched = run({"--color=never", "-n", "driver_fixture", FIXTURE_PATH, how,
                                 std::string(how) == "exit" ? "0" : std::to_string(SIGKILL)});
        EXPECT_EQ(matched.err.find("no process was profiled"), std::string::npos) << matched.err;
    }
}

}  // namespace
}  // namespace driver_test

namespace driver_test {
namespace {

// An export that cannot be written fails the run as a graph that cannot be drawn does
// (/dev/full takes no byte: every write ends in ENOSPC); the message names the file.
TEST_F(ProfileTest, AnExportThatCannotBeWrittenFailsTheRun) {
    for (const char* option : {"--pprof", "--massif", "--dhat", "--folded"}) {
        DriverRun result =
            run({"--color=never", std::string(option) + "=/dev/full", FIXTURE_PATH, "exit", "0"});
        EXPECT_EQ(result.exit_code, 1) << option << "\n" << result.err;
        EXPECT_NE(result.err.find("cannot write /dev/full"), std::string::npos) << option << "\n"
                                                                                << result.err;
        EXPECT_TRUE(temporary_directory_is_empty()) << option;
    }
    // And the picture and the report (the picture through a link: -p adds ".png" to a name
    // without it).
    const std::string full_png = in_scratch("full.png");
    fs::create_symlink("/dev/full", full_png);
    for (const std::vector<std::string>& option :
         {std::vector<std::string>{"-p", full_png}, {"--html=/dev/full"}}) {
        std::vector<std::string> arguments = {"--color=never"};
        arguments.insert(arguments.end(), option.begin(), option.end());
        arguments.insert(arguments.end(), {FIXTURE_PATH, "exit", "0"});
        DriverRun result = run(arguments);
        EXPECT_EQ(result.exit_code, 1) << option.back() << "\n" << result.err;
        EXPECT_NE(result.err.find(": No space left on device\n"), std::string::npos)
            << option.back() << "\n"
            << result.err;
        EXPECT_TRUE(temporary_directory_is_empty()) << option.back();
    }
    // The program's own failure status stays the program's.
    DriverRun failed = run({"--color=never", "--pprof=/dev/full", FIXTURE_PATH, "exit", "7"});
    EXPECT_EQ(failed.exit_code, 7) << failed.err;
    // A run that recorded no sites (no process of that name) has nothing to export: no failure.
    DriverRun nobody = run({"--color=never", "-n", "nobody-by-that-name", "--pprof=/dev/full",
                            FIXTURE_PATH, "exit", "0"});
    EXPECT_EQ(nobody.exit_code, 0) << nobody.err;
}

}  // namespace
}  // namespace driver_test
