// SPDX-License-Identifier: MIT
// The event recording (MEMUSAGE_EVENTS): every heap block's allocation, resize and free, with
// its address, size, thread and site, in the merged order the summary's peaks were taken in.
// The collector writes it as the run goes; memusagestat replays it (block map, heap by site,
// lifetimes). Compact: varints and deltas, about 6 bytes an event.
//
//   FileHeader
//   chunks, each: a Clock record, then records, in the merged event order
//   Trailer (only when the run ended: a killed run leaves the chunks written so far)
//
// A record is a kind byte and its fields, each an unsigned LEB128 varint; "signed" fields are
// zigzag-encoded. Every chunk starts from nothing: a Clock record sets the time, no thread is
// current and none is named until a Thread record names it (with its tid), and every
// thread's address base is 0. So a reader can resynchronise at a chunk and a damaged chunk
// spoils only itself. Native byte order for the fixed parts.
//
// Addresses are deltas per thread: from the same thread's previous address in the chunk, as
// each thread allocates in its own arena, and the merged order switches thread often. A
// switch back to a thread the chunk has named already costs a Thread-again record (its
// serial), without the tid.
//
// A chunk reaches the file with its first byte (the Clock record's kind) written last, so
// a run killed halfway through writing one leaves a 0 where that chunk's kind byte would
// be: a reader ends there, with the whole chunks before it. (Without that, a write cut
// inside a varint leaves a shorter varint followed by zeros, which decodes as records.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "memusage/machine_format.h"

namespace memusage::events_format {

inline constexpr char kMagic[8] = {'M', 'U', 'E', 'V', 'E', 'N', 'T', '\n'};
inline constexpr char kTrailerMagic[8] = {'M', 'U', 'E', 'V', 'E', 'N', 'D', '\n'};
// 2: addresses are deltas per thread, and a chunk names a thread's tid once (Thread again).
// Version 1 (one address delta chain for all threads, the tid at every switch) is not read.
// 3: the header ends with the writing machine's stamp (machine_format.h); version 2 reads
// as written on the reader's own kind of machine.
// 4: the described kinds (allocate/release/resize described, 8 to 10): a block with a site
// is described, its release or resize saying its size, site, thread and times, so that a
// reader keeps no table of the blocks alive for it. Versions 2 and 3 have kinds 1 to 7 only.
inline constexpr uint32_t kVersion = 4;
inline constexpr uint32_t kFirstDescribedVersion = 4;

// Times are the cycle counter's (clock.h) shifted right by this: ~5 ns steps keep the
// deltas between neighbouring events in one byte.
inline constexpr uint32_t kTimeShift = 4;

struct FileHeader {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;  // sizeof(FileHeader); a later version may append fields
    uint32_t time_shift;    // kTimeShift when written
    uint32_t flags;         // kHasSites
    uint64_t pid;
    machine_format::MachineStamp machine;  // version 3 on
};
static_assert(sizeof(FileHeader) == 40);
inline constexpr uint32_t kVersion2HeaderBytes = 32;
inline constexpr uint32_t kHasSites = 1;  // a sites file of the same run names the site ids
// The sites were sampled: only the sampled blocks' events are recorded (the others' would
// name no site, and cost the recording as much as the run's every block).
inline constexpr uint32_t kSampledBlocksOnly = 2;

enum class Kind : uint8_t {
    // time: the shifted cycle counter, absolute; ns: CLOCK_MONOTONIC at about the same
    // instant. Starts every chunk. Two clocks far apart give the counter's rate.
    clock = 1,  // varint time, varint ns
    // Names a thread in the chunk: the records that follow, until the next Thread or Thread
    // again record, are its, and its address base restarts at 0. `serial` numbers threads
    // from 1 in the order they first counted (the --threads table's order); 0 is never
    // written, so that a reader can keep 0 for "no thread yet". A writer names each thread
    // once per chunk, and may name one again (its base restarting), as its memory of the
    // chunk's threads is bounded.
    thread = 2,  // varint serial, varint tid
    // Back to a thread this chunk has named: its records follow, its address base carrying
    // on from its previous record in the chunk. A thread the chunk has not named (a chunk
    // before it did does not count) is damage.
    thread_again = 7,  // varint serial
    // A thread's name, as it had when it ended (or at exit).
    thread_name = 3,  // varint serial, varint length, length bytes
    // A new block. `time_delta` is from the previous record's time in the chunk, whatever
    // its thread; `address` is a zigzag delta from the thread's address base, which is the
    // thread's previous address in the chunk (the block's address for an allocate or
    // release, the new address for a resize), 0 after its Thread record, and, for records
    // before any Thread record in a chunk, 0 at the chunk's start.
    // site 0: none (sites off, or not known).
    allocate = 4,  // varint time_delta, zigzag address, varint size, varint site
    // A block freed; its size and site are the ones it was allocated (or resized) with.
    release = 5,  // varint time_delta, zigzag address
    // A block resized by realloc, moved or not: `new_address` is a zigzag delta from the old
    // address. The block keeps its site. (realloc(NULL, n) is an allocate, realloc(p, 0) a
    // release.)
    resize = 6,  // varint time_delta, zigzag old address, zigzag new_address, varint size

    // Described blocks (version 4 on). A described block is one whose allocate record, or
    // the resize record that made it, is of a described kind; its release or resize record
    // is of a described kind too, and says what the plain kinds leave to the reader's memory
    // of the block. `owner`: the serial of the thread that allocated it (a Thread record's);
    // `age`: the record's time less the time the block took this address and size (its
    // allocate's, or the resize's that made it); `lived_before`: that time less the time of
    // the block's first allocation (0 unless resized), both in the recording's time units.
    // Blocks without a site keep the plain kinds.
    allocate_described = 8,  // as allocate
    // varint time_delta, zigzag address, varint size, varint site, varint owner, varint age,
    // varint lived_before
    release_described = 9,
    // varint time_delta, zigzag old address, zigzag new_address, varint new size, varint old
    // size, varint site, varint owner, varint age, varint lived_before. The new block is
    // described.
    resize_described = 10,
};

struct Trailer {
    char magic[8];
    uint64_t event_count;  // allocate + release + resize records
    uint64_t end_time;     // shifted cycle counter at the end of the run
    uint64_t end_ns;       // CLOCK_MONOTONIC then
    uint64_t dropped;      // events the writer could not write (no memory, a failed write)
    uint64_t file_bytes;   // the whole file, trailer included
};
static_assert(sizeof(Trailer) == 48);

// The longest varint of a 64-bit value, and the most a record of each kind takes.
inline constexpr size_t kMaxVarint = 10;
inline constexpr size_t kMaxRecordBytes = 1 + 9 * kMaxVarint;  // a described resize

inline uint64_t zigzag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}
inline int64_t unzigzag(uint64_t value) {
    return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

// Writes `value` at `out` (room for kMaxVarint bytes); returns the end.
inline uint8_t* put_varint(uint8_t* out, uint64_t value) {
    while (value >= 0x80) {
        *out++ = static_cast<uint8_t>(value) | 0x80;
        value >>= 7;
    }
    *out++ = static_cast<uint8_t>(value);
    return out;
}

// Reads a varint from [*in, end); false when it runs past `end` or past 64 bits.
inline bool get_varint(const uint8_t** in, const uint8_t* end, uint64_t& value) {
    if (__builtin_expect(*in != end && **in < 0x80, 1)) {  // most fields fit in a byte
        value = *(*in)++;
        return true;
    }
    value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*in == end) return false;
        uint8_t byte = *(*in)++;
        if (shift == 63 && byte > 1) return false;
        value |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

}  // namespace memusage::events_format
