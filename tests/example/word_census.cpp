// The bundled example that README.md profiles: a word census over generated text.
// It allocates the way ordinary C++ does: a growing text buffer, a vector of tokens
// (most too long for the small-string buffer), a hash map of the distinct words and
// a sorted copy, each released in turn, so the graph shows the heap climb and fall.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

std::string generate_text(size_t words, unsigned seed) {
    static const char* const syllables[] = {"kar", "lom", "mis", "nel", "rud",
                                            "san", "tiv", "vox", "zel", "bun"};
    std::string text;
    for (size_t i = 0; i < words; ++i) {
        seed = seed * 1103515245u + 12345u;
        size_t length = 2 + (seed >> 16) % 5;
        for (size_t s = 0; s < length; ++s) text += syllables[(seed >> (4 * s + 8)) % 10];
        text += ' ';
    }
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    size_t words = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 200000;
    std::string text = generate_text(words, 42);

    std::vector<std::string> tokens;
    size_t start = 0;
    for (size_t end; (end = text.find(' ', start)) != std::string::npos; start = end + 1)
        tokens.push_back(text.substr(start, end - start));
    text = std::string();

    std::unordered_map<std::string, size_t> counts;
    for (const std::string& token : tokens) ++counts[token];
    tokens = std::vector<std::string>();

    std::vector<std::pair<std::string, size_t>> ranking(counts.begin(), counts.end());
    std::sort(ranking.begin(), ranking.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });

    std::printf("%zu words, %zu distinct; most frequent:", words, ranking.size());
    for (size_t i = 0; i < 3 && i < ranking.size(); ++i)
        std::printf(" %s (%zu)", ranking[i].first.c_str(), ranking[i].second);
    std::printf("\n");
    return 0;
}
// SPDX-License-Identifier: MIT
