// SPDX-License-Identifier: MIT
#include "heap/address_table.h"

#include <sys/mman.h>

namespace memusage {

// Probing stops at this many slots: a table that full is as good as full.
constexpr size_t kMaxProbes = 4096;

bool AddressTable::open(size_t slots_power_of_two) {
    bytes_ = slots_power_of_two * sizeof(Slot);
    void* pages = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pages == MAP_FAILED) return false;
    slots_ = static_cast<Slot*>(pages);
    mask_ = slots_power_of_two - 1;
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(slots_power_of_two));
    count_.store(0, std::memory_order_relaxed);
    return true;
}

void AddressTable::close() {
    if (slots_ != nullptr) munmap(slots_, bytes_);
    slots_ = nullptr;
}

size_t AddressTable::index_of(uintptr_t key) const {
    // Blocks are 16-byte aligned: the low bits say nothing. Fibonacci hashing spreads the rest.
    return static_cast<size_t>(((key >> 4) * 0x9e3779b97f4a7c15ULL) >> shift_) & mask_;
}

bool AddressTable::insert(const void* address, const Block& block) {
    const auto key = reinterpret_cast<uintptr_t>(address);
    size_t index = index_of(key);
    for (size_t probe = 0; probe < kMaxProbes; ++probe, index = (index + 1) & mask_) {
        Slot& slot = slots_[index];
        uintptr_t seen = slot.key.load(std::memory_order_relaxed);
        if (seen != kEmpty && seen != kTombstone) continue;
        // What it holds is read only by the block's free, which comes after the block is
        // handed out.
        if (slot.key.compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
            slot.block = block;
            count_.fetch_add(1, std::memory_order_relaxed);
            return true;
        }
    }
    return false;
}

bool AddressTable::remove(const void* address, Block& block) {
    const auto key = reinterpret_cast<uintptr_t>(address);
    size_t index = index_of(key);
    for (size_t probe = 0; probe < kMaxProbes; ++probe, index = (index + 1) & mask_) {
        Slot& slot = slots_[index];
        uintptr_t seen = slot.key.load(std::memory_order_acquire);
        if (seen == kEmpty) return false;
        if (seen != key) continue;
        block = slot.block;
        slot.key.store(kTombstone, std::memory_order_release);
        count_.fetch_sub(1, std::memory_order_relaxed);
        return true;
    }
    return false;
}

}  // namespace memusage
