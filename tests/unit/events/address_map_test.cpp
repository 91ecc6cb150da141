// SPDX-License-Identifier: MIT
// The replay's address map against std::map, through long random runs of inserts and erases
// that collide, wrap around the table's end and make it grow.
#include "read/address_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace memusagestat {
namespace {

TEST(AddressMap, AgreesWithAnOrderedMapThroughRandomInsertsAndErases) {
    std::mt19937_64 random(7);
    AddressMap<uint64_t> map;
    std::map<uint64_t, uint64_t> expected;
    for (int step = 0; step < 200000; ++step) {
        // Few distinct addresses, 16 apart: many collisions, and both growing and shrinking.
        // Address 0 among them, which a damaged recording may hold.
        uint64_t address = random() % 5000 == 0 ? 0 : 0x5555'0000'0000 + 16 * (random() % 5000);
        if (random() % 3 != 0) {
            auto [value, made] = map.insert(address);
            EXPECT_EQ(made, expected.count(address) == 0);
            *value = step;
            expected[address] = step;
        } else if (uint64_t* value = map.find(address)) {
            ASSERT_EQ(expected.count(address), 1u);
            EXPECT_EQ(*value, expected[address]);
            map.erase(value);
            expected.erase(address);
        } else {
            EXPECT_EQ(expected.count(address), 0u);
        }
        ASSERT_EQ(map.size(), expected.size());
    }
    for (const auto& [address, value] : expected) {
        uint64_t* found = map.find(address);
        ASSERT_NE(found, nullptr);
        EXPECT_EQ(*found, value);
    }
    size_t drained = 0;
    map.drain([&](uint64_t address, uint64_t value) {
        EXPECT_EQ(expected.at(address), value);
        ++drained;
    });
    EXPECT_EQ(drained, expected.size());
    EXPECT_EQ(map.size(), 0u);
    EXPECT_EQ(map.find(expected.begin()->first), nullptr);
}

}  // namespace
}  // namespace memusagestat
