// SPDX-License-Identifier: MIT
// The definitions every output shares: which stacks are the runtimes' own (decided on
// symbolised stacks made up here as glibc 2.36 makes them), which of a stream-buffer stack's
// blocks are, the temporary-block rule replayed, and a site's identity across runs.
#include "sites/definitions.h"

#include <gtest/gtest.h>

#include <deque>

namespace memusagestat {
namespace {

SourceFrame runtime(const char* function) {
    SourceFrame frame;
    frame.function = function;
    frame.module = "/lib/x86_64-linux-gnu/libc.so.6";
    frame.runtime = true;
    return frame;
}

SourceFrame program(const char* function) {
    SourceFrame frame;
    frame.function = function;
    frame.module = "/usr/bin/program";
    return frame;
}

bool kept(const std::vector<SourceFrame>& frames) {
    return kept_by_runtime(frames, shown_frames(frames));
}

TEST(RuntimeBlocks, AStreamsBufferIsTheRuntimesButGetlinesLinesAreNot) {
    EXPECT_TRUE(kept({runtime("malloc"), runtime("_IO_file_doallocate"), runtime("_IO_doallocbuf"),
                      runtime("_IO_file_underflow"), runtime("__getdelim"), program("main")}));
    EXPECT_FALSE(kept({runtime("malloc"), runtime("__getdelim"), program("main")}));
    EXPECT_TRUE(kept({runtime("malloc"), runtime("_IO_wfile_doallocate"),
                      runtime("_IO_wdoallocbuf"), runtime("fgetwc"), program("main")}));
}

TEST(RuntimeBlocks, LibgccSLoadedForUnwindingIsTheRuntimes) {
    for (const char* ending : {"pthread_exit", "pthread_cancel"})
        EXPECT_TRUE(kept({runtime("calloc"), runtime("_dl_new_object"), runtime("_dl_open"),
                          runtime("__libc_dlopen_mode"), runtime("__libc_unwind_link_get"),
                          runtime(ending), program("worker"), runtime("start_thread")}))
            << ending;
    // Before glibc 2.34.
    EXPECT_TRUE(kept({runtime("malloc"), runtime("_dl_open"), runtime("__libc_dlopen_mode"),
                      runtime("pthread_cancel_init"), runtime("__pthread_unwind"),
                      runtime("pthread_exit"), program("worker")}));
}

TEST(RuntimeBlocks, WhatTheProgramAllocatesIsItsOwnWhateverItCallsLater) {
    // A thread's own block before it calls pthread_exit.
    EXPECT_FALSE(kept({program("worker"), runtime("start_thread"), runtime("__clone3")}));
    // A program's function of one of those names is no runtime frame before the program's.
    EXPECT_FALSE(kept({runtime("malloc"), program("__libc_unwind_link_get"), program("main")}));
    EXPECT_FALSE(kept({runtime("malloc"), program("_IO_file_doallocate"), program("main")}));
    // A program's own dlopen'ed code is not the loader.
    EXPECT_FALSE(kept({runtime("malloc"), program("plugin_init"), program("main")}));
}

TEST(RuntimeBlocks, DlopenPthreadCreateAndStacksOfOnlyTheRuntimeAreTheRuntimes) {
    EXPECT_TRUE(
        kept({runtime("malloc"), runtime("_dl_new_object"), runtime("dlopen"), program("main")}));
    EXPECT_TRUE(kept(
        {runtime("calloc"), runtime("allocate_dtv"), runtime("pthread_create"), program("main")}));
    EXPECT_TRUE(kept({runtime("malloc"), runtime("pool"), runtime("_dl_init")}));
    EXPECT_FALSE(kept({}));
}

std::vector<SourceFrame> stream_buffer_stack() {
    return {runtime("malloc"),         runtime("_IO_file_doallocate"),
            runtime("_IO_doallocbuf"), runtime("_IO_file_overflow"),
            runtime("fprintf"),        program("main")};
}

TEST(KeptOfSite, OnlyTheStandardStreamsBuffersWhenTheFileNamesThem) {
    AllocationSite site;
    site.id = 7;
    site.blocks_allocated = 3;
    site.bytes_allocated = 3 * 4096;
    SitesProfile profile;
    profile.knows_standard_streams = true;
    profile.standard_stream_buffers = {{7, 4096, 0x1000}, {9, 1024, 0x2000}};
    const std::vector<SourceFrame> frames = stream_buffer_stack();
    bool whole = true;
    AllocationSite kept = kept_of_site(site, profile, frames, shown_frames(frames), whole);
    EXPECT_FALSE(whole);
    EXPECT_EQ(kept.blocks_leaked(), 1u);  // stdout's; the two others are streams never closed
    EXPECT_EQ(kept.bytes_leaked(), 4096u);
    // A file written before the collector named them: every stream buffer is the runtime's.
    profile.knows_standard_streams = false;
    kept = kept_of_site(site, profile, frames, shown_frames(frames), whole);
    EXPECT_TRUE(whole);
    EXPECT_EQ(kept.blocks_leaked(), 3u);
}

TEST(TemporaryRule, FreedBeforeTheThreadsNextHeapCall) {
    TemporaryRule rule;
    rule.allocated(1, 0x10);
    EXPECT_TRUE(rule.freed(1, 0x10));
    // Another thread's calls do not count.
    rule.allocated(1, 0x20);
    rule.allocated(2, 0x30);
    EXPECT_TRUE(rule.freed(1, 0x20));
    // A free of another block in between ends the wait.
    rule.allocated(1, 0x40);
    EXPECT_FALSE(rule.freed(1, 0x50));
    EXPECT_FALSE(rule.freed(1, 0x40));
    // Its own resize keeps the block; another's does not.
    rule.allocated(1, 0x60);
    rule.resized(1, 0x60, 0x70);
    EXPECT_TRUE(rule.freed(1, 0x70));
    rule.allocated(1, 0x80);
    rule.resized(1, 0x90, 0xa0);
    EXPECT_FALSE(rule.freed(1, 0x80));
}

ShownSite site_at(const char* module, int line, int function_line) {
    // A shown site's frames are another's (the symbolizer's): they outlive the site.
    static std::deque<SourceFrame> frames;
    SourceFrame& frame = frames.emplace_back(program("parse"));
    frame.module = module;
    frame.file = "/src/parse.c";
    frame.line = line;
    frame.function_line = function_line;
    ShownSite site;
    site.frames = {&frame};
    return site;
}

TEST(SiteIdentity, TheCallsLineFromItsFunctionsFirstLine) {
    // Lines added above the function: the same site.
    EXPECT_EQ(site_identity(site_at("/usr/bin/a", 40, 30), "a"),
              site_identity(site_at("/build/a", 41, 31), "a"));
    // A line added within the function, above the call: another.
    EXPECT_NE(site_identity(site_at("/usr/bin/a", 41, 30), "a"),
              site_identity(site_at("/usr/bin/a", 40, 30), "a"));
    // The program under another name is still the program; a library is its own module.
    EXPECT_EQ(site_identity(site_at("/usr/bin/a", 40, 30), "a"),
              site_identity(site_at("/usr/bin/b", 40, 30), "b"));
    EXPECT_NE(site_identity(site_at("/lib/libx.so", 40, 30), "a"),
              site_identity(site_at("/lib/liby.so", 40, 30), "a"));
}

}  // namespace
}  // namespace memusagestat
