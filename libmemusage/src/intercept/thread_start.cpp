// SPDX-License-Identifier: MIT
#include "intercept/thread_start.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "intercept/collector.h"
#include "platform/clock.h"
#include "platform/pages.h"
#include "platform/stacks.h"

namespace memusage::thread_start {
namespace {

// What the new thread needs from its creator. Slots of a fixed table, taken and given
// back without a lock; when all are in use (more threads starting at once than the table
// holds), a page of its own.
struct Start {
    Routine routine;         // pthread_create's, or null for
    C11Routine c11_routine;  // thrd_create's
    void* argument;
    uintptr_t given;    // the stack the program gave the thread, if any
    size_t given_size;  // 0: none
    size_t size;        // the stack's size as the thread library makes it
    std::atomic<bool> taken;
    bool own_page;
};

constexpr size_t kSlots = 64;
constinit Start slots[kSlots] = {};

Start* take_slot() {
    for (Start& slot : slots) {
        bool expected = false;
        if (!slot.taken.load(std::memory_order_relaxed) &&
            slot.taken.compare_exchange_strong(expected, true, std::memory_order_acquire))
            return &slot;
    }
    auto* page = static_cast<Start*>(allocate_pages(sizeof(Start)));
    if (page != nullptr) page->own_page = true;
    return page;
}

void give_back(Start* start) {
    if (start->own_page)
        free_pages(start, sizeof(Start));
    else
        start->taken.store(false, std::memory_order_release);
}

// Where a new thread's stack begins (`top`, the start routine's frame): the thread is
// attached there, and `start` given back.
void begin(Start* start, uintptr_t top) {
    StackRange own = new_thread_stack(top, start->given, start->given_size, start->size);
    give_back(start);
    collector::thread_begins(top, own);
}

// The start routine of every thread the program creates: where its stack begins.
void* enter(void* argument) {
    auto* start = static_cast<Start*>(argument);
    Routine routine = start->routine;
    void* routine_argument = start->argument;
    begin(start, this_frame_top());
    return routine(routine_argument);
}

int enter_c11(void* argument) {
    auto* start = static_cast<Start*>(argument);
    C11Routine routine = start->c11_routine;
    void* routine_argument = start->argument;
    begin(start, this_frame_top());
    return routine(routine_argument);
}

// The stack the thread library will give the thread: the program's own (pthread_attr_
// setstack), or the size it asked for, or the default. None of these calls allocates.
void read_stack(const pthread_attr_t* attributes, Start& start) {
    pthread_attr_t defaults;
    const pthread_attr_t* read = attributes;
    if (read == nullptr) {
        if (pthread_attr_init(&defaults) != 0) return;
        read = &defaults;
    }
    size_t size = 0;
    if (pthread_attr_getstacksize(read, &size) == 0) start.size = size;
    void* given = nullptr;
    size_t given_size = 0;
    if (attributes != nullptr && pthread_attr_getstack(attributes, &given, &given_size) == 0) {
        start.given = reinterpret_cast<uintptr_t>(given);
        start.given_size = given_size;
    }
    if (read == &defaults) pthread_attr_destroy(&defaults);
}

void prepare(Start& start, Routine routine, C11Routine c11_routine, void* argument) {
    start.routine = routine;
    start.c11_routine = c11_routine;
    start.argument = argument;
    start.given = 0;
    start.given_size = 0;
    start.size = 0;
}

}  // namespace

int create(Create create, pthread_t* thread, const pthread_attr_t* attributes, Routine routine,
           void* argument) {
    Start* start = take_slot();
    if (start == nullptr) return create(thread, attributes, routine, argument);
    prepare(*start, routine, nullptr, argument);
    read_stack(attributes, *start);
    int result = create(thread, attributes, enter, start);
    if (result != 0) give_back(start);
    return result;
}

int create_c11(C11Create create, thrd_t* thread, C11Routine routine, void* argument) {
    Start* start = take_slot();
    if (start == nullptr) return create(thread, routine, argument);
    prepare(*start, nullptr, routine, argument);
    read_stack(nullptr, *start);
    int result = create(thread, enter_c11, start);
    if (result != thrd_success) give_back(start);
    return result;
}

}  // namespace memusage::thread_start
