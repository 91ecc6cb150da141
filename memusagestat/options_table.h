// SPDX-License-Identifier: MIT
// memusagestat's options, declared once: the parser, --help and the checks of which options go
// together are all made from this one table (options_table.cpp).
#pragma once

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>
#include <span>
#include <string>
#include <string_view>

namespace memusagestat {

// What memusagestat makes of its files; every option goes with some of these.
enum Command : unsigned {
    kGraph = 1,      // DATAFILE [OUTFILE]: the picture of a data file
    kSites = 2,      // --sites=FILE: the allocation-site report and its exports
    kPictures = 4,   // --flame, --stacked, --block-map
    kHtml = 8,       // --html=OUT
    kDiff = 16,      // --diff BEFORE AFTER
    kDiffPage = 32,  // --html=OUT --diff A B: the two-run page
    kEvery = 63,
};

struct StatOption {
    std::string_view name;        // the long name, without "--"
    char short_name = 0;          // 0: none
    bool takes_value = false;     // --name=VALUE or --name VALUE; otherwise a switch
    std::string_view shown;       // the argument as --help shows it after the name ("=FILE")
    std::string_view help;        // its --help lines, '\n' between them
    unsigned goes_with = kEvery;  // the Commands it goes with
    // Given without this other option (its command not chosen), the option is refused:
    // "--NAME goes with --NEEDS". Empty: it needs none.
    std::string_view needs = {};
};

// In the order --help lists them.
std::span<const StatOption> stat_options();

// Boost's description of the table: values as strings, switches as bool_switch.
boost::program_options::options_description stat_option_parser();

// The option was on the command line (a switch's default does not count).
bool given(const boost::program_options::variables_map& options, std::string_view name);
// Its value as given; empty when it was not.
std::string value_of(const boost::program_options::variables_map& options, std::string_view name);

// The first option given, in the table's order, that does not go with `command`; null if none.
const StatOption* first_not_going_with(const boost::program_options::variables_map& options,
                                       Command command);
// The first option given, in the table's order, that needs `option`; null if none. Asked
// once `option` is known not to have been chosen.
const StatOption* first_needing(const boost::program_options::variables_map& options,
                                std::string_view option);

// --help's text.
const std::string& stat_help_text();

}  // namespace memusagestat
