// SPDX-License-Identifier: MIT
// The table of a value per raw site id that the replays look up for every event: it must
// answer as a map would, for the collector's dense ids and for a damaged file's far ones.
#include "sites/site_id_table.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace memusagestat {
namespace {

TEST(SiteIdTable, AnswersAsAMapForDenseAndFarIds) {
    std::mt19937 random(5);
    SiteIdTable<int32_t> table(1000, -1);
    std::unordered_map<uint32_t, int32_t> model;
    for (int i = 0; i < 20000; ++i) {
        // Mostly the collector's ids from 1 up, some far past them, and the largest.
        const uint32_t roll = random() % 100;
        const uint32_t id = roll < 90   ? 1 + random() % 1500
                            : roll < 99 ? random()
                                        : UINT32_MAX - random() % 2;
        const int32_t value = static_cast<int32_t>(random() % 5000);
        if (random() % 2 == 0) {
            table.at(id) = value;
            model[id] = value;
        } else {
            int32_t& first = table.at(id);  // kept if set, as the replays keep the first
            if (first == -1) first = value;
            model.try_emplace(id, value);
        }
    }
    const SiteIdTable<int32_t>& read = table;
    for (const auto& [id, value] : model) ASSERT_EQ(read[id], value) << id;
    for (int i = 0; i < 20000; ++i) {
        const uint32_t id = i % 2 == 0 ? static_cast<uint32_t>(i) : random();
        auto found = model.find(id);
        ASSERT_EQ(read[id], found == model.end() ? -1 : found->second) << id;
    }
}

TEST(SiteIdTable, FarIdsDoNotGrowTheArray) {
    // A damaged file's id near 2^32 must not make an array of 2^32 values.
    SiteIdTable<uint32_t> table(10, 0);
    table.at(UINT32_MAX - 1) = 7;
    table.at(4000000000u) = 8;
    table.at(3) = 9;
    const SiteIdTable<uint32_t>& read = table;
    EXPECT_EQ(read[UINT32_MAX - 1], 7u);
    EXPECT_EQ(read[4000000000u], 8u);
    EXPECT_EQ(read[3], 9u);
    EXPECT_EQ(read[4], 0u);
    EXPECT_LE(table.dense_size(), 100u);
}

}  // namespace
}  // namespace memusagestat
