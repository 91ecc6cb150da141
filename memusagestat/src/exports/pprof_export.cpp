// SPDX-License-Identifier: MIT
#include "exports/pprof_export.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <tuple>

#include "sites/definitions.h"
#include "sites/frame_folding.h"

namespace memusagestat {
namespace {

namespace io = google::protobuf::io;

// Field numbers of pprof's public profile.proto (github.com/google/pprof, proto/profile.proto),
// written field by field with libprotobuf's CodedOutputStream: the messages are small and
// flat, and a generated class would need that .proto in the tree.
namespace field {
// Profile
constexpr int kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
              kStringTable = 6, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11, kPeriod = 12,
              kComment = 13, kDefaultSampleType = 14;
// ValueType
constexpr int kType = 1, kUnit = 2;
// Sample
constexpr int kLocationId = 1, kValue = 2;
// Mapping
constexpr int kMappingId = 1, kMemoryStart = 2, kMemoryLimit = 3, kFileOffset = 4, kFilename = 5,
              kBuildId = 6, kHasFunctions = 7, kHasFilenames = 8, kHasLineNumbers = 9,
              kHasInlineFrames = 10;
// Location
constexpr int kLocId = 1, kLocMappingId = 2, kAddress = 3, kLine = 4;
// Line
constexpr int kFunctionId = 1, kLineNumber = 2;
// Function
constexpr int kFuncId = 1, kName = 2, kSystemName = 3, kFuncFilename = 4;
}  // namespace field

// One message's bytes, built field by field; nested messages are written into their
// parent as length-delimited bytes.
class Message {
  public:
    Message& number(int field, uint64_t value) {
        if (value == 0) return *this;  // proto3: a zero is the default, left out
        stream_.WriteTag(tag(field, 0));
        stream_.WriteVarint64(value);
        return *this;
    }
    Message& bytes(int field, const std::string& value) {
        stream_.WriteTag(tag(field, 2));
        stream_.WriteVarint32(static_cast<uint32_t>(value.size()));
        stream_.WriteString(value);
        return *this;
    }
    Message& message(int field, Message& nested) { return bytes(field, nested.finished()); }
    Message& packed(int field, const std::vector<uint64_t>& values) {
        std::string body;
        {
            io::StringOutputStream out(&body);
            io::CodedOutputStream coded(&out);
            for (uint64_t value : values) coded.WriteVarint64(value);
        }
        return bytes(field, body);
    }
    const std::string& finished() {
        stream_.Trim();
        return bytes_;
    }

  private:
    static uint32_t tag(int field, uint32_t wire_type) {
        return static_cast<uint32_t>(field) << 3 | wire_type;
    }
    std::string bytes_;
    io::StringOutputStream out_{&bytes_};
    io::CodedOutputStream stream_{&out_};
};

std::string hex_bytes(const std::string& raw) {
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (unsigned char byte : raw) {
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

class StringTable {
  public:
    uint64_t index_of(const std::string& text) {
        auto [found, inserted] = indexes_.emplace(text, strings_.size());
        if (inserted) strings_.push_back(text);
        return found->second;
    }
    const std::vector<std::string>& strings() const { return strings_; }

  private:
    std::vector<std::string> strings_ = {""};  // pprof: index 0 is the empty string
    std::map<std::string, uint64_t> indexes_ = {{"", 0}};
};

// The profile's tables, each entry once, ids from 1 in order of first use.
class ProfileTables {
  public:
    explicit ProfileTables(const SitesProfile& profile) : profile_(profile) {}

    StringTable strings;
    Message body;  // mappings, locations and functions, written as they are met

    // A location of the program's code: one return address, its inlined frames first.
    uint64_t code_location(const std::vector<SourceFrame>& frames) {
        const SourceFrame& outer = frames.back();
        std::string key = outer.module + "\n" + std::to_string(outer.offset);
        for (const SourceFrame& frame : frames) key += "\n" + frame.function;
        auto [found, inserted] = locations_.emplace(key, locations_.size() + 1);
        if (!inserted) return found->second;
        Message location;
        location.number(field::kLocId, found->second);
        if (const SitesModule* module = module_named(outer.module)) {
            location.number(field::kLocMappingId, mapping_id(*module));
            location.number(field::kAddress, outer.offset + module->load_bias);
        } else {
            location.number(field::kAddress, outer.offset);
        }
        for (const SourceFrame& frame : frames) {
            if (frame.function.empty()) continue;  // pprof shows the address instead
            Message line;
            line.number(field::kFunctionId, function_id(frame.function, frame.file));
            line.number(field::kLineNumber, static_cast<uint64_t>(frame.line));
            location.message(field::kLine, line);
        }
        body.message(field::kLocation, location);
        return found->second;
    }

    // A location that is only a name: the wrapper allocated through, a placeholder.
    uint64_t named_location(const std::string& name) {
        auto [found, inserted] = locations_.emplace("\n\n" + name, locations_.size() + 1);
        if (!inserted) return found->second;
        Message line;
        line.number(field::kFunctionId, function_id(name, ""));
        Message location;
        location.number(field::kLocId, found->second).message(field::kLine, line);
        body.message(field::kLocation, location);
        return found->second;
    }

    // Every module, the program first, whether or not a sample falls in it: pprof takes the
    // first mapping for the main binary.
    void add_mappings() {
        for (const SitesModule& module : profile_.modules) mapping_id(module);
    }

  private:
    const SitesModule* module_named(const std::string& path) const {
        if (path.empty()) return nullptr;
        for (const SitesModule& module : profile_.modules)
            if (module.path == path) return &module;
        return nullptr;
    }

    uint64_t mapping_id(const SitesModule& module) {
        auto [found, inserted] = mappings_.emplace(&module, mappings_.size() + 1);
        if (!inserted) return found->second;
        Message mapping;
        mapping.number(field::kMappingId, found->second)
            .number(field::kMemoryStart, module.start)
            .number(field::kMemoryLimit, module.end)
            .number(field::kFileOffset, 0)
            .number(field::kFilename, strings.index_of(module.path))
            .number(field::kBuildId, strings.index_of(hex_bytes(module.build_id)))
            // Symbolised already: pprof must not look for the binaries.
            .number(field::kHasFunctions, 1)
            .number(field::kHasFilenames, 1)
            .number(field::kHasLineNumbers, 1)
            .number(field::kHasInlineFrames, 1);
        body.message(field::kMapping, mapping);
        return found->second;
    }

    // A function is told apart by its full name (build<40>() and build<100>() are two); its
    // name for display has no return type or parameters, and keeps its template arguments
    // but a library wrapper's. pprof takes a name equal to the system name for one it may
    // simplify, and would strip the template arguments (merging build<40> and build<100>):
    // the full name is the system name, shown on demand (-symbolize=demangle=full).
    uint64_t function_id(const std::string& name, const std::string& file) {
        auto [found, inserted] = functions_.emplace(std::tie(name, file), functions_.size() + 1);
        if (!inserted) return found->second;
        SourceFrame frame;
        frame.function = name;
        std::string shown = is_wrapper(frame) ? short_name(name) : display_name(name);
        Message function;
        function.number(field::kFuncId, found->second)
            .number(field::kName, strings.index_of(shown))
            .number(field::kSystemName, strings.index_of(name))
            .number(field::kFuncFilename, strings.index_of(file));
        body.message(field::kFunction, function);
        return found->second;
    }

    const SitesProfile& profile_;
    std::map<std::string, uint64_t> locations_;
    std::map<const SitesModule*, uint64_t> mappings_;
    std::map<std::tuple<std::string, std::string>, uint64_t> functions_;
};

// The site's stack as location ids, innermost first: the wrapper, the program's frames
// grouped by return address (an inlined frame belongs with the ones after it), the cut.
std::vector<uint64_t> stack_of(const ShownSite& site, ProfileTables& tables) {
    std::vector<uint64_t> ids;
    if (!site.via.empty()) ids.push_back(tables.named_location(site.via));
    std::vector<SourceFrame> address;
    for (const SourceFrame* frame : site.frames) {
        address.push_back(*frame);
        if (frame->inlined) continue;
        ids.push_back(tables.code_location(address));
        address.clear();
    }
    if (!address.empty()) ids.push_back(tables.code_location(address));
    if (site.frames.empty() && !site.placeholder.empty())
        ids.push_back(tables.named_location(site.placeholder));
    if (site.cut_at != 0) ids.push_back(tables.named_location(cut_root(site.cut_at)));
    return ids;
}

}  // namespace

std::string pprof_profile(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                          const PprofRun& run) {
    ProfileTables tables(profile);
    Message document;
    for (size_t i = 0; i < std::size(kPprofSampleTypes); ++i) {
        Message type;
        type.number(field::kType, tables.strings.index_of(kPprofSampleTypes[i]))
            .number(field::kUnit, tables.strings.index_of(i % 2 == 0 ? "count" : "bytes"));
        document.message(field::kSampleType, type);
    }
    tables.add_mappings();
    for (size_t i = 0; i < sites.size(); ++i) {
        const ShownSite& site = sites[i];
        const Amount total = allocated(site), peak = at_peak(site), leaks = leaked(site),
                     brief = temporary(site), kept = kept_at_exit(site);
        std::vector<uint64_t> values = {total.blocks, total.bytes, peak.blocks,  peak.bytes,
                                        leaks.blocks, leaks.bytes, brief.blocks, brief.bytes,
                                        kept.blocks,  kept.bytes};
        Message sample;
        sample.packed(field::kLocationId, stack_of(sites[i], tables)).packed(field::kValue, values);
        document.message(field::kSample, sample);
    }
    Message period_type;
    period_type.number(field::kType, tables.strings.index_of("space"))
        .number(field::kUnit, tables.strings.index_of("bytes"));
    document.number(field::kTimeNanos, run.start_ns)
        .number(field::kDurationNanos, run.duration_ns)
        .message(field::kPeriodType, period_type)
        // Sampled sites: one sample every this many bytes on average, as Go's heap profiles.
        .number(field::kPeriod, profile.sample_interval != 0 ? profile.sample_interval : 1);
    std::vector<uint64_t> comments;
    if (!run.command.empty()) comments.push_back(tables.strings.index_of(run.command));
    if (profile.sample_interval != 0)
        comments.push_back(tables.strings.index_of("estimates from sites sampled every " +
                                                   std::to_string(profile.sample_interval) +
                                                   " bytes"));
    if (!comments.empty()) document.packed(field::kComment, comments);
    document.number(field::kDefaultSampleType, tables.strings.index_of("inuse_space"));

    std::string gzipped;
    {
        io::StringOutputStream raw(&gzipped);
        io::GzipOutputStream::Options options;
        options.format = io::GzipOutputStream::GZIP;
        io::GzipOutputStream gzip(&raw, options);
        {
            io::CodedOutputStream out(&gzip);
            out.WriteString(document.finished());
            out.WriteString(tables.body.finished());
            for (const std::string& text : tables.strings.strings()) {
                out.WriteTag(static_cast<uint32_t>(field::kStringTable) << 3 | 2);
                out.WriteVarint32(static_cast<uint32_t>(text.size()));
                out.WriteString(text);
            }
        }
        gzip.Close();
    }
    return gzipped;
}

}  // namespace memusagestat
