// SPDX-License-Identifier: MIT
// What one libunwind unw_backtrace costs on this machine, at several stack depths, for the
// sites benchmark's reading: the fixed part and the part a frame. libunwind is loaded
// privately, as the collector loads it. Prints one line per depth and the least-squares
// line through them.
//
//   cc -O2 -o unwind_cost unwind_cost.c -ldl && ./unwind_cost
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*Backtrace)(void** buffer, int size);
static Backtrace backtrace_function;

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

// Unwinds `calls` times from `levels` frames deeper than its caller; the frames found.
__attribute__((noinline)) static int unwind_below(int levels, int calls) {
    if (levels > 0) {
        int found = unwind_below(levels - 1, calls);
        __asm__ volatile("");  // no tail call: every level keeps its frame
        return found;
    }
    void* frames[80];
    int found = 0;
    for (int i = 0; i < calls; ++i) found = backtrace_function(frames, 80);
    return found;
}

int main(void) {
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL ||
        (backtrace_function = (Backtrace)dlsym(library, "unw_backtrace")) == NULL) {
        fprintf(stderr, "unwind_cost: cannot load libunwind.so.8\n");
        return 1;
    }
    enum { kCalls = 1000000, kSteps = 5 };
    double sum_x = 0, sum_y = 0, sum_xx = 0, sum_xy = 0;
    for (int step = 0; step < kSteps; ++step) {
        unwind_below(step * 4, 1000);  // libunwind's caches warm
        double start = seconds();
        int frames = unwind_below(step * 4, kCalls);
        double ns = (seconds() - start) / kCalls * 1e9;
        printf("%2d frames: %6.1f ns\n", frames, ns);
        sum_x += frames, sum_y += ns, sum_xx += (double)frames * frames, sum_xy += frames * ns;
    }
    double per_frame = (kSteps * sum_xy - sum_x * sum_y) / (kSteps * sum_xx - sum_x * sum_x);
    printf("unw_backtrace: %.1f ns + %.1f ns a frame\n", (sum_y - per_frame * sum_x) / kSteps,
           per_frame);
    return 0;
}
