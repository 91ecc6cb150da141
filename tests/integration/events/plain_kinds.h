// SPDX-License-Identifier: MIT
// A version-4 event recording rewritten with the plain kinds only (every described record as
// the plain one it extends, its description left out), the rest byte for byte: the same
// recording as a reader that keeps a table of every live block replays it. For the tests
// that the replay without the table gives what the table gives.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "memusage/events_format.h"

namespace events_test {

inline std::vector<uint8_t> with_plain_kinds(const std::vector<uint8_t>& in) {
    namespace format = memusage::events_format;
    using Kind = format::Kind;
    format::FileHeader header{};
    std::memcpy(&header, in.data(), sizeof header);
    size_t end = in.size();
    format::Trailer trailer{};
    std::memcpy(&trailer, in.data() + in.size() - sizeof trailer, sizeof trailer);
    const bool complete =
        std::memcmp(trailer.magic, format::kTrailerMagic, sizeof trailer.magic) == 0;
    if (complete) end -= sizeof trailer;
    std::vector<uint8_t> out(in.begin(), in.begin() + header.header_bytes);
    const uint8_t* at = in.data() + header.header_bytes;
    const uint8_t* const stop = in.data() + end;
    auto copy_varints = [&](int count) {
        for (int i = 0; i < count; ++i) {
            const uint8_t* from = at;
            uint64_t value;
            if (!format::get_varint(&at, stop, value)) throw std::runtime_error("bad varint");
            out.insert(out.end(), from, at);
        }
    };
    auto skip_varints = [&](int count) {
        uint64_t value;
        for (int i = 0; i < count; ++i)
            if (!format::get_varint(&at, stop, value)) throw std::runtime_error("bad varint");
    };
    while (at < stop) {
        const auto kind = static_cast<Kind>(*at++);
        switch (kind) {
            case Kind::clock:
            case Kind::thread:
            case Kind::release:
                out.push_back(static_cast<uint8_t>(kind));
                copy_varints(2);
                break;
            case Kind::thread_again:
                out.push_back(static_cast<uint8_t>(kind));
                copy_varints(1);
                break;
            case Kind::thread_name: {
                out.push_back(static_cast<uint8_t>(kind));
                const uint8_t* from = at;
                uint64_t serial, length;
                if (!format::get_varint(&at, stop, serial) ||
                    !format::get_varint(&at, stop, length))
                    throw std::runtime_error("bad thread name");
                at += length;
                out.insert(out.end(), from, at);
                break;
            }
            case Kind::allocate:
            case Kind::allocate_described:
                out.push_back(static_cast<uint8_t>(Kind::allocate));
                copy_varints(4);
                break;
            case Kind::resize:
                out.push_back(static_cast<uint8_t>(kind));
                copy_varints(4);
                break;
            case Kind::release_described:
                out.push_back(static_cast<uint8_t>(Kind::release));
                copy_varints(2);
                skip_varints(5);
                break;
            case Kind::resize_described:
                out.push_back(static_cast<uint8_t>(Kind::resize));
                copy_varints(4);
                skip_varints(5);
                break;
            default:
                throw std::runtime_error("unknown kind " + std::to_string(static_cast<int>(kind)));
        }
    }
    if (complete) {
        trailer.file_bytes = out.size() + sizeof trailer;
        const auto* bytes = reinterpret_cast<const uint8_t*>(&trailer);
        out.insert(out.end(), bytes, bytes + sizeof trailer);
    }
    return out;
}

}  // namespace events_test
