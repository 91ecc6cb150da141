#include "options.h"

#include <array>
#include <boost/program_options.hpp>
#include <charconv>
#include <climits>
#include <string_view>

#include "memusage/quantities.h"

namespace po = boost::program_options;

namespace memusage {
namespace {

po::options_description driver_option_table() {
    po::options_description table;
    // --sites=N, or --sites alone (see optional_value_option_named); --sites-sample likewise.
    auto* optional_count = po::value<std::string>()->implicit_value("");
    auto* optional_interval = po::value<std::string>()->implicit_value("");
    auto* optional_threads = po::value<std::string>()->implicit_value("");  // --stack-peak=N
    // Only the arity matters here; values are checked below, in command-line order.
    table.add_options()                                 //
        ("progname,n", po::value<std::string>())        //
        ("png,p", po::value<std::string>())             //
        ("data,d", po::value<std::string>())            //
        ("unbuffered,u", po::bool_switch())             //
        ("buffer,b", po::value<std::string>())          //
        ("no-timer", po::bool_switch())                 //
        ("mmap,m", po::bool_switch())                   //
        ("color", po::value<std::string>())             //
        ("sites", optional_count)                       //
        ("stack-peak", optional_threads)                //
        ("leaks", po::bool_switch())                    //
        ("leak-exitcode", po::value<std::string>())     //
        ("folded", po::value<std::string>())            //
        ("folded-metric", po::value<std::string>())     //
        ("dhat", po::value<std::string>())              //
        ("pprof", po::value<std::string>())             //
        ("massif", po::value<std::string>())            //
        ("long-lived", po::value<std::string>())        //
        ("sites-sample", optional_interval)             //
        ("sites-file", po::value<std::string>())        //
        ("events", po::value<std::string>())            //
        ("html", po::value<std::string>())              //
        ("keep", po::value<std::string>())              //
        ("limit", po::value<std::string>())             //
        ("fail-at", po::value<std::string>())           //
        ("fail-from", po::value<std::string>())         //
        ("fail-probability", po::value<std::string>())  //
        ("fail-seed", po::value<std::string>())         //
        ("threads", po::bool_switch())                  //
        ("live", po::bool_switch())                     //
        ("ps", po::bool_switch())                       //
        ("watch", po::value<std::string>())             //
        ("time-based,t", po::bool_switch())             //
        ("total,T", po::bool_switch())                  //
        ("title", po::value<std::string>())             //
        ("x-size,x", po::value<std::string>())          //
        ("y-size,y", po::value<std::string>())          //
        ("help,?", po::bool_switch())                   //
        ("usage", po::bool_switch())                    //
        ("version,V", po::bool_switch());
    return table;
}

// "--sites", "--stack-peak" or "--sites-sample" (or a prefix only one of them has) without
// "=VALUE": their
// value is optional, and only ever given after "=". Boost would take the next word, the
// program, for it. Returns the option's name, or empty.
bool takes_optional_value(const std::string& long_name) {
    return long_name == "sites" || long_name == "sites-sample" || long_name == "stack-peak";
}

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

// Applies one option in command-line order, so a later option wins as it does in glibc's
// script (-u then -b 100 gives 100). Returns an error line, or empty.
std::string apply_option(const po::option& option, DriverOptions& out, DriverAction& action) {
    const std::string& key = option.string_key;
    const std::string value = option.value.empty() ? std::string() : option.value.front();
    auto invalid = [&](const std::string& what) {
        return "memusage: invalid " + what + " '" + value + "' for '--" + key + "'";
    };
    if (key.empty()) {
        out.command.push_back(value);
    } else if (key == "progname") {
        out.progname = value;
    } else if (key == "png") {
        out.png_path = with_png_extension(value);
    } else if (key == "data") {
        out.data_path = value;
    } else if (key == "unbuffered") {
        out.buffer_size = "1";
    } else if (key == "buffer") {
        if (!parse_unsigned(value)) return invalid("buffer size");
        out.buffer_size = value;
    } else if (key == "no-timer") {
        out.no_timer = true;
    } else if (key == "mmap") {
        out.trace_mmap = true;
    } else if (key == "color") {
        out.color = parse_color(value);
        if (!out.color) return invalid("argument") + "; use 'auto', 'always' or 'never'";
    } else if (key == "sites") {
        out.sites =
            value.empty() ? std::optional<unsigned>(kDefaultSitesShown) : parse_unsigned(value);
        if (!out.sites || *out.sites == 0) return invalid("number of sites");
    } else if (key == "stack-peak") {
        out.stack_peak =
            value.empty() ? std::optional<unsigned>(kDefaultSitesShown) : parse_unsigned(value);
        if (!out.stack_peak || *out.stack_peak == 0) return invalid("number of threads");
    } else if (key == "leaks") {
        out.leaks = true;
    } else if (key == "leak-exitcode") {
        out.leak_exitcode = parse_unsigned(value);
        if (!out.leak_exitcode || *out.leak_exitcode > 255)
            return invalid("exit status") + "; use 0 to 255";
        out.leaks = true;
    } else if (key == "folded") {
        out.folded_path = value;
    } else if (key == "folded-metric") {
        out.folded_metric = value;
    } else if (key == "dhat") {
        out.dhat_path = value;
    } else if (key == "pprof") {
        if (value.empty()) return invalid("file name");
        out.pprof_path = value;
    } else if (key == "massif") {
        if (value.empty()) return invalid("file name");
        out.massif_path = value;
    } else if (key == "long-lived") {
        out.long_lived = value;
    } else if (key == "sites-sample") {
        uint64_t bytes;
        std::string interval = value.empty() ? std::to_string(kDefaultSitesSample) : value;
        if (!parse_size(interval.c_str(), bytes) || bytes == 0 || bytes > kMaxSitesSample)
            return invalid("sampling interval") +
                   "; use 1 byte to 1G: digits, then nothing or k, M, G (KiB, MiB, GiB)";
        out.sites_sample = interval;
    } else if (key == "sites-file") {
        if (value.empty()) return invalid("file name");
        out.sites_path = value;
    } else if (key == "events") {
        if (value.empty()) return invalid("file name");
        out.events_path = value;
    } else if (key == "html") {
        if (value.empty()) return invalid("file name");
        out.html_path = value;
    } else if (key == "keep") {
        if (value.empty()) return invalid("directory name");
        out.keep_dir = value;
    } else if (key == "limit") {
        uint64_t bytes;
        if (!parse_size(value.c_str(), bytes))
            return invalid("size") + "; use digits, then nothing or k, M, G (KiB, MiB, GiB)";
        out.limit = value;
    } else if (key == "fail-at" || key == "fail-from") {
        uint64_t number;
        if (!parse_count(value.c_str(), number) || number == 0)
            return invalid("call number") + "; calls are counted from 1";
        (key == "fail-at" ? out.fail_at : out.fail_from) = value;
    } else if (key == "fail-probability") {
        Probability probability;
        if (!parse_probability(value.c_str(), probability))
            return invalid("probability") + "; use a number from 0 to 1";
        out.fail_probability = value;
    } else if (key == "fail-seed") {
        uint64_t seed;
        if (!parse_count(value.c_str(), seed)) return invalid("seed") + "; use digits";
        out.fail_seed = value;
    } else if (key == "threads") {
        out.thread_table = true;
    } else if (key == "live") {
        out.live = true;
    } else if (key == "ps") {
        out.list_processes = true;
    } else if (key == "watch") {
        std::optional<unsigned> pid = parse_unsigned(value);
        if (!pid || *pid == 0 || *pid > INT_MAX) return invalid("process ID");
        out.watch_pid = static_cast<int>(*pid);
    } else if (key == "time-based") {
        out.time_based = true;
    } else if (key == "total") {
        out.total = true;
    } else if (key == "title") {
        out.title = value;
    } else if (key == "x-size") {
        out.width = parse_unsigned(value);
        if (!out.width) return invalid("width");
    } else if (key == "y-size") {
        out.height = parse_unsigned(value);
        if (!out.height) return invalid("height");
    } else if (action == DriverAction::run) {
        // The first of --help, --usage, --version wins, as in the script.
        if (key == "help") action = DriverAction::help;
        if (key == "usage") action = DriverAction::usage;
        if (key == "version") action = DriverAction::version;
    }
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

}  // namespace

ParsedCommandLine parse_command_line(const std::vector<std::string>& arguments) {
    ParsedCommandLine result;
    const po::options_description table = driver_option_table();
    namespace style = po::command_line_style;
    const int parse_style =
        style::allow_short | style::short_allow_adjacent | style::short_allow_next |
        style::allow_long | style::long_allow_adjacent | style::long_allow_next |
        style::allow_sticky | style::allow_guessing | style::allow_dash_for_short;
    po::parsed_options parsed(&table);
    try {
        parsed = po::command_line_parser(arguments)
                     .options(table)
                     .style(parse_style)
                     .extra_style_parser(take_rest_at_first_word)
                     .run();
    } catch (const po::ambiguous_option& error) {
        result.error = "memusage: option '" + error.get_option_name() +
                       "' is ambiguous; possibilities:" + quoted_alternatives(error.alternatives());
        return result;
    } catch (const po::unknown_option& error) {
        result.error = "memusage: unrecognized option '" + error.get_option_name() + "'";
        return result;
    } catch (const po::invalid_command_line_syntax& error) {
        if (error.kind() == po::invalid_command_line_syntax::missing_parameter) {
            result.error =
                "memusage: option '" + error.get_option_name() + "' requires an argument";
        } else {
            result.error = std::string("memusage: ") + error.what();
        }
        return result;
    } catch (const po::error& error) {
        result.error = std::string("memusage: ") + error.what();
        return result;
    }

    result.action = DriverAction::run;
    result.options.arguments = arguments;
    for (const po::option& option : parsed.options) {
        std::string error = apply_option(option, result.options, result.action);
        if (!error.empty()) {
            result.action = DriverAction::fail;
            result.error = std::move(error);
            return result;
        }
    }
    // Sampled sites are reported like exact ones.
    if (!result.options.sites_sample.empty() && !result.options.sites)
        result.options.sites = kDefaultSitesShown;
    const DriverOptions& options = result.options;
    int injections =
        !options.fail_at.empty() + !options.fail_from.empty() + !options.fail_probability.empty();
    if (result.action == DriverAction::run && injections > 1) {
        result.action = DriverAction::fail;
        result.error = "memusage: --fail-at, --fail-from and --fail-probability exclude each other";
        return result;
    }
    if (result.action == DriverAction::run && !options.fail_seed.empty() &&
        options.fail_probability.empty()) {
        result.action = DriverAction::fail;
        result.error = "memusage: --fail-seed goes with --fail-probability";
        return result;
    }
    // --ps and --watch look at programs already running: they start none.
    const bool looks_only = options.list_processes || options.watch_pid.has_value();
    if (result.action == DriverAction::run && looks_only) {
        if (!options.command.empty() || options.live) {
            result.action = DriverAction::fail;
            result.error =
                std::string("memusage: ") + (options.list_processes ? "--ps" : "--watch") +
                " looks at processes already running: it takes no program, and no --live";
        } else if (options.list_processes && options.watch_pid) {
            result.action = DriverAction::fail;
            result.error = "memusage: --ps and --watch exclude each other";
        } else if (std::string given = first_run_option(parsed); !given.empty()) {
            // What a process collects was chosen when it started; a reader cannot change it.
            result.action = DriverAction::fail;
            result.error =
                std::string("memusage: ") + (options.list_processes ? "--ps" : "--watch") +
                " looks at processes already running: " + given + " is for a run memusage starts";
            if (options.sites)
                result.error +=
                    "; the view shows a process's top sites when it was started with --sites "
                    "(memusage --live --sites PROGRAM)";
        }
        return result;
    }
    if (result.action == DriverAction::run && result.options.command.empty()) {
        result.action = DriverAction::fail;
        result.error = "No program name given";  // glibc's words; scripts may match them
    }
    return result;
}

}  // namespace memusage
