// SPDX-License-Identifier: MIT
// Builds event recordings in memory, record by record, with the format's own encoder: the
// tests of everything that reads recordings (the reader's, the pictures', the pictures'
// benchmark) start from files whose every byte they chose. The only such encoder in tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "memusage/events_format.h"

namespace events_test {

namespace format = memusage::events_format;

class EventsFileBuilder {
  public:
    explicit EventsFileBuilder(uint32_t flags = format::kHasSites, uint64_t pid = 4242) {
        format::FileHeader header{};
        std::memcpy(header.magic, format::kMagic, sizeof header.magic);
        header.version = format::kVersion;
        header.header_bytes = sizeof header;
        header.time_shift = format::kTimeShift;
        header.flags = flags;
        header.pid = pid;
        append(&header, sizeof header);
    }

    // `time` is in shifted units (what the file holds); events take deltas from it.
    EventsFileBuilder& clock(uint64_t time, uint64_t ns) {
        kind(format::Kind::clock);
        varint(time);
        varint(ns);
        time_ = time;
        bases_.clear();
        named_.clear();
        thread_ = 0;
        return *this;
    }
    // Names a thread in the chunk: its address base starts at 0.
    EventsFileBuilder& thread(uint64_t serial, uint64_t tid) {
        kind(format::Kind::thread);
        varint(serial);
        varint(tid);
        bases_[serial] = 0;
        named_.insert(serial);
        thread_ = serial;
        return *this;
    }
    // Back to a thread: its base carries on (from 0 if the chunk did not name it, which a
    // reader takes for damage).
    EventsFileBuilder& thread_again(uint64_t serial) {
        kind(format::Kind::thread_again);
        varint(serial);
        thread_ = serial;
        return *this;
    }
    // What the collector writes on a change of thread: Thread again if the chunk named it.
    EventsFileBuilder& switch_to(uint64_t serial, uint64_t tid) {
        return named_.contains(serial) ? thread_again(serial) : thread(serial, tid);
    }
    EventsFileBuilder& thread_name(uint64_t serial, const std::string& name) {
        kind(format::Kind::thread_name);
        varint(serial);
        varint(name.size());
        append(name.data(), name.size());
        return *this;
    }
    EventsFileBuilder& allocate(uint64_t time, uint64_t address, uint64_t size, uint64_t site) {
        kind(format::Kind::allocate);
        timed(time);
        addressed(address);
        varint(size);
        varint(site);
        ++events_;
        return *this;
    }
    EventsFileBuilder& release(uint64_t time, uint64_t address) {
        kind(format::Kind::release);
        timed(time);
        addressed(address);
        ++events_;
        return *this;
    }
    EventsFileBuilder& resize(uint64_t time, uint64_t old_address, uint64_t address,
                              uint64_t size) {
        kind(format::Kind::resize);
        timed(time);
        addressed(old_address);
        varint(format::zigzag(static_cast<int64_t>(address - old_address)));
        bases_[thread_] = address;
        varint(size);
        ++events_;
        return *this;
    }
    // The described kinds (version 4): times in shifted units; `start` and `born` are the
    // ended block's, written as the record's age and lived_before.
    EventsFileBuilder& allocate_described(uint64_t time, uint64_t address, uint64_t size,
                                          uint64_t site) {
        allocate(time, address, size, site);
        bytes_[last_kind_] = static_cast<uint8_t>(format::Kind::allocate_described);
        return *this;
    }
    EventsFileBuilder& release_described(uint64_t time, uint64_t address, uint64_t size,
                                         uint64_t site, uint64_t owner, uint64_t start,
                                         uint64_t born) {
        release(time, address);
        bytes_[last_kind_] = static_cast<uint8_t>(format::Kind::release_described);
        varint(size);
        description(time, site, owner, start, born);
        return *this;
    }
    EventsFileBuilder& resize_described(uint64_t time, uint64_t old_address, uint64_t address,
                                        uint64_t size, uint64_t old_size, uint64_t site,
                                        uint64_t owner, uint64_t start, uint64_t born) {
        resize(time, old_address, address, size);
        bytes_[last_kind_] = static_cast<uint8_t>(format::Kind::resize_described);
        varint(old_size);
        description(time, site, owner, start, born);
        return *this;
    }
    // The header's version, as an older collector wrote it.
    EventsFileBuilder& version(uint32_t version) {
        std::memcpy(bytes_.data() + offsetof(format::FileHeader, version), &version,
                    sizeof version);
        return *this;
    }
    EventsFileBuilder& raw(std::initializer_list<uint8_t> bytes) {
        for (uint8_t byte : bytes) bytes_.push_back(byte);
        return *this;
    }
    EventsFileBuilder& trailer(uint64_t end_time, uint64_t end_ns, uint64_t dropped = 0) {
        format::Trailer trailer{};
        std::memcpy(trailer.magic, format::kTrailerMagic, sizeof trailer.magic);
        trailer.event_count = events_;
        trailer.end_time = end_time;
        trailer.end_ns = end_ns;
        trailer.dropped = dropped;
        trailer.file_bytes = bytes_.size() + sizeof trailer;
        append(&trailer, sizeof trailer);
        return *this;
    }

    std::vector<uint8_t>& bytes() { return bytes_; }
    const std::vector<uint8_t>& bytes() const { return bytes_; }
    std::span<const std::byte> span() const { return std::as_bytes(std::span(bytes_)); }

    // Writes the recording, or only its first `keep` bytes (a recording cut short).
    bool write(const std::string& path, size_t keep = SIZE_MAX) const {
        FILE* file = std::fopen(path.c_str(), "wb");
        if (file == nullptr) return false;
        const size_t size = keep < bytes_.size() ? keep : bytes_.size();
        const bool written = std::fwrite(bytes_.data(), 1, size, file) == size;
        return std::fclose(file) == 0 && written;
    }

  private:
    void append(const void* data, size_t size) {
        auto* from = static_cast<const uint8_t*>(data);
        bytes_.insert(bytes_.end(), from, from + size);
    }
    void kind(format::Kind kind) {
        last_kind_ = bytes_.size();
        bytes_.push_back(static_cast<uint8_t>(kind));
    }
    void description(uint64_t time, uint64_t site, uint64_t owner, uint64_t start, uint64_t born) {
        varint(site);
        varint(owner);
        varint(time - start);
        varint(start - born);
    }
    void varint(uint64_t value) {
        uint8_t buffer[format::kMaxVarint];
        append(buffer, static_cast<size_t>(format::put_varint(buffer, value) - buffer));
    }
    void timed(uint64_t time) {
        varint(time - time_);
        time_ = time;
    }
    // A delta from the current thread's base in the chunk (events_format.h).
    void addressed(uint64_t address) {
        uint64_t& base = bases_[thread_];
        varint(format::zigzag(static_cast<int64_t>(address - base)));
        base = address;
    }

    std::vector<uint8_t> bytes_;
    size_t last_kind_ = 0;  // where the last record's kind byte is
    uint64_t time_ = 0, events_ = 0;
    uint64_t thread_ = 0;                 // 0: before the chunk's first Thread record
    std::map<uint64_t, uint64_t> bases_;  // by thread: its address base in the chunk
    std::set<uint64_t> named_;            // the threads the chunk named
};

}  // namespace events_test
