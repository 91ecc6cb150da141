// SPDX-License-Identifier: MIT
// Which addresses hold a described block now (block_replay.h): one bit per 16 bytes of
// address (blocks are 16-byte aligned), in pages of kPageBytes of bits found by the
// address's high bits. Sparse: only the address ranges the heap ever used have pages, so the
// memory is about the heap's span / 128 (a 1 GiB heap: 8 MiB), whatever the number of
// blocks, and a test or a change touches one page, most often the last one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "read/address_map.h"

namespace memusagestat {

class LiveBitmap {
  public:
    // Sets the bit of `address`; false if it was set already.
    bool set(uint64_t address) {
        uint64_t& word = word_of(address);
        const uint64_t bit = bit_of(address);
        const bool was = (word & bit) != 0;
        word |= bit;
        return !was;
    }
    // Clears the bit of `address`; false if it was not set.
    bool clear(uint64_t address) {
        uint64_t* word = find_word(address);
        const uint64_t bit = bit_of(address);
        if (word == nullptr || (*word & bit) == 0) return false;
        *word &= ~bit;
        return true;
    }
    // Every page given back.
    void reset() {
        pages_.clear();
        pages_.shrink_to_fit();
        index_.drain([](uint64_t, const uint32_t&) {});
        last_page_ = kNoPage;
        last_ = nullptr;
    }
    size_t memory_bytes() const { return pages_.size() * kPageBytes + index_.memory_bytes(); }

  private:
    static constexpr unsigned kGrainBits = 4;         // one bit per 16 bytes
    static constexpr size_t kPageBytes = 512;         // 64 KiB of address a page
    static constexpr unsigned kPageAddressBits = 16;  // log2(kPageBytes * 8) + kGrainBits
    static constexpr size_t kPageWords = kPageBytes / sizeof(uint64_t);
    static constexpr uint64_t kNoPage = UINT64_MAX;

    static uint64_t bit_of(uint64_t address) {
        return uint64_t{1} << ((address >> kGrainBits) & 63);
    }
    static size_t word_in_page(uint64_t address) {
        return static_cast<size_t>((address >> (kGrainBits + 6)) & (kPageWords - 1));
    }

    uint64_t* find_word(uint64_t address) {
        const uint64_t page = address >> kPageAddressBits;
        if (page != last_page_) {
            const uint32_t* found = index_.find(page);
            if (found == nullptr) return nullptr;
            last_page_ = page;
            last_ = pages_[*found].get();
        }
        return &last_[word_in_page(address)];
    }
    uint64_t& word_of(uint64_t address) {
        const uint64_t page = address >> kPageAddressBits;
        if (page != last_page_) {
            auto [slot, made] = index_.insert(page);
            if (made) {
                *slot = static_cast<uint32_t>(pages_.size());
                pages_.emplace_back(new uint64_t[kPageWords]());
            }
            last_page_ = page;
            last_ = pages_[*slot].get();
        }
        return last_[word_in_page(address)];
    }

    std::vector<std::unique_ptr<uint64_t[]>> pages_;
    AddressMap<uint32_t> index_;  // page number to its place in pages_
    uint64_t last_page_ = kNoPage;
    uint64_t* last_ = nullptr;
};

}  // namespace memusagestat
