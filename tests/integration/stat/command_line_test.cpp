// SPDX-License-Identifier: MIT
// Options, output names, and every kind of bad input: a message and exit 1, never a
// crash; or a sensible picture.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstring>
#include <random>

#include "stat_test_support.h"

using namespace stat_test;

namespace {

DataFile small_run() {
    DataFile data;
    data.heap_peak = 5000;
    data.stack_peak = 100;
    data.total_peak = 5100;
    data.start = 10;
    data.end = 20;
    for (int i = 0; i < 10; ++i) data.events.push_back(record(500 * i, 10 * i, 10 + i));
    return data;
}

bool is_png(const std::string& path) { return read_file(path).substr(1, 3) == "PNG"; }

void expect_refused(const Outcome& outcome, const std::string& message) {
    EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
    EXPECT_NE(outcome.output.find("memusagestat: "), std::string::npos) << outcome.output;
    EXPECT_NE(outcome.output.find(message), std::string::npos) << outcome.output;
}

}  // namespace

TEST(CommandLine, HelpUsageVersionExitZero) {
    Outcome help = run({MEMUSAGESTAT, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    for (const char* option : {"--output=FILE", "--string=STRING", "--time", "--total",
                               "--x-size=VALUE", "--y-size=VALUE", "--usage", "--version"})
        EXPECT_NE(help.output.find(option), std::string::npos) << option;
    EXPECT_EQ(run({MEMUSAGESTAT, "-?"}).output, help.output);
    Outcome usage = run({MEMUSAGESTAT, "--usage"});
    EXPECT_EQ(usage.exit_code, 0);
    EXPECT_NE(usage.output.find("DATAFILE [OUTFILE]"), std::string::npos);
    Outcome version = run({MEMUSAGESTAT, "-V"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_NE(version.output.find("memusagestat"), std::string::npos);
}

TEST(CommandLine, OutputDefaultsToDataFileDotPng) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    ASSERT_EQ(run({MEMUSAGESTAT, dir / "run.dat"}).exit_code, 0);
    EXPECT_TRUE(is_png(dir / "run.dat.png"));
}

TEST(CommandLine, OutputOptionAndOutfileArgument) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    ASSERT_EQ(run({MEMUSAGESTAT, "-o", dir / "a.png", dir / "run.dat"}).exit_code, 0);
    EXPECT_TRUE(is_png(dir / "a.png"));
    ASSERT_EQ(run({MEMUSAGESTAT, "--output=" + dir / "b.png", dir / "run.dat"}).exit_code, 0);
    EXPECT_TRUE(is_png(dir / "b.png"));
    // Like glibc, OUTFILE wins over -o.
    ASSERT_EQ(run({MEMUSAGESTAT, "-o", dir / "c.png", dir / "run.dat", dir / "d.png"}).exit_code,
              0);
    EXPECT_TRUE(is_png(dir / "d.png"));
    EXPECT_FALSE(std::filesystem::exists(dir / "c.png"));
}

TEST(CommandLine, LongOptionsAcceptUnambiguousPrefixes) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    ASSERT_EQ(
        run({MEMUSAGESTAT, "--x-s=300", "--tot", "--str", "t", dir / "run.dat", dir / "p.png"})
            .exit_code,
        0);
    Image image;
    ASSERT_TRUE(decode_png(dir / "p.png", image));
    EXPECT_EQ(image.width, 300u);
    expect_refused(run({MEMUSAGESTAT, "--t", dir / "run.dat"}), "ambiguous");
}

// Options the chosen output would ignore are refused rather than dropped in silence.
TEST(CommandLine, OptionsTheOutputWouldIgnoreAreRefused) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    expect_refused(run({MEMUSAGESTAT, "--html=" + dir / "r.html", "--stack-peak", dir / "run.dat"}),
                   "--stack-peak does not go with --html");
    EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));
    expect_refused(run({MEMUSAGESTAT, "--flame=" + dir / "f.png", "--sites=" + dir / "run.sites",
                        "-o", dir / "o.png"}),
                   "--output does not go with the pictures");
    expect_refused(
        run({MEMUSAGESTAT, "--stacked=" + dir / "s.png", "--events=" + dir / "run.events", "-T"}),
        "--total does not go with the pictures");
}

TEST(CommandLine, MissingOrExtraArgumentsAreRefused) {
    expect_refused(run({MEMUSAGESTAT}), "missing DATAFILE");
    expect_refused(run({MEMUSAGESTAT, "a", "b", "c"}), "too many arguments");
    // Said as memusage says it.
    expect_refused(run({MEMUSAGESTAT, "--bogus", "a"}),
                   "memusagestat: unrecognized option '--bogus'\n"
                   "Try 'memusagestat --help' or 'memusagestat --usage' for more information.\n");
}

TEST(CommandLine, BadSizesAreRefused) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    expect_refused(run({MEMUSAGESTAT, "-x", "abc", dir / "run.dat"}), "invalid width");
    expect_refused(run({MEMUSAGESTAT, "-y", "-5", dir / "run.dat"}), "invalid height");
    expect_refused(run({MEMUSAGESTAT, "-x", "99999999999", dir / "run.dat"}), "invalid width");
    expect_refused(run({MEMUSAGESTAT, "-x", "100000", dir / "run.dat"}), "too large");
}

// Each message names the file it is about.
TEST(CommandLine, UnreadableInputsAreRefused) {
    ScratchDir dir;
    expect_refused(run({MEMUSAGESTAT, dir / "missing"}),
                   "memusagestat: " + dir / "missing" +
                       ": cannot open input file: No such file or directory\n");
    std::ofstream(dir / "empty").close();
    expect_refused(run({MEMUSAGESTAT, dir / "empty"}), dir / "empty" + ": ");
    expect_refused(run({MEMUSAGESTAT, dir / "empty"}), "incorrect size");
    std::ofstream(dir / "short") << std::string(47, 'x');
    expect_refused(run({MEMUSAGESTAT, dir / "short"}), dir / "short" + ": ");
    expect_refused(run({MEMUSAGESTAT, dir / "short"}), "incorrect size");
    expect_refused(run({MEMUSAGESTAT, dir.path()}),
                   dir.path() + ": input file is not a regular file");
    small_run().write(dir / "before.dat");
    expect_refused(run({MEMUSAGESTAT, "--diff", dir / "before.dat", dir / "missing"}),
                   dir / "missing" + ": cannot open input file: No such file or directory");
    expect_refused(run({MEMUSAGESTAT, "--diff", dir / "missing", dir / "before.dat"}),
                   dir / "missing" + ": cannot open input file: No such file or directory");
    small_run().write(dir / "run.dat");
    // Made or written, an output that fails says so one way, whichever kind it is.
    const std::string missing_dir = dir / "no/such/dir";
    for (const char* name : {"/out.png", "/out.svg", "/out.pdf"})
        expect_refused(run({MEMUSAGESTAT, dir / "run.dat", missing_dir + name}),
                       "cannot write " + missing_dir + name + ": No such file or directory");
    expect_refused(run({MEMUSAGESTAT, "--html=" + missing_dir + "/out.html", dir / "run.dat"}),
                   "cannot write " + missing_dir + "/out.html: No such file or directory");
}

TEST(CommandLine, RandomBytesGiveAPictureOrAMessageNeverACrash) {
    ScratchDir dir;
    std::mt19937 random(7);
    for (int round = 0; round < 8; ++round) {
        std::string bytes(48 + random() % 2000, '\0');
        for (char& c : bytes) c = static_cast<char>(random());
        std::ofstream(dir / "random", std::ios::binary) << bytes;
        for (const char* mode : {"-T", "-t"}) {
            const Outcome outcome = run({MEMUSAGESTAT, mode, dir / "random", dir / "r.png"});
            EXPECT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 1) << outcome.output;
            if (outcome.exit_code == 0) {
                EXPECT_TRUE(is_png(dir / "r.png"));
            }
        }
    }
}

TEST(CommandLine, AbsurdValuesDrawWithoutTrouble) {
    DataFile data;
    data.heap_peak = UINT64_MAX;
    data.stack_peak = UINT64_MAX;
    data.total_peak = UINT64_MAX;
    data.start = UINT64_MAX;
    data.end = 0;
    data.events = {record(UINT64_MAX, UINT64_MAX, UINT64_MAX), record(0, 0, 0),
                   record(1, UINT64_MAX, 5)};
    ScratchDir dir;
    data.write(dir / "absurd");
    for (const char* mode : {"-T", "-t"}) {
        const Outcome outcome = run({MEMUSAGESTAT, mode, dir / "absurd", dir / "a.png"});
        EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
        EXPECT_TRUE(is_png(dir / "a.png"));
    }
}

TEST(CommandLine, PartialTrailingRecordIsIgnoredWithAWarning) {
    ScratchDir dir;
    small_run().write(dir / "cut", 10);
    const Outcome outcome = run({MEMUSAGESTAT, dir / "cut", dir / "cut.png"});
    EXPECT_EQ(outcome.exit_code, 0);
    EXPECT_NE(outcome.output.find("warning"), std::string::npos);
    EXPECT_NE(outcome.output.find("14 bytes"), std::string::npos) << outcome.output;
    EXPECT_TRUE(is_png(dir / "cut.png"));
}

TEST(CommandLine, DeadRunIsRepairedDrawnAndWrittenBack) {
    DataFile data = small_run();
    data.heap_peak = data.stack_peak = data.total_peak = 0;
    data.end = data.start;
    ScratchDir dir;
    data.write(dir / "dead");
    const Outcome outcome = run({MEMUSAGESTAT, dir / "dead", dir / "dead.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(is_png(dir / "dead.png"));
    const std::string bytes = read_file(dir / "dead");
    memusage::Record header[2];
    std::memcpy(header, bytes.data(), sizeof header);
    EXPECT_EQ(header[1].heap, 4500u);
    EXPECT_EQ(header[1].stack, 90u);
    EXPECT_EQ(header[0].stack, 4590u);
    EXPECT_EQ(header[1].time(), 19u);
    EXPECT_NE(outcome.output.find("incomplete"), std::string::npos) << outcome.output;
    EXPECT_NE(outcome.output.find("recovered"), std::string::npos) << outcome.output;
}

// A run that allocated nothing has zero peaks too, but its exit wrote the end time into
// record 1: the file is complete, drawn without a word, and left as it is.
TEST(CommandLine, CompleteRunThatAllocatedNothingIsNoDeadRun) {
    DataFile data;
    data.start = 100;
    data.end = 900;
    ScratchDir dir;
    data.write(dir / "empty");
    const std::string before = read_file(dir / "empty");
    const Outcome outcome = run({MEMUSAGESTAT, dir / "empty", dir / "empty.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_EQ(outcome.output, "");
    EXPECT_TRUE(is_png(dir / "empty.png"));
    EXPECT_EQ(read_file(dir / "empty"), before);
}

// A kill between two pages of one write: the file was lengthened first, so the record
// across the page boundary has its heap and zeros for its stack and time, and zeros
// follow. The run's end is the last record that has a time; the picture is by time.
TEST(CommandLine, RecordCutShortByAKillIsDroppedAndNeverEndsTheRun) {
    DataFile data = small_run();
    data.heap_peak = data.stack_peak = data.total_peak = 0;
    data.end = data.start;
    data.events.push_back(record(9000, 0, 0));
    data.events.push_back(record(0, 0, 0));
    ScratchDir dir;
    data.write(dir / "killed");
    const Outcome outcome = run({MEMUSAGESTAT, "-t", dir / "killed", dir / "killed.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(is_png(dir / "killed.png"));
    EXPECT_EQ(outcome.output.find("spans no time"), std::string::npos) << outcome.output;
    EXPECT_NE(outcome.output.find("ignoring 2 records with time 0"), std::string::npos)
        << outcome.output;
    const std::string bytes = read_file(dir / "killed");
    memusage::Record header[2];
    std::memcpy(header, bytes.data(), sizeof header);
    EXPECT_EQ(header[1].heap, 4500u) << "not the heap of the record cut short";
    EXPECT_EQ(header[1].time(), 19u) << "the written-back end is the last real record's";
}

// glibc's memusagestat refuses a FIFO at once; opening one for reading would wait for a
// writer, for ever.
TEST(CommandLine, AFifoIsRefusedWithoutWaitingForAWriter) {
    ScratchDir dir;
    ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
    std::string program = MEMUSAGESTAT, fifo = dir / "fifo", out = dir / "out.png";
    char* argv[] = {program.data(), const_cast<char*>(fifo.c_str()), const_cast<char*>(out.c_str()),
                    nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    bool finished = false;
    for (int tenths = 0; tenths < 300 && !finished; ++tenths) {
        finished = waitpid(pid, &status, WNOHANG) == pid;
        if (!finished) usleep(100000);
    }
    if (!finished) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    ASSERT_TRUE(finished) << "memusagestat waited on the FIFO";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    expect_refused(run({MEMUSAGESTAT, "/dev/null"}), "not a regular file");
}

TEST(CommandLine, TimeModeCopesWithZeroSpanAndBackwardsTime) {
    ScratchDir dir;
    DataFile frozen = small_run();
    frozen.end = frozen.start;
    for (auto& r : frozen.events) r.set_time(frozen.start);
    frozen.write(dir / "frozen");
    Outcome outcome = run({MEMUSAGESTAT, "-t", dir / "frozen", dir / "f.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_NE(outcome.output.find("spans no time"), std::string::npos);
    EXPECT_TRUE(is_png(dir / "f.png"));

    DataFile backwards = small_run();
    backwards.events[5].set_time(1);  // a forked child's clock, say
    backwards.events[6].set_time(1000000);
    backwards.write(dir / "backwards");
    outcome = run({MEMUSAGESTAT, "-t", "-T", dir / "backwards", dir / "b.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(is_png(dir / "b.png"));
}

TEST(CommandLine, TitleInAnyEncodingIsDrawn) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    for (const char* title : {"Gr\xC3\xBC\xC3\x9F"
                              "e",
                              "latin-1 \xE9t\xE9", ""}) {
        const Outcome outcome = run({MEMUSAGESTAT, "-s", title, dir / "run.dat", dir / "t.png"});
        EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
        EXPECT_TRUE(is_png(dir / "t.png"));
    }
}

// Columns of the band above the frame (the title's) that hold any ink.
unsigned title_columns(const std::string& png) {
    Image image;
    if (!decode_png(png, image)) return 0;
    unsigned inked = 0;
    for (unsigned x = 0; x < image.width; ++x)
        for (unsigned y = 0; y < 18; ++y)
            if (!image.at(x, y).white()) {
                ++inked;
                break;
            }
    return inked;
}

TEST(CommandLine, TitlesInEveryScriptDrawWithAFallbackFont) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    Outcome outcome =
        run({MEMUSAGESTAT, "-s", "W\xC3\xB6rter", dir / "run.dat", dir / "latin.png"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    // Chinese, Arabic and an emoji: none is in DejaVu Sans, each has a font of the project's
    // dependencies that fontconfig falls back to.
    const std::string every_script =
        "W\xC3\xB6rter \xE5\x8D\x95\xE8\xAF\x8D "
        "\xD9\x83\xD9\x84\xD9\x85\xD8\xA7\xD8\xAA \xF0\x9F\x98\x80";
    outcome = run({MEMUSAGESTAT, "-s", every_script, dir / "run.dat", dir / "every.png"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_EQ(outcome.output.find("warning"), std::string::npos) << outcome.output;
    EXPECT_GT(title_columns(dir / "every.png"), title_columns(dir / "latin.png") + 30);
}

TEST(CommandLine, CharactersNoFontCanDrawAreNamedInAWarning) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    // U+F0000 is for private use: no installed font draws it.
    const Outcome outcome =
        run({MEMUSAGESTAT, "-s", "title \xF3\xB0\x80\x80", dir / "run.dat", dir / "t.png"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_TRUE(is_png(dir / "t.png"));
    EXPECT_NE(outcome.output.find("warning: 1 characters of the picture's text have no installed "
                                  "font"),
              std::string::npos)
        << outcome.output;
}

TEST(CommandLine, AMachineWithoutFontsGetsThePictureAndAClearWarning) {
    ScratchDir dir;
    small_run().write(dir / "run.dat");
    // fontconfig configured with no font directory at all, as on a minimal container.
    std::ofstream(dir / "fonts.conf")
        << "<?xml version=\"1.0\"?>\n<fontconfig><cachedir>" << dir / "cache"
        << "</cachedir></fontconfig>\n";
    for (const char* picture : {"t.png", "t.svg"}) {
        const Outcome outcome = run({MEMUSAGESTAT, "-s", "title", dir / "run.dat", dir / picture},
                                    {"FONTCONFIG_FILE=" + dir / "fonts.conf"});
        EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
        EXPECT_TRUE(std::filesystem::file_size(dir / picture) > 0);
        EXPECT_NE(outcome.output.find("have no installed font that can draw them"),
                  std::string::npos)
            << outcome.output;
    }
    EXPECT_TRUE(is_png(dir / "t.png"));
}

// memusage and memusagestat point to their help alike.
TEST(CommandLine, BothToolsQuoteTheirHelpHintAlike) {
    const Outcome ours = run({MEMUSAGESTAT, "--bogus"});
    const Outcome driver = run({MEMUSAGE_DRIVER, "--bogus"});
    EXPECT_NE(ours.output.find(
                  "Try 'memusagestat --help' or 'memusagestat --usage' for more information.\n"),
              std::string::npos)
        << ours.output;
    EXPECT_NE(
        driver.output.find("Try 'memusage --help' or 'memusage --usage' for more information.\n"),
        std::string::npos)
        << driver.output;
}
