#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>

#include "config.h"
#include "memusage/sites_format.h"
#include "sites_file.h"
#include "stack_table.h"
#include "unwind.h"

namespace memusage::sites {
namespace {

// Bounds on what the tables may reserve (address space; pages are given when touched):
// a million distinct stacks of 16 frames on average.
constexpr uint32_t kMaxStacks = 1u << 20;
constexpr uint64_t kMaxFrames = uint64_t{kMaxStacks} * 16;

constinit StackTable stacks;
constinit SiteAccounts site_accounts;
constinit SitesFile file;
bool have_unwinder = false;
const char* config_path = nullptr;
std::atomic<bool> written{false};

char message[4200];
const char* cannot_write(const char* path) {
    snprintf(message, sizeof message, "cannot write the allocation sites file %s", path);
    return message;
}

}  // namespace

const char* start(const char* path, long owner) {
    // Another process of the run (one that started this one) owns the file.
    if (owner != 0 && owner != getpid()) return nullptr;
    switch (file.open(path)) {
        case SitesFile::OpenResult::opened:
            break;
        case SitesFile::OpenResult::busy:
            return nullptr;
        case SitesFile::OpenResult::failed:
            return cannot_write(path);
    }
    config_path = path;
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
    setenv(kSitesOwnerVariable, pid, 1);
    if (!stacks.init(kMaxStacks, kMaxFrames) || !site_accounts.init(kMaxStacks)) {
        file.close();
        return "out of memory for the allocation sites tables";
    }
    have_unwinder = unwind::load();
    enabled = true;
    return have_unwinder ? nullptr : "cannot load libunwind.so.8: allocation sites have no stacks";
}

SiteAccounts* accounts() { return enabled ? &site_accounts : nullptr; }

uint32_t capture_site() {
    uintptr_t frames[sites_format::kMaxDepth];
    uint32_t depth = unwind::capture(frames, sites_format::kMaxDepth);
    return stacks.intern(frames, depth);
}

void prepare_thread() {
    if (!enabled) return;
    uintptr_t frames[1];
    unwind::capture(frames, 1);
}

const char* finish(bool crashed) {
    if (!enabled || !file.is_open() || written.exchange(true)) return nullptr;
    uint32_t flags = (crashed ? sites_format::kEndedByCrash : 0) |
                     (have_unwinder ? 0 : sites_format::kUnwinderMissing);
    bool ok = file.write(stacks, site_accounts, flags);
    file.close();
    return ok ? nullptr : cannot_write(config_path);
}

void after_fork_in_child() { file.close(); }

}  // namespace memusage::sites
