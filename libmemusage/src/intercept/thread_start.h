// New threads start through us: each thread's stack is measured from where its start
// routine is entered, and the thread is counted (profiling ticks included) from there,
// not from its first allocation. Nothing here allocates or waits for a lock the program
// may hold.
#pragma once

#include <pthread.h>

namespace memusage::thread_start {

using Routine = void* (*)(void*);
using Create = int (*)(pthread_t*, const pthread_attr_t*, Routine, void*);

// pthread_create through `create` (the C library's), with `routine` entered through ours.
int create(Create create, pthread_t* thread, const pthread_attr_t* attributes, Routine routine,
           void* argument);

}  // namespace memusage::thread_start
