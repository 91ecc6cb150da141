// SPDX-License-Identifier: MIT
// What the report's tests share: a private directory, recordings and data files written
// into it, and the JSON of a written report read back.
#pragma once

#include <memusage/record.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "events_file_builder.h"

namespace report_test {

// A private directory per test, removed with it.
class Scratch {
  public:
    Scratch();
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

// One thread allocating `events` / 2 blocks of growing size and freeing each at once but
// for every 7th, which it keeps; one spike of 1 MB in the middle. A clock of 1 GHz: a cycle
// a nanosecond, an event a microsecond.
events_test::EventsFileBuilder churn_recording(uint64_t events, uint64_t pid = 4242);

// A data file (header, then records) with one heap spike at record `spike`.
std::vector<memusage::Record> data_file_records(uint64_t records, uint64_t spike);
bool write_bytes(const std::string& path, const void* data, size_t size);

// The JSON of a report's page: the whole text of its report-data element, which must parse
// as one JSON value (the parser refuses anything after it).
nlohmann::json json_of_page(const std::string& html);
std::string read_text(const std::string& path);

}  // namespace report_test
