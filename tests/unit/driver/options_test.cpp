// SPDX-License-Identifier: MIT
#include "options.h"

#include <gtest/gtest.h>

#include <cctype>

namespace memusage {
namespace {

using Words = std::vector<std::string>;

ParsedCommandLine parse(Words words) { return parse_command_line(words); }

// A readable, stable test name from the words a case passes: "--pr=t1" -> "__pr_t1_3".
template <typename Case>
std::string name_from_words(const ::testing::TestParamInfo<Case>& info) {
    std::string name;
    for (const std::string& word : info.param.words) {
        for (char c : word) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        name += '_';
    }
    return name + std::to_string(info.index);
}

DriverOptions parse_ok(Words words) {
    ParsedCommandLine result = parse(std::move(words));
    EXPECT_EQ(result.action, DriverAction::run) << result.error;
    return result.options;
}

std::string parse_error(Words words) {
    ParsedCommandLine result = parse(std::move(words));
    EXPECT_EQ(result.action, DriverAction::fail);
    return result.error;
}

TEST(DriverOptions, ProgramAloneGetsDefaults) {
    DriverOptions options = parse_ok({"prog"});
    EXPECT_EQ(options.command, Words{"prog"});
    EXPECT_TRUE(options.progname.empty());
    EXPECT_TRUE(options.png_path.empty());
    EXPECT_TRUE(options.data_path.empty());
    EXPECT_TRUE(options.buffer_size.empty());
    EXPECT_FALSE(options.no_timer);
    EXPECT_FALSE(options.trace_mmap);
    EXPECT_FALSE(options.color.has_value());
    EXPECT_FALSE(options.time_based);
    EXPECT_FALSE(options.total);
    EXPECT_TRUE(options.title.empty());
    EXPECT_FALSE(options.width.has_value());
    EXPECT_FALSE(options.height.has_value());
}

// Every option that takes a value, in each of its spellings.
struct ValueForm {
    Words words;
    std::string DriverOptions::*field;
    std::string expected;
};

class ValueOptionForms : public ::testing::TestWithParam<ValueForm> {};

TEST_P(ValueOptionForms, SetsTheField) {
    Words words = GetParam().words;
    words.push_back("prog");
    DriverOptions options = parse_ok(words);
    EXPECT_EQ(options.*GetParam().field, GetParam().expected);
    EXPECT_EQ(options.command, Words{"prog"});
}

INSTANTIATE_TEST_SUITE_P(
    AllSpellings, ValueOptionForms,
    ::testing::Values(ValueForm{{"-n", "t1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"-nt1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"--progname=t1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"--progname", "t1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"--prog", "t1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"--pr=t1"}, &DriverOptions::progname, "t1"},
                      ValueForm{{"-p", "out.png"}, &DriverOptions::png_path, "out.png"},
                      ValueForm{{"-p", "out"}, &DriverOptions::png_path, "out.png"},
                      ValueForm{{"--png=out"}, &DriverOptions::png_path, "out.png"},
                      ValueForm{{"--png", "a.b"}, &DriverOptions::png_path, "a.b.png"},
                      ValueForm{{"--pn=x"}, &DriverOptions::png_path, "x.png"},
                      ValueForm{{"-d", "run.dat"}, &DriverOptions::data_path, "run.dat"},
                      ValueForm{{"--data=run.dat"}, &DriverOptions::data_path, "run.dat"},
                      ValueForm{{"--data", "run.dat"}, &DriverOptions::data_path, "run.dat"},
                      ValueForm{{"--da=run.dat"}, &DriverOptions::data_path, "run.dat"},
                      ValueForm{{"--d", "run.dat"}, &DriverOptions::data_path, "run.dat"},
                      ValueForm{{"-b", "100"}, &DriverOptions::buffer_size, "100"},
                      ValueForm{{"-b100"}, &DriverOptions::buffer_size, "100"},
                      ValueForm{{"--buffer=100"}, &DriverOptions::buffer_size, "100"},
                      ValueForm{{"--buf", "100"}, &DriverOptions::buffer_size, "100"},
                      ValueForm{{"-u"}, &DriverOptions::buffer_size, "1"},
                      ValueForm{{"--unbuffered"}, &DriverOptions::buffer_size, "1"},
                      ValueForm{{"--un"}, &DriverOptions::buffer_size, "1"},
                      ValueForm{{"--title=My Graph"}, &DriverOptions::title, "My Graph"},
                      ValueForm{{"--title", "two  spaces"}, &DriverOptions::title, "two  spaces"},
                      ValueForm{{"--tit=x y"}, &DriverOptions::title, "x y"}),
    name_from_words<ValueForm>);

// Every switch, short and long and abbreviated.
struct SwitchForm {
    Words words;
    bool DriverOptions::*field;
};

class SwitchOptionForms : public ::testing::TestWithParam<SwitchForm> {};

TEST_P(SwitchOptionForms, SetsTheFlag) {
    Words words = GetParam().words;
    words.push_back("prog");
    EXPECT_TRUE(parse_ok(words).*GetParam().field);
}

INSTANTIATE_TEST_SUITE_P(AllSpellings, SwitchOptionForms,
                         ::testing::Values(SwitchForm{{"--no-timer"}, &DriverOptions::no_timer},
                                           SwitchForm{{"--no"}, &DriverOptions::no_timer},
                                           SwitchForm{{"--n"}, &DriverOptions::no_timer},
                                           SwitchForm{{"-m"}, &DriverOptions::trace_mmap},
                                           SwitchForm{{"--mmap"}, &DriverOptions::trace_mmap},
                                           SwitchForm{{"--mm"}, &DriverOptions::trace_mmap},
                                           SwitchForm{{"-t"}, &DriverOptions::time_based},
                                           SwitchForm{{"--time-based"}, &DriverOptions::time_based},
                                           SwitchForm{{"--tim"}, &DriverOptions::time_based},
                                           SwitchForm{{"-T"}, &DriverOptions::total},
                                           SwitchForm{{"--total"}, &DriverOptions::total},
                                           SwitchForm{{"--to"}, &DriverOptions::total}),
                         name_from_words<SwitchForm>);

TEST(DriverOptions, SizesInEveryForm) {
    for (const Words& words :
         {Words{"-x", "400", "-y", "300", "p"}, Words{"-x400", "-y300", "p"},
          Words{"--x-size=400", "--y-size=300", "p"},
          Words{"--x-size", "400", "--y-size", "300", "p"}, Words{"--x-s=400", "--y-s", "300", "p"},
          Words{"--x", "400", "--y=300", "p"}}) {
        DriverOptions options = parse_ok(words);
        EXPECT_EQ(options.width, 400u);
        EXPECT_EQ(options.height, 300u);
    }
}

TEST(DriverOptions, Colour) {
    EXPECT_EQ(parse_ok({"--color=always", "p"}).color, ColorWhen::always);
    EXPECT_EQ(parse_ok({"--color", "never", "p"}).color, ColorWhen::never);
    EXPECT_EQ(parse_ok({"--col=auto", "p"}).color, ColorWhen::automatic);
    EXPECT_NE(parse_error({"--color=sometimes", "p"}).find("'sometimes'"), std::string::npos);
}

TEST(DriverOptions, ShortSwitchesBundle) {
    DriverOptions options = parse_ok({"-umtT", "p"});
    EXPECT_EQ(options.buffer_size, "1");
    EXPECT_TRUE(options.trace_mmap);
    EXPECT_TRUE(options.time_based);
    EXPECT_TRUE(options.total);
}

TEST(DriverOptions, LaterOptionWinsLikeTheScript) {
    EXPECT_EQ(parse_ok({"-u", "-b", "50", "p"}).buffer_size, "50");
    EXPECT_EQ(parse_ok({"-b", "50", "-u", "p"}).buffer_size, "1");
    EXPECT_EQ(parse_ok({"-n", "a", "--progname=b", "p"}).progname, "b");
}

TEST(DriverOptions, EmptyValuesMeanNotGivenLikeTheScript) {
    DriverOptions options = parse_ok({"-p", "", "-d", "", "-n", "", "p"});
    EXPECT_TRUE(options.png_path.empty());
    EXPECT_TRUE(options.data_path.empty());
    EXPECT_TRUE(options.progname.empty());
}

TEST(DriverOptions, ValueMayLookLikeAnOptionName) {
    // "x" guesses --x-size and "t" is ambiguous as an option, but here they are values.
    EXPECT_EQ(parse_ok({"-p", "x", "prog"}).png_path, "x.png");
    EXPECT_EQ(parse_ok({"-n", "t", "prog"}).progname, "t");
    EXPECT_EQ(parse_ok({"--title", "total", "prog"}).title, "total");
}

TEST(DriverOptions, HelpUsageVersion) {
    EXPECT_EQ(parse({"--help"}).action, DriverAction::help);
    EXPECT_EQ(parse({"-?"}).action, DriverAction::help);
    EXPECT_EQ(parse({"--h"}).action, DriverAction::help);
    EXPECT_EQ(parse({"--usage"}).action, DriverAction::usage);
    EXPECT_EQ(parse({"--us"}).action, DriverAction::usage);
    EXPECT_EQ(parse({"--version"}).action, DriverAction::version);
    EXPECT_EQ(parse({"-V"}).action, DriverAction::version);
    EXPECT_EQ(parse({"--v"}).action, DriverAction::version);
    // They need no program, and the first one wins.
    EXPECT_EQ(parse({"--version", "--help"}).action, DriverAction::version);
    // After the program they are the program's.
    EXPECT_EQ(parse({"prog", "--help"}).action, DriverAction::run);
}

TEST(DriverOptions, AmbiguousPrefixesAreErrors) {
    // The possibilities in the order --help lists them.
    EXPECT_EQ(parse_error({"--p", "x", "prog"}),
              "memusage: option '--p' is ambiguous; possibilities: '--progname' '--png' '--ps' "
              "'--pprof'");
    EXPECT_EQ(parse_error({"--t", "prog"}),
              "memusage: option '--t' is ambiguous; possibilities: '--threads' '--time-based' "
              "'--total' '--title'");
    EXPECT_EQ(parse_error({"--ti", "prog"}),
              "memusage: option '--ti' is ambiguous; possibilities: '--time-based' '--title'");
    EXPECT_EQ(parse_error({"--u", "prog"}),
              "memusage: option '--u' is ambiguous; possibilities: '--unbuffered' '--usage'");
    EXPECT_NE(parse_error({"--ti=x", "prog"}).find("is ambiguous"), std::string::npos);
}

TEST(DriverOptions, UnknownOptionsAreErrors) {
    EXPECT_EQ(parse_error({"--frobnicate", "prog"}),
              "memusage: unrecognized option '--frobnicate'");
    EXPECT_EQ(parse_error({"-z", "prog"}), "memusage: unrecognized option '-z'");
    EXPECT_EQ(parse_error({"---x", "1", "prog"}), "memusage: unrecognized option '---x'");
    EXPECT_EQ(parse_error({"--=x", "prog"}), "memusage: unrecognized option '--=x'");
    EXPECT_EQ(parse_error({"--no-timer=yes", "prog"}),
              "memusage: option '--no-timer' does not take any arguments");
    // No hidden name for the program's words.
    EXPECT_EQ(parse_error({"--command", "prog"}), "memusage: unrecognized option '--command'");
}

TEST(DriverOptions, MissingValuesAreErrors) {
    EXPECT_EQ(parse_error({"-n"}), "memusage: option '--progname' requires an argument");
    EXPECT_EQ(parse_error({"--png"}), "memusage: option '--png' requires an argument");
    EXPECT_EQ(parse_error({"-x"}), "memusage: option '--x-size' requires an argument");
    EXPECT_EQ(parse_error({"--title"}), "memusage: option '--title' requires an argument");
}

TEST(DriverOptions, BadNumbersAreErrors) {
    EXPECT_EQ(parse_error({"-x", "wide", "p"}), "memusage: invalid width 'wide' for '--x-size'");
    EXPECT_EQ(parse_error({"-y", "-3", "p"}), "memusage: invalid height '-3' for '--y-size'");
    EXPECT_EQ(parse_error({"-b", "10k", "p"}),
              "memusage: invalid buffer size '10k' for '--buffer'");
    EXPECT_EQ(parse_error({"-x", "99999999999", "p"}),
              "memusage: invalid width '99999999999' for '--x-size'");
}

TEST(DriverOptions, NoProgramIsAnError) {
    EXPECT_EQ(parse_error({}), "No program name given");
    EXPECT_EQ(parse_error({"-m", "-u"}), "No program name given");
    EXPECT_EQ(parse_error({"--"}), "No program name given");
}

TEST(DriverOptions, OptionsStopAtTheProgram) {
    DriverOptions options = parse_ok({"-m", "prog", "-p", "x", "--data", "--help", "-n"});
    EXPECT_EQ(options.command, (Words{"prog", "-p", "x", "--data", "--help", "-n"}));
    EXPECT_TRUE(options.png_path.empty());
    EXPECT_TRUE(options.trace_mmap);
}

TEST(DriverOptions, DoubleDashEndsOptions) {
    EXPECT_EQ(parse_ok({"--", "-n", "x"}).command, (Words{"-n", "x"}));
    EXPECT_EQ(parse_ok({"-u", "--", "prog", "--"}).command, (Words{"prog", "--"}));
    // A -- after the program is the program's.
    EXPECT_EQ(parse_ok({"prog", "--", "-m"}).command, (Words{"prog", "--", "-m"}));
}

TEST(DriverOptions, LoneDashIsAProgramWord) {
    EXPECT_EQ(parse_ok({"-", "a"}).command, (Words{"-", "a"}));
}

TEST(DriverOptions, ProgramArgumentsKeepSpaces) {
    EXPECT_EQ(parse_ok({"prog", "a b", ""}).command, (Words{"prog", "a b", ""}));
}

TEST(DriverOptions, OutOfMemoryTestingOptionsAreValidated) {
    DriverOptions options =
        parse_ok({"--limit=1M", "--fail-probability", "0.25", "--fail-seed=7", "--threads", "p"});
    EXPECT_EQ(options.limit, "1M");
    EXPECT_EQ(options.fail_probability, "0.25");
    EXPECT_EQ(options.fail_seed, "7");
    EXPECT_TRUE(options.thread_table);
    EXPECT_EQ(parse_ok({"--fail-at=5", "p"}).fail_at, "5");
    EXPECT_EQ(parse_ok({"--fail-from", "12", "p"}).fail_from, "12");
    EXPECT_EQ(parse_ok({"--lim=2GiB", "p"}).limit, "2GiB");  // prefixes, as for every option

    EXPECT_EQ(parse_error({"--limit=12q", "p"}),
              "memusage: invalid size '12q' for '--limit'; use digits, then nothing or k, M, G "
              "(KiB, MiB, GiB)");
    EXPECT_EQ(parse_error({"--limit=-5", "p"}).substr(0, 31), "memusage: invalid size '-5' for");
    EXPECT_EQ(parse_error({"--fail-at=0", "p"}),
              "memusage: invalid call number '0' for '--fail-at'; calls are counted from 1");
    EXPECT_EQ(parse_error({"--fail-from=-3", "p"}).substr(0, 38),
              "memusage: invalid call number '-3' for");
    EXPECT_EQ(parse_error({"--fail-probability=1.5", "p"}),
              "memusage: invalid probability '1.5' for '--fail-probability'; use a number from 0 "
              "to 1");
    EXPECT_EQ(parse_error({"--fail-seed=x", "--fail-probability=0.1", "p"}),
              "memusage: invalid seed 'x' for '--fail-seed'; use digits");
    EXPECT_EQ(parse_error({"--fail-at=1", "--fail-from=2", "p"}),
              "memusage: --fail-at, --fail-from and --fail-probability exclude each other");
    EXPECT_EQ(parse_error({"--fail-seed=1", "p"}),
              "memusage: --fail-seed goes with --fail-probability");
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

// --sites takes its count only as --sites=N: the word after a bare --sites is the program.
TEST(DriverSitesOption, ABareSitesIsFollowedByTheProgram) {
    DriverOptions options = parse_ok({"--sites", "prog", "arg"});
    EXPECT_EQ(options.sites, kDefaultSitesShown);
    EXPECT_EQ(options.command, (Words{"prog", "arg"}));
    options = parse_ok({"--sites", "./prog"});
    EXPECT_EQ(options.sites, kDefaultSitesShown);
    EXPECT_EQ(options.command, Words{"./prog"});
    // "--sit" could be --sites or --sites-sample.
    EXPECT_NE(parse_error({"--sit", "./prog"}).find("ambiguous"), std::string::npos);
    options = parse_ok({"--sites", "-m", "prog"});
    EXPECT_EQ(options.sites, kDefaultSitesShown);
    EXPECT_TRUE(options.trace_mmap);
    EXPECT_EQ(options.command, Words{"prog"});
    options = parse_ok({"--sites", "--", "prog"});
    EXPECT_EQ(options.command, Words{"prog"});
}

TEST(DriverSitesOption, ACountComesAfterAnEqualsSign) {
    DriverOptions options = parse_ok({"--sites=3", "prog"});
    EXPECT_EQ(options.sites, 3u);
    EXPECT_EQ(options.command, Words{"prog"});
    EXPECT_FALSE(parse_ok({"prog"}).sites.has_value());
    EXPECT_EQ(parse_ok({"prog", "--sites"}).command, (Words{"prog", "--sites"}));
    EXPECT_EQ(parse_error({"--sites=0", "prog"}),
              "memusage: invalid number of sites '0' for '--sites'");
    EXPECT_EQ(parse_error({"--sites=x", "prog"}),
              "memusage: invalid number of sites 'x' for '--sites'");
}

// --sites-sample[=BYTES]: sampled sites, reported as --sites reports them; its interval
// only after "=", as --sites takes its count.
TEST(DriverSitesOption, SamplingHasADefaultIntervalAndImpliesTheReport) {
    DriverOptions options = parse_ok({"--sites-sample", "prog", "arg"});
    EXPECT_EQ(options.sites_sample, "524288");
    EXPECT_EQ(options.sites, kDefaultSitesShown);
    EXPECT_EQ(options.command, (Words{"prog", "arg"}));
    options = parse_ok({"--sites-s", "-m", "prog"});
    EXPECT_EQ(options.sites_sample, "524288");
    EXPECT_TRUE(options.trace_mmap);
    options = parse_ok({"--sites=3", "--sites-sample=64k", "prog"});
    EXPECT_EQ(options.sites_sample, "64k");
    EXPECT_EQ(options.sites, 3u);
    EXPECT_EQ(options.command, Words{"prog"});
    EXPECT_TRUE(parse_ok({"prog"}).sites_sample.empty());
    EXPECT_EQ(parse_error({"--sites-sample=0", "prog"}).substr(0, 60),
              "memusage: invalid sampling interval '0' for '--sites-sample'");
    EXPECT_NE(parse_error({"--sites-sample=2G", "prog"}).find("invalid sampling interval"),
              std::string::npos);
}

TEST(DriverEventsOption, NamesTheRecordingsFile) {
    DriverOptions options = parse_ok({"--events=run.events", "prog"});
    EXPECT_EQ(options.events_path, "run.events");
    EXPECT_EQ(parse_ok({"--ev", "x", "prog"}).events_path, "x");
    EXPECT_EQ(parse_ok({"prog"}).events_path, "");
    EXPECT_EQ(parse_error({"--events", "", "prog"}),
              "memusage: invalid file name '' for '--events'");
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

TEST(DriverOptions, SiteReportsAndExports) {
    DriverOptions options = parse_ok(
        {"--leak-exitcode=3", "--folded", "f.txt", "--folded-metric=leaked", "--dhat=d.json", "p"});
    EXPECT_TRUE(options.leaks) << "--leak-exitcode implies --leaks";
    EXPECT_EQ(options.leak_exitcode, 3u);
    EXPECT_EQ(options.folded_path, "f.txt");
    EXPECT_EQ(options.folded_metric, "leaked");
    EXPECT_EQ(options.dhat_path, "d.json");
    EXPECT_FALSE(options.sites.has_value());
    EXPECT_TRUE(parse_ok({"--leaks", "p"}).leaks);
    EXPECT_EQ(parse_ok({"--dh=x", "p"}).dhat_path, "x");
    // glibc's --d still means --data, though --dhat shares the prefix.
    EXPECT_EQ(parse_ok({"--d=run.dat", "p"}).data_path, "run.dat");
    EXPECT_EQ(parse_ok({"--d", "run.dat", "p"}).data_path, "run.dat");
    EXPECT_EQ(parse_error({"--leak-exitcode=256", "p"}),
              "memusage: invalid exit status '256' for '--leak-exitcode'; use 0 to 255");
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

TEST(DriverOptions, LongLivedIsKeptAsGiven) {
    // Checked by the driver before the run (memusagestat's duration reader).
    EXPECT_EQ(parse_ok({"--long-lived=1.5s", "p"}).long_lived, "1.5s");
    EXPECT_EQ(parse_ok({"--lo", "300ms", "p"}).long_lived, "300ms");
}

TEST(DriverHtmlOption, NamesTheReportsFile) {
    EXPECT_EQ(parse_ok({"--html=report.html", "prog"}).html_path, "report.html");
    EXPECT_EQ(parse_ok({"--html", "r.html", "prog"}).html_path, "r.html");
    EXPECT_EQ(parse_ok({"--ht", "r.html", "prog"}).html_path, "r.html");
    EXPECT_EQ(parse_ok({"prog"}).html_path, "");
    // The report's name is taken as it is: no extension added, unlike -p's.
    EXPECT_EQ(parse_ok({"--html=report", "prog"}).html_path, "report");
    EXPECT_EQ(parse_error({"--html", "", "prog"}), "memusage: invalid file name '' for '--html'");
    EXPECT_EQ(parse_error({"--html"}), "memusage: option '--html' requires an argument");
    // The program's own --html is the program's.
    EXPECT_EQ(parse_ok({"prog", "--html=x"}).html_path, "");
}

TEST(DriverHtmlOption, SourceDirIsADirectoryThereAndGoesWithTheReport) {
    EXPECT_EQ(parse_ok({"--html=r.html", "--source-dir=/", "prog"}).source_dir, "/");
    EXPECT_EQ(parse_ok({"--html=r.html", "prog"}).source_dir, "");
    EXPECT_EQ(parse_error({"--html=r.html", "--source-dir=/no/such/directory", "prog"}),
              "memusage: invalid directory '/no/such/directory' for '--source-dir': no such "
              "directory");
    EXPECT_EQ(parse_error({"--source-dir=/", "prog"}), "memusage: --source-dir goes with --html");
}

TEST(DriverHtmlOption, HelpKeepsItsShortPrefixes) {
    // glibc's script takes --h, --he and --hel for --help; --html must not make them ambiguous.
    for (const char* word : {"--h", "--he", "--hel", "--help"})
        EXPECT_EQ(parse({word}).action, DriverAction::help) << word;
    EXPECT_EQ(parse({"--htm=r.html", "prog"}).options.html_path, "r.html");
}

TEST(DriverOptions, LiveViewOptions) {
    ParsedCommandLine live = parse({"--live", "prog", "--ps"});
    ASSERT_EQ(live.action, DriverAction::run);
    EXPECT_TRUE(live.options.live);
    EXPECT_FALSE(live.options.list_processes) << "after the program, --ps is the program's";
    ParsedCommandLine ps = parse({"--ps"});
    ASSERT_EQ(ps.action, DriverAction::run) << ps.error;
    EXPECT_TRUE(ps.options.list_processes);
    ParsedCommandLine watch = parse({"--watch=1234"});
    ASSERT_EQ(watch.action, DriverAction::run) << watch.error;
    EXPECT_EQ(watch.options.watch_pid, 1234);
    EXPECT_EQ(parse({"--watch", "12"}).options.watch_pid, 12);
    EXPECT_EQ(parse_error({"--watch=x"}), "memusage: invalid process ID 'x' for '--watch'");
    EXPECT_EQ(parse_error({"--watch=0"}), "memusage: invalid process ID '0' for '--watch'");
    EXPECT_EQ(parse_error({"--ps", "prog"}),
              "memusage: --ps looks at processes already running: it takes no program, and no "
              "--live");
    EXPECT_EQ(parse_error({"--ps", "--watch=3"}), "memusage: --ps and --watch exclude each other");
    EXPECT_EQ(parse_error({"--live"}), "No program name given");
}

TEST(DriverOptions, PsAndWatchRefuseWhatOnlyARunTheyDoNotStartWouldUse) {
    const std::string sites_hint =
        " is for a run memusage starts; the view shows a process's top sites when it was "
        "started with --sites (memusage --live --sites PROGRAM)";
    EXPECT_EQ(parse_error({"--ps", "--sites"}),
              "memusage: --ps looks at processes already running: --sites" + sites_hint);
    EXPECT_EQ(parse_error({"--sites=5", "--ps"}),
              "memusage: --ps looks at processes already running: --sites" + sites_hint);
    EXPECT_EQ(parse_error({"--watch=12", "--sites-sample"}),
              "memusage: --watch looks at processes already running: --sites-sample" + sites_hint);
    EXPECT_EQ(parse_error({"--ps", "-p", "x.png"}),
              "memusage: --ps looks at processes already running: -p is for a run memusage "
              "starts");
    EXPECT_EQ(parse_error({"--watch", "12", "--html=r.html"}),
              "memusage: --watch looks at processes already running: --html is for a run "
              "memusage starts");
    // The colour of the driver's own messages is no run's.
    EXPECT_EQ(parse({"--color=never", "--ps"}).action, DriverAction::run);
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

// Every spelling glibc's memusage script accepts, each meaning what it means there, though
// options of this driver (--massif, --dhat, --html, --ps, --pprof...) share their prefixes.
TEST(DriverOptions, EveryGlibcSpellingMeansWhatItMeansThere) {
    auto each_prefix = [](const std::string& name, size_t shortest) {
        std::vector<std::string> words;
        for (size_t length = shortest; length <= name.size(); ++length)
            words.push_back("--" + name.substr(0, length));
        return words;
    };
    auto check_value = [&](const std::string& name, size_t shortest, const std::string& short_form,
                           std::string DriverOptions::*field, const std::string& expected) {
        std::vector<std::string> words = each_prefix(name, shortest);
        words.push_back(short_form);
        for (const std::string& word : words) {
            EXPECT_EQ(parse_ok({word, "v1", "prog"}).*field, expected) << word;
            if (word.starts_with("--")) {
                EXPECT_EQ(parse_ok({word + "=v1", "prog"}).*field, expected) << word;
            }
        }
    };
    check_value("progname", 2, "-n", &DriverOptions::progname, "v1");
    check_value("png", 2, "-p", &DriverOptions::png_path, "v1.png");
    check_value("data", 1, "-d", &DriverOptions::data_path, "v1");
    check_value("title", 3, "--title", &DriverOptions::title, "v1");
    for (const std::string& word : each_prefix("buffer", 1)) {
        EXPECT_EQ(parse_ok({word, "7", "prog"}).buffer_size, "7") << word;
        EXPECT_EQ(parse_ok({word + "=7", "prog"}).buffer_size, "7") << word;
    }
    for (const std::string& word : each_prefix("x-size", 1))
        EXPECT_EQ(parse_ok({word, "400", "prog"}).width, 400u) << word;
    for (const std::string& word : each_prefix("y-size", 1))
        EXPECT_EQ(parse_ok({word + "=300", "prog"}).height, 300u) << word;
    auto check_switch = [&](const std::string& name, size_t shortest, const char* short_form,
                            auto check) {
        std::vector<std::string> words = each_prefix(name, shortest);
        if (short_form != nullptr) words.push_back(short_form);
        for (const std::string& word : words) EXPECT_TRUE(check(parse_ok({word, "prog"}))) << word;
    };
    check_switch("unbuffered", 2, "-u",
                 [](const DriverOptions& options) { return options.buffer_size == "1"; });
    check_switch("no-timer", 1, nullptr, [](const DriverOptions& options) {
        return options.no_timer && options.progname.empty();
    });
    check_switch("mmap", 1, "-m", [](const DriverOptions& options) {
        return options.trace_mmap && options.massif_path.empty();
    });
    check_switch("time-based", 3, "-t",
                 [](const DriverOptions& options) { return options.time_based; });
    check_switch("total", 2, "-T", [](const DriverOptions& options) { return options.total; });
    auto check_action = [&](const std::string& name, size_t shortest, const char* short_form,
                            DriverAction action) {
        std::vector<std::string> words = each_prefix(name, shortest);
        if (short_form != nullptr) words.push_back(short_form);
        for (const std::string& word : words) EXPECT_EQ(parse({word}).action, action) << word;
    };
    check_action("version", 1, "-V", DriverAction::version);
    check_action("help", 1, "-?", DriverAction::help);
    check_action("usage", 2, nullptr, DriverAction::usage);
    // And the ones it calls ambiguous.
    for (const char* word : {"--p", "--p=x", "--t", "--t=x", "--ti", "--ti=x", "--u"})
        EXPECT_NE(parse_error({word, "prog"}).find("is ambiguous"), std::string::npos) << word;
}

}  // namespace
}  // namespace memusage
