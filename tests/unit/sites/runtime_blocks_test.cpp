// Which stacks are the runtimes' own, decided on symbolised stacks made up here as glibc
// 2.36 makes them.
#include "sites/runtime_blocks.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace memusagestat
