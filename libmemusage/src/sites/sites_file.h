// SPDX-License-Identifier: MIT
// The sites file as the profiled process owns it: opened (and locked) at start, written
// once at exit in the layout of memusage/sites_format.h. Writing allocates nothing and
// makes only async-signal-safe calls, dl_iterate_phdr aside, so that a fatal signal's
// handler can write it too.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "memusage/sites_format.h"
#include "platform/owned_file.h"
#include "sites/site_accounts.h"
#include "sites/stack_table.h"

namespace memusage {

class SitesFile {
  public:
    // Creates or truncates `path` (OwnedFile::open), empty until write(). `busy`: another
    // process holds it. `failed`: errno says why.
    OpenResult open(const char* path);
    bool is_open() const { return file_.is_open(); }

    // The loaded modules, then every site with figures (and the first refused allocation's,
    // an id or 0), the standard streams' buffers (at most kMaxStreamBuffers), then the
    // header. `flags` are sites_format's header flags. False if the file could not be
    // written whole, write_error() saying why.
    bool write(const StackTable& stacks, const SiteAccounts& accounts, uint32_t flags,
               uint32_t first_refused_site = 0,
               const sites_format::StreamBufferRecord* stream_buffers = nullptr,
               uint32_t stream_buffer_count = 0);

    // Why write() failed: an errno value (EFBIG under a file size limit, ENOSPC on a full
    // file system, ENOENT when the file was removed); 0 before any failure.
    int write_error() const { return write_error_; }

    // Also how a forked child lets go of its parent's file: nothing is written.
    void close();

  private:
    OwnedFile file_;
    int write_error_ = 0;
};

}  // namespace memusage
