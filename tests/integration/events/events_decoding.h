// A small decoder of the event recording (memusage/events_format.h), for the tests of its
// writer: every record as written, and where and why decoding stopped.
#pragma once

#include <memusage/events_format.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace events_test {

namespace format = memusage::events_format;

struct DecodedEvent {
    format::Kind kind;
    uint64_t time;  // shifted, absolute
    uint64_t address, old_address, size;
    uint64_t site;
    uint64_t thread;  // serial; 0: no Thread record yet in the chunk
};

struct Clock {
    uint64_t time, ns;
};

struct Decoded {
    format::FileHeader header = {};
    std::vector<DecodedEvent> events;
    std::map<uint64_t, uint64_t> thread_tids;      // serial -> tid
    std::map<uint64_t, std::string> thread_names;  // serial -> name
    std::vector<Clock> clocks;                     // one per chunk
    std::optional<format::Trailer> trailer;
    std::string problem;       // why decoding stopped before the end ("" if it did not)
    size_t decoded_bytes = 0;  // where it stopped
    size_t file_bytes = 0;
};

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline Decoded decode(const std::string& bytes) {
    Decoded out;
    out.file_bytes = bytes.size();
    if (bytes.size() < sizeof(format::FileHeader)) {
        out.problem = "no header";
        return out;
    }
    memcpy(&out.header, bytes.data(), sizeof out.header);
    if (memcmp(out.header.magic, format::kMagic, 8) != 0) {
        out.problem = "bad magic";
        return out;
    }
    auto* begin = reinterpret_cast<const uint8_t*>(bytes.data());
    const uint8_t* end = begin + bytes.size();
    const uint8_t* in = begin + out.header.header_bytes;
    uint64_t time = 0, address = 0, thread = 0;
    bool in_chunk = false;
    auto fail = [&](const char* why) {
        out.problem = why;
        out.decoded_bytes = static_cast<size_t>(in - begin);
        return out;
    };
    while (in != end) {
        const uint8_t* record = in;
        if (static_cast<size_t>(end - in) >= sizeof(format::Trailer) &&
            memcmp(in, format::kTrailerMagic, 8) == 0) {
            format::Trailer trailer;
            memcpy(&trailer, in, sizeof trailer);
            out.trailer = trailer;
            in += sizeof trailer;
            if (in != end) return fail("bytes after the trailer");
            break;
        }
        auto kind = static_cast<format::Kind>(*in++);
        uint64_t a = 0, b = 0, c = 0, d = 0;
        auto get = [&](uint64_t& value) { return format::get_varint(&in, end, value); };
        if (kind == format::Kind::clock) {
            if (!get(a) || !get(b)) return fail("cut clock");
            time = a;
            address = 0;
            thread = 0;
            in_chunk = true;
            out.clocks.push_back({a, b});
            continue;
        }
        if (!in_chunk) {
            in = record;
            return fail("a record before any clock");
        }
        switch (kind) {
            case format::Kind::thread:
                if (!get(a) || !get(b)) return fail("cut thread");
                thread = a;
                out.thread_tids[a] = b;
                break;
            case format::Kind::thread_name: {
                if (!get(a) || !get(b) || static_cast<uint64_t>(end - in) < b)
                    return fail("cut thread name");
                out.thread_names[a] = std::string(reinterpret_cast<const char*>(in), b);
                in += b;
                break;
            }
            case format::Kind::allocate:
                if (!get(a) || !get(b) || !get(c) || !get(d)) return fail("cut allocate");
                time += a;
                address += static_cast<uint64_t>(format::unzigzag(b));
                out.events.push_back({kind, time, address, 0, c, d, thread});
                break;
            case format::Kind::release:
                if (!get(a) || !get(b)) return fail("cut release");
                time += a;
                address += static_cast<uint64_t>(format::unzigzag(b));
                out.events.push_back({kind, time, address, 0, 0, 0, thread});
                break;
            case format::Kind::resize: {
                if (!get(a) || !get(b) || !get(c) || !get(d)) return fail("cut resize");
                time += a;
                uint64_t old_address = address + static_cast<uint64_t>(format::unzigzag(b));
                address = old_address + static_cast<uint64_t>(format::unzigzag(c));
                out.events.push_back({kind, time, address, old_address, d, 0, thread});
                break;
            }
            default:
                in = record;
                return fail(*record == 0 ? "a chunk never completed" : "unknown record kind");
        }
    }
    out.decoded_bytes = static_cast<size_t>(in - begin);
    return out;
}

inline Decoded decode_file(const std::string& path) { return decode(read_file(path)); }

// The heap replayed from the blocks' events, and its peak.
struct Replay {
    std::map<uint64_t, uint64_t> live;  // address -> size
    int64_t heap = 0;
    uint64_t peak = 0;
    std::string problem;  // the first event that did not fit the blocks alive

    void add(const DecodedEvent& event) {
        switch (event.kind) {
            case format::Kind::allocate:
                if (live.count(event.address) != 0 && problem.empty())
                    problem = "allocated twice: " + std::to_string(event.address);
                live[event.address] = event.size;
                heap += static_cast<int64_t>(event.size);
                break;
            case format::Kind::release:
                if (live.count(event.address) == 0) {
                    if (problem.empty())
                        problem = "freed unknown: " + std::to_string(event.address);
                    return;
                }
                heap -= static_cast<int64_t>(live[event.address]);
                live.erase(event.address);
                break;
            case format::Kind::resize:
                if (live.count(event.old_address) == 0) {
                    if (problem.empty())
                        problem = "resized unknown: " + std::to_string(event.old_address);
                    return;
                }
                heap -= static_cast<int64_t>(live[event.old_address]);
                live.erase(event.old_address);
                live[event.address] = event.size;
                heap += static_cast<int64_t>(event.size);
                break;
            default:
                break;
        }
        if (heap > 0 && static_cast<uint64_t>(heap) > peak) peak = static_cast<uint64_t>(heap);
    }
};

}  // namespace events_test
