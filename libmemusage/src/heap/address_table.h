// SPDX-License-Identifier: MIT
// The sizes (and allocation sites) of the blocks an attached collector counts, kept beside
// them: a block handed out after an attach carries no header (the program goes on freeing it
// with the C library's free once the collector has detached), so what a header would say is
// found by its address. Open addressing in
// pages of our own, lock-free: a slot is claimed by a compare-and-swap of its key, a block
// freed leaves a tombstone that a later insert may take. An address is in the table at most
// once: its free removes it before the real free gives the address back to the allocator,
// whose lock orders that before any later allocation of the same address.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memusage {

class AddressTable {
  public:
    // What a block's header would hold: its size, and with allocation sites on its site tag
    // and the stack it last grew at (site_accounts.h; 0: none).
    struct Block {
        uint64_t size;
        uint32_t site;
        uint32_t grown_at;
    };

    // Maps the table (reserved, the pages touched as used). False when the pages cannot
    // be had.
    bool open(size_t slots_power_of_two);
    void close();
    bool is_open() const { return slots_ != nullptr; }

    // False when the table is full: the block is then not counted.
    bool insert(const void* address, const Block& block);
    // The block at `address`, removed from the table; false for an address the table does
    // not hold (a block allocated before the attach).
    bool remove(const void* address, Block& block);
    // How many blocks the table holds.
    size_t count() const { return count_.load(std::memory_order_relaxed); }

  private:
    struct Slot {
        std::atomic<uintptr_t> key;
        Block block;
    };
    static constexpr uintptr_t kEmpty = 0;
    static constexpr uintptr_t kTombstone = 1;
    size_t index_of(uintptr_t key) const;

    Slot* slots_ = nullptr;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t bytes_ = 0;
    std::atomic<size_t> count_{0};
};

}  // namespace memusage
