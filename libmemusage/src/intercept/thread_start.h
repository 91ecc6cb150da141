// SPDX-License-Identifier: MIT
// New threads start through us: each thread's stack is measured from where its start
// routine is entered, and the thread is counted (profiling ticks included) from there,
// not from its first allocation. Nothing here allocates or waits for a lock the program
// may hold.
#pragma once

#include <pthread.h>
#include <threads.h>

namespace memusage::thread_start {

using Routine = void* (*)(void*);
using Create = int (*)(pthread_t*, const pthread_attr_t*, Routine, void*);

// pthread_create through `create` (the C library's), with `routine` entered through ours.
int create(Create create, pthread_t* thread, const pthread_attr_t* attributes, Routine routine,
           void* argument);

// C11's thrd_create, which the C library starts without calling pthread_create by name
// (so without ours): the same, with the default stack size.
using C11Routine = thrd_start_t;
using C11Create = int (*)(thrd_t*, thrd_start_t, void*);
int create_c11(C11Create create, thrd_t* thread, C11Routine routine, void* argument);

}  // namespace memusage::thread_start
