// SPDX-License-Identifier: MIT
// Runs fixture programs with a collector preloaded, in a controlled environment, and
// reads back what the collector produced: the summary on standard error and the data file.
#pragma once

#include <memusage/record.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/scratch_directory.h"

namespace collector_test {

// Cross runs (tests/cross/run.sh) test another machine's build on this one: its fixtures
// and collector, named by these variables, run through its emulator. Unset, this build's.
//   MEMUSAGE_TEST_BUILD_DIR        the other machine's build tree (its fixtures)
//   MEMUSAGE_TEST_COLLECTOR        its libmemusage.so
//   MEMUSAGE_TEST_GLIBC_COLLECTOR  glibc's libmemusage.so for it
//   MEMUSAGE_TEST_EMULATOR         the command that runs its programs ("qemu-arm-static -L DIR")
// (MEMUSAGE_* never reaches the programs run.)
std::string from_environment(const char* name, const std::string& otherwise);

inline const std::string kOurCollector = from_environment("MEMUSAGE_TEST_COLLECTOR", OUR_COLLECTOR);
inline const std::string kGlibcCollector =
    from_environment("MEMUSAGE_TEST_GLIBC_COLLECTOR", GLIBC_COLLECTOR);
inline const std::string kOurMemusagestat = OUR_MEMUSAGESTAT;
inline const std::string kGlibcMemusagestat = "/usr/bin/memusagestat";

// A fixture program built beside the tests (in MEMUSAGE_TEST_BUILD_DIR's tree, if set).
std::string fixture(const std::string& name);

// Whether the program at `path` is built for another machine than this test: it then runs
// through MEMUSAGE_TEST_EMULATOR.
bool built_for_another_machine(const std::string& path);

struct Outcome {
    int status = -1;  // the raw wait status
    std::string out;  // standard output
    std::string err;  // standard error, read through a pipe (never a terminal)
    // run_bounded killed it at its deadline.
    bool timed_out = false;

    bool exited_zero() const;
    int signal() const;  // the signal that killed the program, or 0
};

// Runs argv with `preload` as LD_PRELOAD (empty: none). The environment is ours without
// any MEMUSAGE_*, LD_PRELOAD or NO_COLOR, plus `extra` ("NAME=VALUE"). Core dumps are off,
// so fixtures that crash on purpose leave nothing behind.
Outcome run(const std::vector<std::string>& argv, const std::vector<std::string>& extra = {},
            const std::string& preload = kOurCollector);

// The same with a deadline, for programs that might hang: still running after `seconds`,
// the program is killed with every process it started (they share its process group),
// and the outcome says it timed out.
Outcome run_bounded(int seconds, const std::vector<std::string>& argv,
                    const std::vector<std::string>& extra = {},
                    const std::string& preload = kOurCollector);

// One row of the summary, e.g. " malloc|": calls, bytes, failed (0 for the free row).
struct Row {
    uint64_t calls = 0, bytes = 0, failed = 0;
};

struct Summary {
    uint64_t heap_total = 0, heap_peak = 0, stack_peak = 0;
    std::map<std::string, Row> rows;  // keyed by the trimmed label: "malloc", "mmap(a)", ...
    int64_t realloc_nomove = 0, realloc_dec = 0, realloc_free = 0;
    int64_t mremap_nomove = 0, mremap_dec = 0;
    std::map<std::string, uint64_t> histogram;  // "0-15" or "large" -> count

    const Row& row(const std::string& label) const;
    bool has_row(const std::string& label) const { return rows.count(label) != 0; }
};

// How many summaries the text holds (forked children print their own).
int count_summaries(const std::string& text);

// Parses the first summary in text (escape sequences are ignored); fails the current
// test when there is none.
Summary parse_summary(const std::string& text);

// The summary text with the stack peak figure blanked out: the one number that
// depends on the collector's own stack use.
std::string without_stack_peak(const std::string& text);

// The data file as records; fails the current test when its size is not a multiple of 24.
std::vector<memusage::Record> read_records(const std::string& path);

// The heap column of the event records (record 2 on).
std::vector<uint64_t> event_heaps(const std::vector<memusage::Record>& records);

// True when the records' times never go backwards from record 2 on.
bool events_in_time_order(const std::vector<memusage::Record>& records);

// A private directory per test, removed with it.
class Scratch {
  public:
    std::string operator/(const std::string& name) const { return directory_.file(name); }
    const std::string& path() const { return directory_.path(); }

  private:
    test_support::ScratchDirectory directory_{"memusage-collector-test"};
};

bool glibc_collector_present();

}  // namespace collector_test
