// An event recording made by hand, through events_format.h's encoding: for tests that need
// pictures with known features before (and besides) the collector writing them, and for the
// pictures' benchmark. Times are in the file's units (the cycle counter shifted right by
// kTimeShift); every record after a clock must not go back in time.
#pragma once

#include <memusage/events_format.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace stat_test {

class EventsRecording {
  public:
    explicit EventsRecording(uint64_t pid = 4242, bool has_sites = true) {
        namespace f = memusage::events_format;
        f::FileHeader header{};
        std::memcpy(header.magic, f::kMagic, sizeof header.magic);
        header.version = f::kVersion;
        header.header_bytes = sizeof header;
        header.time_shift = f::kTimeShift;
        header.flags = has_sites ? f::kHasSites : 0;
        header.pid = pid;
        put_bytes(&header, sizeof header);
    }

    // Starts a chunk: the time, the address base and the thread start afresh.
    void clock(uint64_t time, uint64_t ns) {
        kind(memusage::events_format::Kind::clock);
        varint(time);
        varint(ns);
        time_ = time;
        address_ = 0;
    }
    void thread(uint32_t serial, uint64_t tid) {
        kind(memusage::events_format::Kind::thread);
        varint(serial);
        varint(tid);
    }
    void thread_name(uint32_t serial, const std::string& name) {
        kind(memusage::events_format::Kind::thread_name);
        varint(serial);
        varint(name.size());
        put_bytes(name.data(), name.size());
    }
    void allocate(uint64_t time, uint64_t address, uint64_t size, uint32_t site) {
        kind(memusage::events_format::Kind::allocate);
        delta_time(time);
        delta_address(address);
        varint(size);
        varint(site);
        ++events_;
    }
    void release(uint64_t time, uint64_t address) {
        kind(memusage::events_format::Kind::release);
        delta_time(time);
        delta_address(address);
        ++events_;
    }
    void resize(uint64_t time, uint64_t old_address, uint64_t new_address, uint64_t size) {
        kind(memusage::events_format::Kind::resize);
        delta_time(time);
        delta_address(old_address);
        varint(memusage::events_format::zigzag(static_cast<int64_t>(new_address - old_address)));
        address_ = new_address;
        varint(size);
        ++events_;
    }
    // The run ended: the trailer that makes the recording complete.
    void end(uint64_t time, uint64_t ns) {
        namespace f = memusage::events_format;
        f::Trailer trailer{};
        std::memcpy(trailer.magic, f::kTrailerMagic, sizeof trailer.magic);
        trailer.event_count = events_;
        trailer.end_time = time;
        trailer.end_ns = ns;
        trailer.file_bytes = bytes_.size() + sizeof trailer;
        put_bytes(&trailer, sizeof trailer);
    }

    const std::vector<uint8_t>& bytes() const { return bytes_; }
    uint64_t events() const { return events_; }

    bool write(const std::string& path, size_t keep = SIZE_MAX) const {
        FILE* file = std::fopen(path.c_str(), "wb");
        if (file == nullptr) return false;
        const size_t size = keep < bytes_.size() ? keep : bytes_.size();
        const bool written = std::fwrite(bytes_.data(), 1, size, file) == size;
        return std::fclose(file) == 0 && written;
    }

  private:
    void kind(memusage::events_format::Kind k) { bytes_.push_back(static_cast<uint8_t>(k)); }
    void varint(uint64_t value) {
        uint8_t room[memusage::events_format::kMaxVarint];
        uint8_t* end = memusage::events_format::put_varint(room, value);
        bytes_.insert(bytes_.end(), room, end);
    }
    void delta_time(uint64_t time) {
        varint(time - time_);
        time_ = time;
    }
    void delta_address(uint64_t address) {
        varint(memusage::events_format::zigzag(static_cast<int64_t>(address - address_)));
        address_ = address;
    }
    void put_bytes(const void* data, size_t size) {
        const auto* at = static_cast<const uint8_t*>(data);
        bytes_.insert(bytes_.end(), at, at + size);
    }

    std::vector<uint8_t> bytes_;
    uint64_t time_ = 0, address_ = 0, events_ = 0;
};

}  // namespace stat_test
