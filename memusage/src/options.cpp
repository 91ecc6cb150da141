// SPDX-License-Identifier: MIT
#include "options.h"

#include <sys/stat.h>

#include <array>
#include <boost/program_options.hpp>
#include <charconv>
#include <climits>
#include <string_view>

#include "memusage/quantities.h"
#include "memusage/status.h"

namespace po = boost::program_options;

namespace memusage {
namespace {

std::optional<unsigned> parse_unsigned(const std::string& text) {
    unsigned value = 0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
    return value;
}

std::optional<ColorWhen> parse_color(const std::string& text) {
    if (text == "auto") return ColorWhen::automatic;
    if (text == "always") return ColorWhen::always;
    if (text == "never") return ColorWhen::never;
    return std::nullopt;
}

std::string with_png_extension(const std::string& path) {
    if (path.empty() || path.ends_with(".png")) return path;
    return path + ".png";
}

using Value = OptionValue;

InvalidValue set_string(std::string DriverOptions::*field, const std::string& value,
                        DriverOptions& out) {
    out.*field = value;
    return {};
}

// An option without a value that turns one setting on.
template <bool DriverOptions::*field>
InvalidValue switch_on(const std::string&, DriverOptions& out) {
    out.*field = true;
    return {};
}

// A file or directory name that must not be empty.
InvalidValue set_name(std::string DriverOptions::*field, const char* what, const std::string& value,
                      DriverOptions& out) {
    if (value.empty()) return {what};
    out.*field = value;
    return {};
}

// --source-dir=DIR: a directory there now, checked before the program runs.
InvalidValue set_source_dir(const std::string& value, DriverOptions& out) {
    struct stat status {};
    if (value.empty() || ::stat(value.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
        return {"directory", ": no such directory"};
    out.source_dir = value;
    return {};
}

// --sites[=N], --stack-peak[=N]: N above 0, 10 when not given.
InvalidValue set_shown(std::optional<unsigned> DriverOptions::*field, const char* what,
                       const std::string& value, DriverOptions& out) {
    out.*field =
        value.empty() ? std::optional<unsigned>(kDefaultSitesShown) : parse_unsigned(value);
    if (!(out.*field) || *(out.*field) == 0) return {what};
    return {};
}

InvalidValue set_call_number(std::string DriverOptions::*field, const std::string& value,
                             DriverOptions& out) {
    uint64_t number;
    if (!parse_count(value.c_str(), number) || number == 0)
        return {"call number", "; calls are counted from 1"};
    out.*field = value;
    return {};
}

InvalidValue set_sites_sample(const std::string& value, DriverOptions& out) {
    uint64_t bytes;
    std::string interval = value.empty() ? std::to_string(kDefaultSitesSample) : value;
    if (!parse_size(interval.c_str(), bytes) || bytes == 0 || bytes > kMaxSitesSample)
        return {"sampling interval",
                "; use 1 byte to 1G: digits, then nothing or k, M, G (KiB, MiB, GiB)"};
    out.sites_sample = interval;
    return {};
}

InvalidValue set_limit(const std::string& value, DriverOptions& out) {
    uint64_t bytes;
    if (!parse_size(value.c_str(), bytes))
        return {"size", "; use digits, then nothing or k, M, G (KiB, MiB, GiB)"};
    out.limit = value;
    return {};
}

InvalidValue set_probability(const std::string& value, DriverOptions& out) {
    Probability probability;
    if (!parse_probability(value.c_str(), probability))
        return {"probability", "; use a number from 0 to 1"};
    out.fail_probability = value;
    return {};
}

InvalidValue set_seed(const std::string& value, DriverOptions& out) {
    uint64_t seed;
    if (!parse_count(value.c_str(), seed)) return {"seed", "; use digits"};
    out.fail_seed = value;
    return {};
}

template <std::optional<int> DriverOptions::*kField>
InvalidValue set_pid(const std::string& value, DriverOptions& out) {
    std::optional<unsigned> pid = parse_unsigned(value);
    if (!pid || *pid == 0 || *pid > INT_MAX) return {"process ID"};
    out.*kField = static_cast<int>(*pid);
    return {};
}

InvalidValue set_leak_exitcode(const std::string& value, DriverOptions& out) {
    out.leak_exitcode = parse_unsigned(value);
    if (!out.leak_exitcode || *out.leak_exitcode > 255) return {"exit status", "; use 0 to 255"};
    out.leaks = true;
    return {};
}

InvalidValue set_color(const std::string& value, DriverOptions& out) {
    out.color = parse_color(value);
    if (!out.color) return {"argument", "; use 'auto', 'always' or 'never'"};
    return {};
}

// A pixel count of the graph.
InvalidValue set_pixels(std::optional<unsigned> DriverOptions::*field, const char* what,
                        const std::string& value, DriverOptions& out) {
    out.*field = parse_unsigned(value);
    if (!(out.*field)) return {what};
    return {};
}

using O = DriverOptions;
using S = const std::string&;

constexpr const char* kOutOfMemory =
    "\n Out-of-memory testing (allocations fail as glibc's malloc fails, ENOMEM):\n";
constexpr const char* kWithPng = "\n These options only matter together with --png:\n";

// A new option is one row here: the parser, --help, the checks and the hand-over follow.
constexpr std::array kDriverOptions = {
    DriverOption{"progname", 'n', Value::required, "=NAME",
                 "Profile only the process whose program name is NAME",
                 [](S v, O& o) { return set_string(&O::progname, v, o); }},
    DriverOption{"png", 'p', Value::required, "=FILE", "Draw a PNG graph of the run into FILE",
                 [](S v, O& o) -> InvalidValue {
                     o.png_path = with_png_extension(v);
                     return {};
                 }},
    DriverOption{"data", 'd', Value::required, "=FILE", "Keep the binary profile data in FILE",
                 [](S v, O& o) { return set_string(&O::data_path, v, o); }},
    DriverOption{"unbuffered", 'u', Value::none, "", "Write every record at once",
                 [](S, O& o) -> InvalidValue {
                     o.buffer_size = "1";
                     return {};
                 }},
    DriverOption{"buffer", 'b', Value::required, "=SIZE", "Write records out SIZE at a time",
                 [](S v, O& o) -> InvalidValue {
                     if (!parse_unsigned(v)) return {"buffer size"};
                     o.buffer_size = v;
                     return {};
                 }},
    DriverOption{"no-timer", 0, Value::none, "", "Do not sample the stack with a timer",
                 switch_on<&O::no_timer>},
    DriverOption{"mmap", 'm', Value::none, "", "Also trace mmap, mremap and munmap",
                 switch_on<&O::trace_mmap>},
    DriverOption{"color", 0, Value::required, "=WHEN", "Colour the summary: auto, always or never",
                 set_color},
    DriverOption{"threads", 0, Value::none, "", "Add a table with a row per thread to the summary",
                 switch_on<&O::thread_table>},
    DriverOption{"live", 0, Value::none, "",
                 "Show the program's figures on the terminal as it runs", switch_on<&O::live>},
    DriverOption{"ps", 0, Value::none, "", "List the profiled processes running now (no PROGRAM)",
                 switch_on<&O::list_processes>},
    DriverOption{"watch", 0, Value::required, "=PID",
                 "Show the figures of running process PID (no PROGRAM)", set_pid<&O::watch_pid>},
    DriverOption{"attach", 0, Value::required, "=PID",
                 "Profile running process PID from now on (no PROGRAM;\nx86_64): with -d, "
                 "--threads, the sites' reports and\nexports, --events and --html, made at "
                 "--detach",
                 set_pid<&O::attach_pid>},
    DriverOption{"detach", 0, Value::required, "=PID",
                 "Give an attached process back and print its summary\n(and the reports the "
                 "attach asked for)",
                 set_pid<&O::detach_pid>},
    DriverOption{"sites", 0, Value::optional, "[=N]",
                 "After the summary, report the top N (10) allocation\nsites: by bytes at the "
                 "heap peak, leaked, allocated;\nthen the stack peaks, as --stack-peak",
                 [](S v, O& o) { return set_shown(&O::sites, "number of sites", v, o); }},
    DriverOption{"stack-peak", 0, Value::optional, "[=N]",
                 "After the summary, report the frames holding the main\nthread's deepest stack "
                 "and the N (10) deepest other\nthreads', with the bytes each held",
                 [](S v, O& o) { return set_shown(&O::stack_peak, "number of threads", v, o); },
                 DriverAction::run, "", "stack-peak"},
    DriverOption{"sites-sample", 0, Value::optional, "[=BYTES]",
                 "The same from a sample: a stack every BYTES\n(512k) allocated on average; "
                 "figures are estimates",
                 set_sites_sample},
    DriverOption{"sites-file", 0, Value::required, "=FILE",
                 "Keep the allocation sites in FILE (for memusagestat)",
                 [](S v, O& o) { return set_name(&O::sites_path, "file name", v, o); }},
    DriverOption{"events", 0, Value::required, "=FILE",
                 "Record every heap block's allocation, resize and free\n(address, size, thread, "
                 "site) in FILE",
                 [](S v, O& o) { return set_name(&O::events_path, "file name", v, o); }},
    DriverOption{"leaks", 0, Value::none, "",
                 "After the summary, report the blocks never freed,\nby stack, largest first",
                 switch_on<&O::leaks>, DriverAction::run, "", "leaks"},
    DriverOption{"leak-exitcode", 0, Value::required, "=N",
                 "Exit with status N when there are leaks (--leaks)", set_leak_exitcode,
                 DriverAction::run, "", "leak-exitcode"},
    DriverOption{"folded", 0, Value::required, "=FILE",
                 "Write the sites as folded stacks (FlameGraph)",
                 [](S v, O& o) { return set_string(&O::folded_path, v, o); }, DriverAction::run, "",
                 "folded"},
    DriverOption{"folded-metric", 0, Value::required, "=M",
                 "Weigh them by peak (default), leaked, allocated\nor blocks; kept: what the "
                 "runtimes keep",
                 [](S v, O& o) { return set_string(&O::folded_metric, v, o); }, DriverAction::run,
                 "", "folded-metric"},
    DriverOption{"dhat", 0, Value::required, "=FILE",
                 "Write the sites as DHAT JSON (dh_view.html), with\ntheir blocks' lifetimes",
                 [](S v, O& o) { return set_string(&O::dhat_path, v, o); }, DriverAction::run, "",
                 "dhat"},
    DriverOption{"pprof", 0, Value::required, "=FILE",
                 "Write the sites as a pprof profile (go tool pprof,\nfleet profilers): "
                 "allocated, at the peak, leaked",
                 [](S v, O& o) { return set_name(&O::pprof_path, "file name", v, o); },
                 DriverAction::run, "", "pprof"},
    DriverOption{"massif", 0, Value::required, "=FILE",
                 "Write the heap's peak and end by stack in massif's\nformat (ms_print, "
                 "massif-visualizer)",
                 [](S v, O& o) { return set_name(&O::massif_path, "file name", v, o); },
                 DriverAction::run, "", "massif"},
    DriverOption{"long-lived", 0, Value::required, "=DURATION",
                 "After the summary, report the sites of blocks\nthat lived longer than DURATION "
                 "(500ms, 2s, 100us)",
                 [](S v, O& o) { return set_string(&O::long_lived, v, o); }, DriverAction::run, "",
                 "long-lived"},
    DriverOption{"html", 0, Value::required, "=FILE",
                 "Write the run's HTML report into FILE: summary,\ntimeline, flame graph, sites, "
                 "block map, threads\nand leaks in one file that opens offline in a\nbrowser "
                 "(keep its inputs with --keep, or --data,\n--sites-file and --events)",
                 [](S v, O& o) { return set_name(&O::html_path, "file name", v, o); }},
    DriverOption{"source-dir", 0, Value::required, "=DIR",
                 "With --html: look for the source files not at their\nrecorded paths under DIR "
                 "(a tree moved since the\nbuild)",
                 set_source_dir, DriverAction::run, "", "", "", "html"},
    DriverOption{"keep", 0, Value::required, "=DIR",
                 "Keep the run's files in DIR (made if missing):\nrun.dat, run.sites, run.events, "
                 "run.summary, for\nmemusagestat (--html-window: a window's report)",
                 [](S v, O& o) { return set_name(&O::keep_dir, "directory name", v, o); }},
    DriverOption{"limit", 0, Value::required, "=SIZE",
                 "Refuse allocations that would take the heap past\nSIZE bytes (suffixes k, M, G "
                 "or KiB, MiB, GiB)",
                 set_limit, DriverAction::run, kOutOfMemory},
    DriverOption{"fail-at", 0, Value::required, "=N", "Make the Nth allocation call fail",
                 [](S v, O& o) { return set_call_number(&O::fail_at, v, o); }, DriverAction::run,
                 "", "", "fail"},
    DriverOption{"fail-from", 0, Value::required, "=N",
                 "Make every allocation call from the Nth on fail",
                 [](S v, O& o) { return set_call_number(&O::fail_from, v, o); }, DriverAction::run,
                 "", "", "fail"},
    DriverOption{"fail-probability", 0, Value::required, "=P",
                 "Make each allocation call fail with probability P", set_probability,
                 DriverAction::run, "", "", "fail"},
    DriverOption{"fail-seed", 0, Value::required, "=S",
                 "The seed for --fail-probability (default 0)", set_seed, DriverAction::run, "", "",
                 "", "fail-probability"},
    DriverOption{"help", '?', Value::none, "", "Print this help and exit", nullptr,
                 DriverAction::help, "\n"},
    DriverOption{"usage", 0, Value::none, "", "Print a short usage message and exit", nullptr,
                 DriverAction::usage},
    DriverOption{"version", 'V', Value::none, "", "Print the version and exit", nullptr,
                 DriverAction::version},
    DriverOption{"time-based", 't', Value::none, "", "Make the graph linear in time",
                 switch_on<&O::time_based>, DriverAction::run, kWithPng},
    DriverOption{"total", 'T', Value::none, "", "Also draw the total of heap and stack",
                 switch_on<&O::total>},
    DriverOption{"title", 0, Value::required, "=STRING", "Put STRING on top of the graph",
                 [](S v, O& o) { return set_string(&O::title, v, o); }},
    DriverOption{"x-size", 'x', Value::required, "=SIZE", "Make the graph SIZE pixels wide",
                 [](S v, O& o) { return set_pixels(&O::width, "width", v, o); }},
    DriverOption{"y-size", 'y', Value::required, "=SIZE", "Make the graph SIZE pixels high",
                 [](S v, O& o) { return set_pixels(&O::height, "height", v, o); }},
};

const DriverOption* find_option(const std::string& name) {
    for (const DriverOption& option : kDriverOptions)
        if (option.name == name) return &option;
    return nullptr;
}

po::options_description driver_option_table() {
    po::options_description table;
    // Only the arity matters here; values are checked by each row's apply, in command-line
    // order. An optional value is only ever given after "=" (see optional_value_option_named).
    for (const DriverOption& option : kDriverOptions) {
        std::string name(option.name);
        if (option.short_name) name += std::string(",") + option.short_name;
        if (option.value == Value::none)
            table.add_options()(name.c_str(), po::bool_switch());
        else if (option.value == Value::required)
            table.add_options()(name.c_str(), po::value<std::string>());
        else
            table.add_options()(name.c_str(), po::value<std::string>()->implicit_value(""));
    }
    return table;
}

bool takes_optional_value(const std::string& long_name) {
    const DriverOption* row = find_option(long_name);
    return row && row->value == OptionValue::optional;
}

// "--sites", "--stack-peak" or "--sites-sample" (or a prefix only one of them has) without
// "=VALUE": their value is optional, and only ever given after "=". Boost would take the next
// word, the program, for it. Returns the option's name, or empty.
std::string optional_value_option_named(const std::string& token) {
    if (!token.starts_with("--") || token.find('=') != std::string::npos) return {};
    const std::string name = token.substr(2);
    if (name.empty()) return {};
    std::string found;
    const po::options_description table = driver_option_table();
    for (const auto& option : table.options()) {
        const std::string& long_name = option->long_name();
        if (long_name == name) return takes_optional_value(long_name) ? name : "";
        if (long_name.starts_with(name)) {
            if (!found.empty()) return {};  // ambiguous: Boost says so
            found = long_name;
        }
    }
    return takes_optional_value(found) ? found : "";
}

// The long options of glibc's memusage script. Its script takes every prefix that only one of
// them starts with for that one, so this driver does too, whatever options of its own share
// the prefix: --d is --data (not --dhat), --h --help (not --html), --m --mmap (not --massif),
// --n --no-timer. A prefix two of them share (--p, --t, --ti, --u) stays ambiguous, as there.
constexpr std::array<std::string_view, 15> kGlibcLongOptions = {
    "progname", "png",   "data",   "unbuffered", "buffer", "no-timer", "mmap",   "time-based",
    "total",    "title", "x-size", "y-size",     "help",   "usage",    "version"};

// `token` with its option's name written out when it is a prefix of one of glibc's options
// alone, its "=VALUE" kept; any other word as it is.
std::string as_glibc_spells_it(const std::string& token) {
    if (!token.starts_with("--")) return token;
    const size_t equals = token.find('=');
    const std::string name = token.substr(2, equals == std::string::npos ? equals : equals - 2);
    if (name.empty()) return token;
    const po::options_description table = driver_option_table();
    for (const auto& option : table.options())
        if (option->long_name() == name) return token;  // an option's whole name is that option
    std::string_view found;
    for (std::string_view glibc : kGlibcLongOptions) {
        if (!glibc.starts_with(name)) continue;
        if (!found.empty()) return token;  // ambiguous there too: Boost says so
        found = glibc;
    }
    if (found.empty()) return token;
    return "--" + std::string(found) + (equals == std::string::npos ? "" : token.substr(equals));
}

// Options end at the first word that is not an option: everything from there on is the
// program and its arguments, even words that look like our options. Boost would otherwise
// keep parsing options after positional words. The words come back without a name (Boost's
// positional form), so no "--command" option exists for prefixes to collide with.
std::vector<po::option> take_rest_at_first_word(std::vector<std::string>& arguments) {
    std::vector<po::option> rest;
    arguments.front() = as_glibc_spells_it(arguments.front());
    // Boost would read "---x" as --x and "--=x" as the word x; both are typing mistakes.
    const std::string& token = arguments.front();
    if (token.starts_with("---") || token.starts_with("--=")) throw po::unknown_option(token);
    // Boost also calls this on the single word after an option that takes a value, to see
    // whether that word is an option; claiming it would make "-p x" fail (x guesses
    // --x-size). A lone final word is positional anyway, so leave one-word calls alone.
    if (arguments.size() == 1) return rest;
    auto looks_like_option = [](const std::string& word) {
        return word.size() > 1 && word[0] == '-';
    };
    if (std::string name = optional_value_option_named(token); !name.empty()) {
        po::option sites;
        sites.string_key = name;
        sites.original_tokens.push_back(token);
        arguments.erase(arguments.begin());
        rest.push_back(std::move(sites));
        // The program may follow: claimed here, or Boost would give it to the option.
        if (looks_like_option(arguments.front())) return rest;
    } else if (looks_like_option(token)) {
        return rest;
    }
    for (const std::string& word : arguments) {
        po::option positional;
        positional.value.push_back(word);
        positional.original_tokens.push_back(word);
        positional.position_key = INT_MAX;  // what Boost gives positional words
        rest.push_back(std::move(positional));
    }
    arguments.clear();
    return rest;
}

// Applies one option in command-line order, so a later option wins as it does in glibc's
// script (-u then -b 100 gives 100). Failing, an error line.
Status apply_option(const po::option& option, DriverOptions& out, DriverAction& action) {
    const std::string& key = option.string_key;
    const std::string value = option.value.empty() ? std::string() : option.value.front();
    if (key.empty()) {
        out.command.push_back(value);
        return {};
    }
    const DriverOption* row = find_option(key);
    if (!row) return {};  // Boost knows no other names than the table's
    if (!row->apply) {
        // The first of --help, --usage, --version wins, as in the script.
        if (action == DriverAction::run) action = row->action;
        return {};
    }
    const InvalidValue invalid = row->apply(value, out);
    if (invalid.what)
        return Failure{"memusage: invalid " + std::string(invalid.what) + " '" + value +
                       "' for '--" + key + "'" + invalid.advice};
    if (!row->passed_as.empty()) out.handed_over.emplace_back(row->passed_as, value);
    return {};
}

bool was_given(const po::parsed_options& parsed, std::string_view name) {
    for (const po::option& option : parsed.options)
        if (option.string_key == name) return true;
    return false;
}

// "--a, --b and --c"
std::string listed(const std::vector<std::string_view>& names) {
    std::string text;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
        text += "--" + std::string(names[i]);
    }
    return text;
}

// Two options given of a group that exclude each other, or an option without the one it
// needs (the table's excludes_group and needs): failing, the message.
Status combination_error(const po::parsed_options& parsed) {
    for (const DriverOption& row : kDriverOptions) {
        if (row.excludes_group.empty() || !was_given(parsed, row.name)) continue;
        std::vector<std::string_view> group;
        int given = 0;
        for (const DriverOption& other : kDriverOptions) {
            if (other.excludes_group != row.excludes_group) continue;
            group.push_back(other.name);
            given += was_given(parsed, other.name);
        }
        if (given > 1) return Failure{"memusage: " + listed(group) + " exclude each other"};
    }
    for (const DriverOption& row : kDriverOptions)
        if (!row.needs.empty() && was_given(parsed, row.name) && !was_given(parsed, row.needs))
            return Failure{"memusage: --" + std::string(row.name) + " goes with --" +
                           std::string(row.needs)};
    return {};
}

// The first option given, as typed (without its value), that sets up a run: --ps and
// --watch start none, so it would act on nothing. Empty when there is none.
std::string first_run_option(const po::parsed_options& parsed) {
    for (const po::option& option : parsed.options) {
        const std::string& key = option.string_key;
        if (key.empty() || key == "ps" || key == "watch" || key == "color") continue;
        std::string typed = option.original_tokens.empty() ? "--" + key : option.original_tokens[0];
        if (typed.starts_with("--")) return typed.substr(0, typed.find('='));
        return typed.substr(0, 2);
    }
    return {};
}

std::string quoted_alternatives(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += " '--" + name + "'";
    return text;
}

// The words parsed into `parsed`; failing, the message.
Status parsed_words(const std::vector<std::string>& arguments, const po::options_description& table,
                    po::parsed_options& parsed) {
    namespace style = po::command_line_style;
    const int parse_style =
        style::allow_short | style::short_allow_adjacent | style::short_allow_next |
        style::allow_long | style::long_allow_adjacent | style::long_allow_next |
        style::allow_sticky | style::allow_guessing | style::allow_dash_for_short;
    try {
        parsed = po::command_line_parser(arguments)
                     .options(table)
                     .style(parse_style)
                     .extra_style_parser(take_rest_at_first_word)
                     .run();
    } catch (const po::ambiguous_option& error) {
        return Failure{
            "memusage: option '" + error.get_option_name() +
            "' is ambiguous; possibilities:" + quoted_alternatives(error.alternatives())};
    } catch (const po::unknown_option& error) {
        return Failure{"memusage: unrecognized option '" + error.get_option_name() + "'"};
    } catch (const po::invalid_command_line_syntax& error) {
        if (error.kind() == po::invalid_command_line_syntax::missing_parameter)
            return Failure{"memusage: option '" + error.get_option_name() +
                           "' requires an argument"};
        return Failure{std::string("memusage: ") + error.what()};
    } catch (const po::error& error) {
        return Failure{std::string("memusage: ") + error.what()};
    }
    return {};
}

// --ps or --watch with what they cannot take: failing, the message.
Status looking_error(const DriverOptions& options, const po::parsed_options& parsed) {
    const std::string looking = options.list_processes ? "--ps" : "--watch";
    if (!options.command.empty() || options.live)
        return Failure{"memusage: " + looking +
                       " looks at processes already running: it takes no program, and no --live"};
    if (options.list_processes && options.watch_pid)
        return Failure{"memusage: --ps and --watch exclude each other"};
    const std::string given = first_run_option(parsed);
    if (given.empty()) return {};
    // What a process collects was chosen when it started; a reader cannot change it.
    std::string error = "memusage: " + looking + " looks at processes already running: " + given +
                        " is for a run memusage starts";
    if (options.sites)
        error +=
            "; the view shows a process's top sites when it was started with --sites "
            "(memusage --live --sites PROGRAM)";
    return Failure{error};
}

// What --attach takes beyond --color: the data file, the threads' table, and the reports the
// detach makes from the sites file and the event recording.
bool attach_takes(const std::string& key) {
    static constexpr std::string_view kTaken[] = {
        "data",   "threads",       "sites",  "sites-sample",  "sites-file", "events",
        "leaks",  "leak-exitcode", "folded", "folded-metric", "dhat",       "pprof",
        "massif", "long-lived",    "html",   "source-dir"};
    for (std::string_view taken : kTaken)
        if (key == taken) return true;
    return false;
}

// --attach or --detach with what they cannot take: failing, the message.
Status attaching_error(const DriverOptions& options, const po::parsed_options& parsed) {
    const std::string attaching = options.attach_pid ? "--attach" : "--detach";
    if (options.attach_pid && options.detach_pid)
        return Failure{"memusage: --attach and --detach exclude each other"};
    if (!options.command.empty() || options.live || options.list_processes || options.watch_pid)
        return Failure{"memusage: " + attaching +
                       " acts on a process already running: it takes no program, and no "
                       "--live, --ps or --watch"};
    for (const po::option& option : parsed.options) {
        const std::string& key = option.string_key;
        if (key.empty() || key == "attach" || key == "detach" || key == "color") continue;
        if (options.attach_pid && attach_takes(key)) continue;
        std::string typed = option.original_tokens.empty() ? "--" + key : option.original_tokens[0];
        typed = typed.starts_with("--") ? typed.substr(0, typed.find('=')) : typed.substr(0, 2);
        std::string message = "memusage: " + attaching + " does not take ";
        message += typed;
        if (options.attach_pid)
            message +=
                " (an attached process takes -d, --threads, --color, the allocation sites' "
                "reports and exports, --events and --html)";
        return Failure{message};
    }
    return {};
}

}  // namespace

std::span<const DriverOption> driver_options() { return kDriverOptions; }

ParsedCommandLine parse_command_line(const std::vector<std::string>& arguments) {
    ParsedCommandLine result;
    const po::options_description table = driver_option_table();
    po::parsed_options parsed(&table);
    if (Status parsed_ok = parsed_words(arguments, table, parsed); !parsed_ok.ok()) {
        result.error = parsed_ok.error();
        return result;
    }

    result.action = DriverAction::run;
    result.options.arguments = arguments;
    for (const po::option& option : parsed.options) {
        Status applied = apply_option(option, result.options, result.action);
        if (!applied.ok()) {
            result.action = DriverAction::fail;
            result.error = applied.error();
            return result;
        }
    }
    // Sampled sites are reported like exact ones.
    if (!result.options.sites_sample.empty() && !result.options.sites)
        result.options.sites = kDefaultSitesShown;
    if (result.action != DriverAction::run) return result;
    const DriverOptions& options = result.options;
    Status combined = combination_error(parsed);
    // --ps and --watch look at programs already running: they start none; nor do --attach
    // and --detach.
    const bool attaching = options.attach_pid.has_value() || options.detach_pid.has_value();
    const bool looking = options.list_processes || options.watch_pid.has_value() || attaching;
    if (combined.ok() && attaching)
        combined = attaching_error(options, parsed);
    else if (combined.ok() && looking)
        combined = looking_error(options, parsed);
    result.error = combined.error();
    if (result.error.empty() && !looking && options.command.empty())
        result.error = "No program name given";  // glibc's words; scripts may match them
    if (!result.error.empty()) result.action = DriverAction::fail;
    return result;
}

}  // namespace memusage
