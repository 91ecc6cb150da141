// SPDX-License-Identifier: MIT
#include "memusage/summary.h"

#include <gtest/gtest.h>

#include <string>

namespace memusage {
namespace {

std::string render(const Stats& stats, SummaryStyle style) {
    std::string text;
    write_summary(
        stats, style,
        [](void* context, const char* piece, size_t length) {
            static_cast<std::string*>(context)->append(piece, length);
        },
        &text);
    return text;
}

// The counters glibc's collector reported for a small fixture program, so the text
// below is glibc's own output for them, byte for byte.
Stats fixture_stats() {
    Stats s = {};
    s.heap_peak = 74096;
    s.stack_peak = 1904;
    s.calls_of(Call::malloc) = 7;
    s.bytes_of(Call::malloc) = 70368744251900ULL;
    s.failed_of(Call::malloc) = 1;
    s.calls_of(Call::realloc) = 4;
    s.bytes_of(Call::realloc) = 70368744177754ULL;
    s.failed_of(Call::realloc) = 1;
    s.realloc_nomove = 1;
    s.realloc_dec = 1;
    s.realloc_free = 1;
    s.calls_of(Call::calloc) = 1;
    s.bytes_of(Call::calloc) = 100;
    s.calls_of(Call::free) = 4;
    s.bytes_of(Call::free) = 70180;
    s.histogram[0] = 2;
    s.histogram[1] = 1;
    s.histogram[3] = 1;
    s.histogram[6] = 2;
    s.histogram[12] = 1;
    s.histogram[256] = 1;
    s.histogram[kHistogramLarge] = 3;
    return s;
}

const char kGlibcText[] =
    "\n"
    "\x1b[01;32mMemory usage summary:\x1b[0;0m heap total: 140737488429754, heap peak: 74096, "
    "stack peak: 1904\n"
    "\x1b[04;34m         total calls   total memory   failed calls\x1b[0m\n"
    "\x1b[00;34m malloc|\x1b[0m          7   70368744251900   \x1b[01;41m           1\x1b[00;00m\n"
    "\x1b[00;34mrealloc|\x1b[0m          4   70368744177754   \x1b[01;41m           1\x1b[00;00m  "
    "(nomove:1, dec:1, free:1)\n"
    "\x1b[00;34m calloc|\x1b[0m          1            100              0\x1b[00;00m\n"
    "\x1b[00;34m   free|\x1b[0m          4          70180\n"
    "\x1b[01;32mHistogram for block sizes:\x1b[0;0m\n"
    "    0-15              2  18% \x1b[41;37m=================================\x1b[0;0m\n"
    "   16-31              1   9% \x1b[41;37m================\x1b[0;0m\n"
    "   48-63              1   9% \x1b[41;37m================\x1b[0;0m\n"
    "   96-111             2  18% \x1b[41;37m=================================\x1b[0;0m\n"
    "  192-207             1   9% \x1b[41;37m================\x1b[0;0m\n"
    " 4096-4111            1   9% \x1b[41;37m================\x1b[0;0m\n"
    "   large              3  27% "
    "\x1b[41;37m==================================================\x1b[0;0m\n";

TEST(Summary, ColouredTextIsGlibcsByteForByte) {
    EXPECT_EQ(render(fixture_stats(), SummaryStyle{}), kGlibcText);
}

TEST(Summary, PlainTextIsTheSameWithoutEscapes) {
    SummaryStyle plain;
    plain.color = false;
    std::string expected = kGlibcText;
    for (size_t at; (at = expected.find('\x1b')) != std::string::npos;)
        expected.erase(at, expected.find('m', at) - at + 1);
    EXPECT_EQ(render(fixture_stats(), plain), expected);
    EXPECT_EQ(render(fixture_stats(), plain).find('\x1b'), std::string::npos);
}

TEST(Summary, AlignedRowOnlyWhenUsedAndAfterCalloc) {
    Stats s = fixture_stats();
    EXPECT_EQ(render(s, SummaryStyle{}).find("aligned|"), std::string::npos);
    s.calls_of(Call::aligned) = 3;
    s.bytes_of(Call::aligned) = 4096;
    s.failed_of(Call::aligned) = 1;
    std::string text = render(s, SummaryStyle{});
    size_t row = text.find(
        "\x1b[00;34maligned|\x1b[0m          3           4096   \x1b[01;41m           "
        "1\x1b[00;00m\n");
    ASSERT_NE(row, std::string::npos);
    EXPECT_LT(text.find(" calloc|"), row);
    EXPECT_LT(row, text.find("   free|"));
}

TEST(Summary, MmapRowsFollowFreeWithGlibcsLayout) {
    Stats s = {};
    s.calls_of(Call::mmap_a) = 2;
    s.bytes_of(Call::mmap_a) = 12288;
    s.calls_of(Call::mremap) = 1;
    s.bytes_of(Call::mremap) = 4096;
    s.calls_of(Call::munmap) = 2;
    s.bytes_of(Call::munmap) = 16384;
    s.failed_of(Call::munmap) = 1;
    SummaryStyle style;
    style.mmap_rows = true;
    std::string text = render(s, style);
    EXPECT_NE(
        text.find("   free|\x1b[0m          0              0\n"
                  "\x1b[00;34mmmap(r)|\x1b[0m          0              0              0\x1b[00;00m\n"
                  "\x1b[00;34mmmap(w)|\x1b[0m          0              0              0\x1b[00;00m\n"
                  "\x1b[00;34mmmap(a)|\x1b[0m          2          12288              0\x1b[00;00m\n"
                  "\x1b[00;34m mremap|\x1b[0m          1           4096              0\x1b[00;00m  "
                  "(nomove: 0, dec:0)\n"
                  "\x1b[00;34m munmap|\x1b[0m          2          16384   \x1b[01;41m           "
                  "1\x1b[00;00m\n"
                  "\x1b[01;32mHistogram"),
        std::string::npos)
        << text;
    style.mmap_rows = false;
    EXPECT_EQ(render(s, style).find("mmap("), std::string::npos);
}

TEST(Summary, HistogramMarksTinySharesAndScalesBarsToTheLargestBucket) {
    Stats s = {};
    s.histogram[1] = 1000;    // 16-31
    s.histogram[2] = 1;       // 32-47: under one percent
    s.histogram[4095] = 500;  // 65520-65535
    std::string text = render(s, SummaryStyle{});
    EXPECT_NE(text.find("   16-31           1000  66% \x1b[41;37m" + std::string(50, '=') +
                        "\x1b[0;0m\n"),
              std::string::npos);
    EXPECT_NE(text.find("   32-47              1  <1% \x1b[41;37m\x1b[0;0m\n"), std::string::npos);
    EXPECT_NE(text.find("65520-65535         500  33% \x1b[41;37m" + std::string(25, '=') +
                        "\x1b[0;0m\n"),
              std::string::npos);
}

TEST(Summary, NoCallsPrintsAnEmptyHistogram) {
    std::string text = render(Stats{}, SummaryStyle{});
    EXPECT_EQ(text.substr(text.size() - 41), "\x1b[01;32mHistogram for block sizes:\x1b[0;0m\n");
}

TEST(Summary, LongOutputArrivesWhole) {
    Stats s = {};
    for (size_t i = 0; i < kHistogramBuckets; ++i) s.histogram[i] = i + 1;
    std::string text = render(s, SummaryStyle{});
    size_t lines = 0;
    for (char c : text) lines += c == '\n';
    EXPECT_EQ(lines, 8 + kHistogramBuckets);
    EXPECT_NE(text.find("   large           4097 "), std::string::npos);
}

template <typename Write>
std::string rendered(Write write) {
    std::string text;
    write([](void* context, const char* piece,
             size_t length) { static_cast<std::string*>(context)->append(piece, length); },
          &text);
    return text;
}

TEST(Summary, GateReportSaysWhatWasRefusedAndWhy) {
    GateReport report;
    report.config.limited = true;
    report.config.limit = 65536;
    report.refused = 3;
    report.first_refused_call = Call::calloc;
    report.first_refused_size = 4000;
    report.first_refused_heap = 63000;
    report.config.injection = Injection::from_nth_call;
    report.config.nth = 5;
    report.injected = 12;
    for (uint32_t i = 0; i < GateReport::kListed; ++i)
        report.listed[i] = InjectedCall{5 + i, i == 1 ? Call::realloc : Call::malloc};
    SummaryStyle plain;
    plain.color = false;
    std::string text = rendered(
        [&](SummarySink sink, void* context) { write_gate_report(report, plain, sink, context); });
    EXPECT_EQ(text,
              "Allocation limit: 65536 bytes; 3 calls refused, the first a calloc of 4000 bytes "
              "at heap size 63000\n"
              "Failure injection: fail every allocation call from 5 on; 12 calls made to fail: "
              "#5 malloc, #6 realloc, #7 malloc, #8 malloc, #9 malloc, #10 malloc, #11 malloc, "
              "#12 malloc, #13 malloc, #14 malloc, and 2 more\n");
}

TEST(Summary, GateReportWithNothingRefused) {
    GateReport report;
    report.config.injection = Injection::random;
    ASSERT_TRUE(parse_probability("0.01", report.config.probability));
    report.config.seed = 7;
    SummaryStyle plain;
    plain.color = false;
    std::string text = rendered(
        [&](SummarySink sink, void* context) { write_gate_report(report, plain, sink, context); });
    EXPECT_EQ(text,
              "Failure injection: fail each allocation call with probability 0.01, seed 7; 0 "
              "calls made to fail\n");
}

TEST(Summary, ThreadTableRowPerThread) {
    ThreadRow rows[2] = {{0, 4242, "main", 10, 1000, 600, 400, 2048},
                         {1, 4243, "worker-with-a-l", 4, 64, 128, -64, 96}};
    SummaryStyle plain;
    plain.color = false;
    std::string text = rendered([&](SummarySink sink, void* context) {
        write_thread_table(rows, 2, plain, sink, context);
    });
    EXPECT_EQ(text,
              "Threads: 2\n"
              "       tid  name                   calls      allocated          freed         net"
              "  stack peak\n"
              "      4242  main                      10           1000            600         400"
              "        2048\n"
              "      4243  worker-with-a-l            4             64            128         -64"
              "          96\n");
}

}  // namespace
}  // namespace memusage
