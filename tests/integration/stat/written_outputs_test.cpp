// SPDX-License-Identifier: MIT
// Every file memusagestat writes fails, when it cannot be written whole, with a message that
// names it and says why, and a non-zero status: under a file size limit (ulimit -f), which
// must not kill memusagestat by SIGXFSZ halfway, and on a full disk.
#include <gtest/gtest.h>

#include "stat_test_support.h"

using namespace stat_test;

namespace {

// The pictures' fixture run under our collector: its data file, sites file and recording.
struct Recorded {
    std::string data, sites, events;
};

Recorded record(const ScratchDir& dir) {
    Recorded recorded{dir / "run.dat", dir / "run.sites", dir / "run.events"};
    const Outcome outcome =
        run({FIXTURE_PICTURES}, {"LD_PRELOAD=" OUR_LIBMEMUSAGE, "MEMUSAGE_OUTPUT=" + recorded.data,
                                 "MEMUSAGE_SITES=" + recorded.sites,
                                 "MEMUSAGE_EVENTS=" + recorded.events, "MEMUSAGE_COLOR=never"});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    return recorded;
}

// memusagestat's arguments that write `out`, one set per kind of file it writes.
std::vector<std::vector<std::string>> every_output(const Recorded& run, const std::string& out) {
    const std::string sites = "--sites=" + run.sites, events = "--events=" + run.events;
    return {
        {run.data, out + ".png"},
        {run.data, out + ".svg"},
        {run.data, out + ".pdf"},
        {sites, "--folded=" + out},
        {sites, "--dhat=" + out, events},
        {sites, "--pprof=" + out},
        {sites, "--massif=" + out, events},
        {sites, "--flame=" + out + ".png"},
        {sites, events, "--stacked=" + out + ".svg"},
        {sites, events, "--block-map=" + out + ".pdf"},
        {"--html=" + out, run.data, sites, events},
    };
}

std::string named_output(const std::vector<std::string>& arguments, const std::string& out) {
    for (const std::string& argument : arguments)
        if (const std::size_t at = argument.find(out); at != std::string::npos)
            return argument.substr(at);
    return out;
}

TEST(WrittenOutputs, AFileSizeLimitFailsEachOutputWithItsReason) {
    ScratchDir dir;
    const Recorded recorded = record(dir);
    const std::string out = dir / "out";
    for (const std::vector<std::string>& arguments : every_output(recorded, out)) {
        const std::string file = named_output(arguments, out);
        SCOPED_TRACE(file);
        // 16 bytes: less than any of them, more than nothing, so that a file is cut short.
        // The messages come through a pipe, which the limit does not stop.
        std::vector<std::string> limited = {
            "/bin/sh", "-c",
            "(/usr/bin/prlimit --fsize=16:unlimited \"$@\" 2>&1; echo \"status $?\") | cat", "sh",
            MEMUSAGESTAT};
        limited.insert(limited.end(), arguments.begin(), arguments.end());
        const Outcome outcome = run(limited);
        EXPECT_TRUE(outcome.output.ends_with("status 1\n")) << "(153 is SIGXFSZ's)\n"
                                                            << outcome.output;
        EXPECT_NE(outcome.output.find("memusagestat: cannot write " + file + ": File too large\n"),
                  std::string::npos)
            << outcome.output;
        // And without the limit the same command writes it.
        const Outcome unlimited = run([&] {
            std::vector<std::string> plain = {MEMUSAGESTAT};
            plain.insert(plain.end(), arguments.begin(), arguments.end());
            return plain;
        }());
        EXPECT_EQ(unlimited.exit_code, 0) << unlimited.output;
        EXPECT_GT(read_file(file).size(), 16u);
    }
}

// /dev/full takes no byte: every write ends in ENOSPC, as on a full disk.
TEST(WrittenOutputs, AFullDiskFailsEachOutputWithItsReason) {
    ScratchDir dir;
    const Recorded recorded = record(dir);
    for (std::vector<std::string> arguments : every_output(recorded, "/dev/full")) {
        // The pictures' format follows the name's extension, which /dev/full has none of:
        // each picture goes through a link of that extension.
        for (std::string& argument : arguments) {
            const std::size_t at = argument.find("/dev/full.");
            if (at == std::string::npos) continue;
            const std::string link = dir / ("full" + argument.substr(at + 9));
            std::filesystem::create_symlink("/dev/full", link);
            argument = argument.substr(0, at) + link;
        }
        SCOPED_TRACE(arguments[1]);
        std::vector<std::string> command = {MEMUSAGESTAT};
        command.insert(command.end(), arguments.begin(), arguments.end());
        const Outcome outcome = run(command);
        EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
        EXPECT_NE(outcome.output.find("No space left on device"), std::string::npos)
            << outcome.output;
        for (const std::string& argument : arguments)
            if (argument.find(dir / "full.") != std::string::npos)
                std::filesystem::remove(argument.substr(argument.find(dir / "full.")));
    }
}

// A report on standard output that cannot be written fails the run too, though the write
// that fails is only the buffer's last, at exit.
TEST(WrittenOutputs, AReportStandardOutputCannotTakeFailsTheRun) {
    ScratchDir dir;
    const Recorded recorded = record(dir);
    for (const std::string& report :
         {std::string("--sites=") + recorded.sites, std::string("--help")}) {
        SCOPED_TRACE(report);
        const Outcome outcome =
            run({"/bin/sh", "-c", "exec \"$0\" \"$1\" >/dev/full", MEMUSAGESTAT, report});
        EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
        EXPECT_NE(outcome.output.find(
                      "memusagestat: cannot write standard output: No space left on device"),
                  std::string::npos)
            << outcome.output;
    }
}

}  // namespace
