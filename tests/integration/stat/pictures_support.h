// SPDX-License-Identifier: MIT
// What the pictures' tests share: running memusagestat, decoding its PNGs, the colours and
// places to look at, and where the pictures' fixture allocates.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "draw/picture_style.h"
#include "pictures/block_map.h"
#include "stat_test_support.h"

namespace stat_test {

inline Outcome stat_run(std::vector<std::string> args) {
    args.insert(args.begin(), MEMUSAGESTAT);
    return run(args);
}

inline Image png(const std::string& path) {
    Image image;
    EXPECT_TRUE(decode_png(path, image)) << path;
    return image;
}

inline bool near_colour(Rgb c, memusagestat::Colour want, int slack = 40) {
    auto close = [&](uint8_t got, double expected) {
        return std::abs(static_cast<int>(got) - static_cast<int>(std::lround(expected * 255))) <=
               slack;
    };
    return close(c.r, want.r) && close(c.g, want.g) && close(c.b, want.b);
}
inline bool reddish(Rgb c) { return c.r > 150 && c.r > c.g + 60 && c.r > c.b + 60; }

// The plot's inside of a default-size block map, and where a value of a single address
// region [low, high) lands in it.
inline const memusagestat::PlotFrame kMap = memusagestat::block_map_frame(800, 600);
inline unsigned map_row(uint64_t address, uint64_t low, uint64_t high) {
    const double fraction = static_cast<double>(address - low) / static_cast<double>(high - low);
    return static_cast<unsigned>(kMap.bottom - fraction * kMap.height());
}
inline unsigned map_column(double fraction) {
    return static_cast<unsigned>(kMap.left + fraction * kMap.width());
}

// Where the pictures' fixture has SITE(marker): "fixture_pictures.c:LINE".
inline std::string fixture_line(const std::string& marker) {
    std::ifstream in(FIXTURE_PICTURES_SOURCE);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find("SITE(" + marker + ")") != std::string::npos)
            return "fixture_pictures.c:" + std::to_string(number);
    return "no SITE(" + marker + ")";
}

}  // namespace stat_test
