// SPDX-License-Identifier: MIT
#include "sites/symbolizer.h"

#include <gtest/gtest.h>

#include "sites_test_support.h"

namespace memusage {
namespace {

using memusagestat::SitesProfile;
using memusagestat::Symbolizer;

__attribute__((noinline)) uintptr_t return_address() {
    return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

// A sites file whose one site has `stack`, read back into `profile` (the modules a
// Symbolizer takes): empty, or the reader's message.
std::string read_profile_of(const std::vector<uintptr_t>& stack, SitesProfile& profile) {
    WrittenSites written;
    uint32_t site = written.site(stack);
    written.event(SiteChange::new_block, site, 1);
    return written.write_and_read(profile);
}

TEST(Symbolizer, NamesTheFunctionFileAndLineOfAReturnAddress) {
    uintptr_t here = return_address();
    const int line = __LINE__ - 1;
    SitesProfile profile;
    ASSERT_EQ(read_profile_of({here}, profile), "");
    Symbolizer symbolizer(profile.modules);
    const auto& frames = symbolizer.frames_of(here);
    ASSERT_FALSE(frames.empty());
    const auto& frame = frames.back();
    EXPECT_NE(frame.function.find("NamesTheFunctionFileAndLineOfAReturnAddress"), std::string::npos)
        << frame.function;
    EXPECT_TRUE(frame.file.ends_with("symbolizer_test.cpp")) << frame.file;
    EXPECT_EQ(frame.line, line);
    EXPECT_FALSE(frame.inlined);
    EXPECT_FALSE(frame.runtime);
    EXPECT_TRUE(symbolizer.notes().empty());
    EXPECT_EQ(&symbolizer.frames_of(here), &frames) << "cached";
}

// The replaying steps close the files once every site is named: what was named stays, and
// an address met only afterwards is still named, its module opened again.
TEST(Symbolizer, NamesOnAfterItsFilesAreClosed) {
    uintptr_t first = return_address();
    const int first_line = __LINE__ - 1;
    uintptr_t second = return_address();
    SitesProfile profile;
    ASSERT_EQ(read_profile_of({first, second}, profile), "");
    Symbolizer symbolizer(profile.modules);
    const auto& named = symbolizer.frames_of(first);
    ASSERT_FALSE(named.empty());
    symbolizer.close_files();
    EXPECT_EQ(&symbolizer.frames_of(first), &named) << "kept";
    EXPECT_EQ(named.back().line, first_line);
    const auto& later = symbolizer.frames_of(second);
    ASSERT_FALSE(later.empty());
    Symbolizer never_closed(profile.modules);
    const auto& expected = never_closed.frames_of(second);
    ASSERT_EQ(later.size(), expected.size());
    for (size_t i = 0; i < later.size(); ++i) {
        EXPECT_EQ(later[i].function, expected[i].function);
        EXPECT_EQ(later[i].file, expected[i].file);
        EXPECT_EQ(later[i].line, expected[i].line);
    }
    EXPECT_NE(later.back().function.find("NamesOnAfterItsFilesAreClosed"), std::string::npos)
        << later.back().function;
    EXPECT_TRUE(symbolizer.notes().empty());
}

// __cxa_demangle also reads a bare type code ("i" is int, "St3foo" std::foo), which is
// what a C function of that name would become: only a mangled name (_Z...) is demangled.
TEST(Symbolizer, DemanglesOnlyMangledNames) {
    using memusagestat::demangled_name;
    for (const char* c_name : {"i", "f", "d", "Ss", "St3foo", "w", "main", "_start", "malloc"})
        EXPECT_EQ(demangled_name(c_name), c_name);
    EXPECT_EQ(demangled_name("_Z1iv"), "i()");
    EXPECT_EQ(demangled_name("_ZNSs4swapERSs"), "std::string::swap(std::string&)");
    EXPECT_EQ(demangled_name("_Znot_a_mangling"), "_Znot_a_mangling");
    EXPECT_EQ(demangled_name(nullptr), "");
}

TEST(Symbolizer, AnAddressInNoModuleIsItsOwnNumber) {
    Symbolizer symbolizer({});
    const auto& frames = symbolizer.frames_of(0x1234);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].function, "");
    EXPECT_EQ(frames[0].module, "");
    EXPECT_EQ(frames[0].offset, 0x1234u);
}

TEST(Symbolizer, AModuleWhoseFileIsGoneGetsANote) {
    memusagestat::SitesModule gone;
    gone.path = "/nonexistent/libgone.so";
    gone.load_bias = 0x7f0000000000;
    gone.start = 0x7f0000001000;
    gone.end = 0x7f0000002000;
    std::vector<memusagestat::SitesModule> modules = {gone};
    Symbolizer symbolizer(modules);
    const auto& frames = symbolizer.frames_of(0x7f0000001234);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].module, gone.path);
    EXPECT_EQ(frames[0].offset, 0x1234u);
    ASSERT_EQ(symbolizer.notes().size(), 1u);
    EXPECT_NE(symbolizer.notes()[0].find("is gone"), std::string::npos);
    symbolizer.frames_of(0x7f0000001300);
    symbolizer.close_files();
    symbolizer.frames_of(0x7f0000001400);
    EXPECT_EQ(symbolizer.notes().size(), 1u) << "one note per module, closed and opened again";
}

}  // namespace
}  // namespace memusage
