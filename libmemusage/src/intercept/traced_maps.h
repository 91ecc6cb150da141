// SPDX-License-Identifier: MIT
// mmap, mremap, munmap and mprotect as MEMUSAGE_TRACE_MMAP counts them.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "heap/counting.h"

namespace memusage::traced {

void* map(Counting& counting, void* address, size_t length, int protection, int flags, int fd,
          off64_t offset);
void* remap(Counting& counting, void* old_address, size_t old_length, size_t new_length, int flags,
            void* new_address);
int unmap(Counting& counting, void* address, size_t length);
int protect(Counting& counting, void* address, size_t length, int protection);

}  // namespace memusage::traced
