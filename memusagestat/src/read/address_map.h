// SPDX-License-Identifier: MIT
// A map from block addresses to what is known of each block: open addressing with linear
// probing in one array, and deletion by shifting back (no tombstones), because node-based
// maps spent most of their time allocating nodes. The replay keeps here the live blocks its
// compact entries cannot hold (block_replay.h), which may be many, so a slot is the address
// and the value alone (address 0, which marks an empty slot, is kept apart), the table fills
// to 3/4 before it doubles, and the old table's pages go back to the system as they are
// copied out of, never both tables whole at once.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <utility>

namespace memusagestat {

template <class Value>
class AddressMap {
  public:
    AddressMap() { allocate(kInitialSlots); }
    ~AddressMap() { release(slots_, capacity_); }
    AddressMap(const AddressMap&) = delete;
    AddressMap& operator=(const AddressMap&) = delete;

    // The value for `address`, or null.
    Value* find(uint64_t address) {
        if (address == 0) return zero_ ? &*zero_ : nullptr;
        for (size_t i = home(address);; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (slot.address == 0) return nullptr;
            if (slot.address == address) return &slot.value;
        }
    }

    // The slot for `address`, made (with a default value) if it was not there; the bool says
    // whether it was made. The pointer holds until the next insert or erase.
    std::pair<Value*, bool> insert(uint64_t address) {
        if (address == 0) {
            const bool made = !zero_;
            if (made) {
                zero_.emplace();
                ++size_;
            }
            return {&*zero_, made};
        }
        if ((size_ + 1) * 4 > capacity_ * 3) grow();
        return insert_nonzero(address);
    }

    // Removes `address`'s entry; `value` must be find(address).
    void erase(Value* value) {
        --size_;
        if (zero_ && value == &*zero_) {
            zero_.reset();
            return;
        }
        size_t hole = static_cast<size_t>(
            reinterpret_cast<Slot*>(reinterpret_cast<char*>(value) - offsetof(Slot, value)) -
            slots_);
        // Entries after the hole that would no longer be found move back into it.
        for (size_t i = (hole + 1) & mask();; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (slot.address == 0) break;
            size_t want = home(slot.address);
            bool reachable_past_hole = ((i - want) & mask()) >= ((i - hole) & mask());
            if (reachable_past_hole) {
                slots_[hole] = slot;
                hole = i;
            }
        }
        slots_[hole].address = 0;
    }

    size_t size() const { return size_; }
    // The table's own bytes: what the map holds beyond its entries' count.
    size_t memory_bytes() const { return capacity_ * sizeof(Slot); }

    // Every entry, in no particular order; then the map is empty.
    template <class Visit>
    void drain(Visit visit) {
        if (zero_) visit(uint64_t{0}, *zero_);
        for (size_t i = 0; i < capacity_; ++i)
            if (slots_[i].address != 0) visit(slots_[i].address, slots_[i].value);
        zero_.reset();
        release(slots_, capacity_);
        allocate(kInitialSlots);
        size_ = 0;
    }

  private:
    static constexpr size_t kInitialSlots = size_t{1} << 10;
    struct Slot {
        uint64_t address;  // 0: empty
        Value value;
    };

    size_t mask() const { return capacity_ - 1; }
    // Fibonacci hashing: the product's top bits depend on every bit of the address, so
    // neighbouring blocks spread over the table.
    size_t home(uint64_t address) const {
        return static_cast<size_t>((address * 0x9e3779b97f4a7c15ULL) >> shift_);
    }

    std::pair<Value*, bool> insert_nonzero(uint64_t address) {
        for (size_t i = home(address);; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (slot.address == 0) {
                slot.address = address;
                slot.value = Value{};
                ++size_;
                return {&slot.value, true};
            }
            if (slot.address == address) return {&slot.value, false};
        }
    }

    // Anonymous pages: zero (every slot empty) without being written, and given back page by
    // page while growing.
    void allocate(size_t capacity) {
        void* pages = ::mmap(nullptr, capacity * sizeof(Slot), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pages == MAP_FAILED) throw std::bad_alloc();
        slots_ = static_cast<Slot*>(pages);
        capacity_ = capacity;
        shift_ = 64;
        for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    }
    static void release(Slot* slots, size_t capacity) {
        if (slots != nullptr) ::munmap(slots, capacity * sizeof(Slot));
    }

    void grow() {
        Slot* old = slots_;
        const size_t old_capacity = capacity_;
        allocate(old_capacity * 2);
        size_ = zero_ ? 1 : 0;
        // The old table goes back to the system a stretch at a time behind the copying.
        constexpr size_t kStretch = size_t{1} << 20;
        const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        char* const start = reinterpret_cast<char*>(old);
        size_t given_back = 0;
        for (size_t i = 0; i < old_capacity; ++i) {
            if (old[i].address != 0) *insert_nonzero(old[i].address).first = old[i].value;
            const size_t copied = (i + 1) * sizeof(Slot) / page * page;
            if (copied - given_back >= kStretch) {
                ::madvise(start + given_back, copied - given_back, MADV_DONTNEED);
                given_back = copied;
            }
        }
        release(old, old_capacity);
    }

    Slot* slots_ = nullptr;
    size_t capacity_ = 0;
    size_t size_ = 0;
    unsigned shift_ = 64 - 10;   // 64 - log2(capacity)
    std::optional<Value> zero_;  // the entry of address 0, when there is one
};

}  // namespace memusagestat
