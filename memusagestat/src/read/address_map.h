// A map from block addresses to what is known of each live block: open addressing with
// linear probing in one array, and deletion by shifting back (no tombstones), because the
// replay inserts and erases once per event and node-based maps spent most of its time
// allocating nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace memusagestat {

template <class Value>
class AddressMap {
  public:
    AddressMap() { slots_.resize(kInitialSlots); }

    // The value for `address`, or null.
    Value* find(uint64_t address) {
        for (size_t i = home(address);; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (!slot.used) return nullptr;
            if (slot.address == address) return &slot.value;
        }
    }

    // The slot for `address`, made (with a default value) if it was not there; the bool says
    // whether it was made. The pointer holds until the next insert or erase.
    std::pair<Value*, bool> insert(uint64_t address) {
        if ((size_ + 1) * 2 > slots_.size()) grow();
        for (size_t i = home(address);; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (!slot.used) {
                slot = Slot{address, Value{}, true};
                ++size_;
                return {&slot.value, true};
            }
            if (slot.address == address) return {&slot.value, false};
        }
    }

    // Removes `address`'s entry; `value` must be find(address).
    void erase(Value* value) {
        size_t hole = static_cast<size_t>(
            reinterpret_cast<Slot*>(reinterpret_cast<char*>(value) - offsetof(Slot, value)) -
            slots_.data());
        // Entries after the hole that would no longer be found move back into it.
        for (size_t i = (hole + 1) & mask();; i = (i + 1) & mask()) {
            Slot& slot = slots_[i];
            if (!slot.used) break;
            size_t want = home(slot.address);
            bool reachable_past_hole = ((i - want) & mask()) >= ((i - hole) & mask());
            if (reachable_past_hole) {
                slots_[hole] = std::move(slot);
                hole = i;
            }
        }
        slots_[hole].used = false;
        --size_;
    }

    size_t size() const { return size_; }

    // Every entry, in no particular order; then the map is empty.
    template <class Visit>
    void drain(Visit visit) {
        for (Slot& slot : slots_)
            if (slot.used) visit(slot.address, slot.value);
        slots_.assign(kInitialSlots, Slot{});
        size_ = 0;
        shift_ = 64 - 10;
    }

  private:
    static constexpr size_t kInitialSlots = size_t{1} << 10;
    struct Slot {
        uint64_t address = 0;
        Value value{};
        bool used = false;
    };

    size_t mask() const { return slots_.size() - 1; }
    // Fibonacci hashing: the product's top bits depend on every bit of the address, so
    // neighbouring blocks spread over the table.
    size_t home(uint64_t address) const {
        return static_cast<size_t>((address * 0x9e3779b97f4a7c15ULL) >> shift_);
    }
    void grow() {
        --shift_;
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        size_ = 0;
        for (Slot& slot : old)
            if (slot.used) *insert(slot.address).first = std::move(slot.value);
    }

    std::vector<Slot> slots_;
    size_t size_ = 0;
    unsigned shift_ = 64 - 10;  // 64 - log2(slots)
};

}  // namespace memusagestat
