// SPDX-License-Identifier: MIT
#include "environment.h"

#include <limits.h>
#include <memusage/run_start.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace memusage {
namespace {

std::string_view color_word(ColorWhen when) {
    switch (when) {
        case ColorWhen::always:
            return "always";
        case ColorWhen::never:
            return "never";
        case ColorWhen::automatic:
            break;
    }
    return "auto";
}

class EnvironmentBuilder {
  public:
    explicit EnvironmentBuilder(std::vector<std::string> entries) : entries_(std::move(entries)) {}

    // Value of name, or nullptr.
    const std::string* find(std::string_view name) {
        auto it = position(name);
        return it == entries_.end() ? nullptr : &*it;
    }

    void set(std::string_view name, std::string_view value) {
        std::string entry = std::string(name) + "=" + std::string(value);
        auto it = position(name);
        if (it == entries_.end()) {
            entries_.push_back(std::move(entry));
        } else {
            *it = std::move(entry);
        }
    }

    void unset(std::string_view name) {
        auto it = position(name);
        if (it != entries_.end()) entries_.erase(it);
    }

    std::vector<std::string> take() { return std::move(entries_); }

  private:
    std::vector<std::string>::iterator position(std::string_view name) {
        return std::find_if(entries_.begin(), entries_.end(), [&](const std::string& entry) {
            return entry.size() > name.size() && entry.starts_with(name) &&
                   entry[name.size()] == '=';
        });
    }

    std::vector<std::string> entries_;
};

}  // namespace

bool can_preload(const std::string& library_path) {
    return !library_path.empty() && library_path.find_first_of(" :") == std::string::npos;
}

std::vector<std::string> child_environment(const std::vector<std::string>& inherited,
                                           const DriverOptions& options,
                                           const std::string& collector_path,
                                           const std::string& data_path,
                                           const std::string& sites_path) {
    EnvironmentBuilder environment(inherited);

    std::string preload = collector_path;
    if (const std::string* existing = environment.find("LD_PRELOAD")) {
        std::string_view theirs = std::string_view(*existing).substr(sizeof("LD_PRELOAD"));
        if (theirs.find_first_not_of(" :") != std::string_view::npos) {
            preload += ":" + std::string(theirs);
        }
    }
    environment.set("LD_PRELOAD", preload);

    // Left behind by a process of an enclosing run (memusage started from a profiled
    // shell): this run's data file has no owner yet.
    environment.unset("MEMUSAGE_OUTPUT_OWNER");
    environment.unset("MEMUSAGE_SITES_OWNER");
    environment.unset("MEMUSAGE_EVENTS_OWNER");
    environment.unset("MEMUSAGE_SUMMARY_FILE_OWNER");
    environment.unset(kRunStartVariable);
    if (!data_path.empty()) {
        environment.set("MEMUSAGE_OUTPUT", data_path);
        // The run starts here: whatever the program starts (siblings under a shell
        // included, and even when the program itself cannot load the collector) sees
        // whether a process of this run has already written the file.
        char run_start[PATH_MAX + 128];
        if (format_run_start(file_state(data_path.c_str()), data_path.c_str(), run_start,
                             sizeof run_start))
            environment.set(kRunStartVariable, run_start);
    }
    // --stack-peak alone needs the unwinder, not every allocation's stack.
    if (!sites_path.empty())
        environment.set(wants_stack_peak_only(options) ? "MEMUSAGE_STACK_PEAK" : "MEMUSAGE_SITES",
                        sites_path);
    if (!sites_path.empty() && !options.sites_sample.empty())
        environment.set("MEMUSAGE_SITES_SAMPLE", options.sites_sample);
    if (!options.events_path.empty()) environment.set("MEMUSAGE_EVENTS", options.events_path);
    if (!options.summary_path.empty())
        environment.set("MEMUSAGE_SUMMARY_FILE", options.summary_path);
    if (!options.progname.empty()) environment.set("MEMUSAGE_PROG_NAME", options.progname);
    if (!options.buffer_size.empty()) {
        environment.set("MEMUSAGE_BUFFER_SIZE", options.buffer_size);
    }
    if (options.no_timer) environment.set("MEMUSAGE_NO_TIMER", "yes");
    if (options.trace_mmap) environment.set("MEMUSAGE_TRACE_MMAP", "yes");
    if (options.color) environment.set("MEMUSAGE_COLOR", color_word(*options.color));
    // An injection asked for here replaces any the caller's environment had: two
    // would make the collector ignore both.
    if (!options.fail_at.empty() || !options.fail_from.empty() ||
        !options.fail_probability.empty()) {
        for (const char* name : {"MEMUSAGE_FAIL_AT", "MEMUSAGE_FAIL_FROM",
                                 "MEMUSAGE_FAIL_PROBABILITY", "MEMUSAGE_FAIL_SEED"})
            environment.unset(name);
    }
    for (const auto& [name, value] : {std::pair{"MEMUSAGE_LIMIT", &options.limit},
                                      {"MEMUSAGE_FAIL_AT", &options.fail_at},
                                      {"MEMUSAGE_FAIL_FROM", &options.fail_from},
                                      {"MEMUSAGE_FAIL_PROBABILITY", &options.fail_probability},
                                      {"MEMUSAGE_FAIL_SEED", &options.fail_seed}}) {
        if (!value->empty()) environment.set(name, *value);
    }
    if (options.thread_table) environment.set("MEMUSAGE_THREADS", "yes");
    if (options.live) environment.set("MEMUSAGE_LIVE", "1");  // even if the caller turned it off
    return environment.take();
}

}  // namespace memusage
