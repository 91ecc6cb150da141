// SPDX-License-Identifier: MIT
// The four files the collector writes (the data file, the event recording, the summary
// file, the sites file) are opened one way: a name that cannot be opened is said with the
// reason of the step that failed, and a FIFO named by mistake never stops the program.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "collector_run.h"

namespace collector_test {
namespace {

struct Output {
    const char* variable;
    const char* what;  // as the warning names it
};

constexpr Output kOutputs[] = {{"MEMUSAGE_OUTPUT", "data file"},
                               {"MEMUSAGE_EVENTS", "events file"},
                               {"MEMUSAGE_SUMMARY_FILE", "summary file"},
                               {"MEMUSAGE_SITES", "allocation sites file"}};

// The run of the calls fixture with `variable` naming `path`: it runs to its end, and says
// once why the file was not written.
void expect_refused(const Output& output, const std::string& path, const std::string& reason) {
    SCOPED_TRACE(output.variable);
    Outcome outcome =
        run_bounded(30, {fixture("collector_fixture_calls")},
                    {std::string(output.variable) + "=" + path, "MEMUSAGE_COLOR=never"});
    ASSERT_FALSE(outcome.timed_out) << "the program waited on " << path;
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_NE(outcome.err.find("memusage: cannot write the " + std::string(output.what) + " " +
                               path + ": " + reason + "\n"),
              std::string::npos)
        << outcome.err;
}

TEST(UnopenableFiles, ANameTooLongIsSaidSo) {
    Scratch scratch;
    const std::string path = scratch / std::string(300, 'x');
    for (const Output& output : kOutputs) expect_refused(output, path, "File name too long");
}

TEST(UnopenableFiles, AMissingDirectoryIsSaidSo) {
    Scratch scratch;
    for (const Output& output : kOutputs)
        expect_refused(output, scratch / "no-such-directory/file", "No such file or directory");
}

// The summary file among them: its open once waited for a reader for ever.
TEST(UnopenableFiles, AFifoIsNotARegularFile) {
    Scratch scratch;
    const std::string fifo = scratch / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    for (const Output& output : kOutputs) expect_refused(output, fifo, "not a regular file");
}

}  // namespace
}  // namespace collector_test
