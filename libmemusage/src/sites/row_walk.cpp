// SPDX-License-Identifier: MIT
#include "sites/row_walk.h"

#include <string.h>
#include <ucontext.h>

#include <atomic>

#include "platform/pages.h"
#include "platform/unwinder_abi.h"
#include "sites/stack_table.h"
#include "sites/unwind.h"

// Why a walk gives the stack unw_backtrace gives. libunwind's step from a frame to its
// caller is a function of three things: the frame's unwind row (looked up at its return
// address - 1, from unwind information that changes only when code is unloaded), the
// registers the row's rules read, and the memory words they read. The walk takes the row
// from libunwind's own parser (unw_reg_states_iterate, the function its step uses) and
// follows it only when every rule is one of:
//   CFA = SP + offset or FP + offset          (the caller's SP is the CFA, as libunwind sets)
//   return address at CFA + offset, or undefined (the outermost frame: the walk ends)
//   FP the same, at CFA + offset, or undefined (then no later CFA may be FP-based)
//   SP with no rule of its own
// Under these rules the step reads exactly SP or FP, the word at the return address's
// slot and the word at FP's slot, and computes the same sums libunwind computes; so from
// the same starting registers both reach the same frames, one by one. Any other rule (an
// expression, a register saved in another, a signal frame's), an address without a row,
// or a row libunwind's layout cannot be read from makes the whole walk give up, and
// libunwind unwinds that stack as before. The rows are kept per return address in a table
// filled once per address and never rewritten; unloading code (dlclose) starts a new
// generation, so rows of unloaded code are never used again. Not seen: the C library's
// own unloading, through its internal dlclose (iconv's conversion modules).
// MEMUSAGE_SITES_VERIFY checks every walk against unw_backtrace.
namespace memusage::row_walk {
namespace {

namespace abi = unwinder_abi;
using Word = uintptr_t;

// What libunwind's row says of a register (dwarf_where_t in its dwarf.h).
constexpr char kUndefined = 0, kSame = 1, kAtCfa = 2, kInRegister = 3;
constexpr int kCfaColumn = abi::kDwarfRegisters;  // the CFA's register, then its offset
constexpr int kCfaOffsetColumn = abi::kDwarfRegisters + 1;

struct Row {
    enum Kind : uint8_t { unknown, follows, outermost, gives_up };
    enum FramePointer : uint8_t { same, saved, lost };
    Kind kind;
    bool cfa_from_frame_pointer;
    FramePointer frame_pointer;
    bool collectors;  // the address is in the collector's code (or libunwind's)
    int32_t cfa_offset;
    int32_t return_address_offset;
    int32_t frame_pointer_offset;
};

constexpr Row kGivesUp = {Row::gives_up, false, Row::same, false, 0, 0, 0};

struct Slot {
    std::atomic<Word> address;  // 0 empty, kClaimed while filled, else the return address
    uint32_t generation;
    Row row;
};
constexpr Word kClaimed = 1;
constexpr uint32_t kSlots = 1u << 15;
constexpr uint32_t kProbes = 16;

Slot* slots = nullptr;

struct Cursor {
    Word opaque[abi::kCursorWords];
};
using InitLocal = int (*)(Cursor*, ucontext_t*);
using RowCallback = int (*)(void* token, void* row, size_t row_bytes, Word start, Word end);
using Iterate = int (*)(Cursor*, RowCallback, void* token);
InitLocal init_local = nullptr;
Iterate iterate = nullptr;

struct Search {
    Word address;  // the row wanted is the one holding this
    bool found;
    Row row;
};

// Whether a row's offset (a signed word) fits the kept row's 32 bits; one that does not is
// never followed.
bool fits_32_bits(Word offset) {
    auto value = static_cast<int64_t>(static_cast<intptr_t>(offset));
    return value == static_cast<int32_t>(value);
}

Row read_row(const void* data) {
    auto* where = static_cast<const char*>(data) + abi::kRowWhereOffset;
    Word value[abi::kDwarfRegisters + 2];
    memcpy(value, static_cast<const char*>(data) + abi::kRowValueOffset, sizeof value);
    Row row{};
    row.kind = Row::follows;
    constexpr int sp = abi::kDwarfStackPointer, fp = abi::kDwarfFramePointer,
                  ra = abi::kDwarfReturnAddress;
    if (where[kCfaColumn] != kInRegister ||
        (value[kCfaColumn] != Word(sp) && value[kCfaColumn] != Word(fp)))
        return kGivesUp;
    row.cfa_from_frame_pointer = value[kCfaColumn] == Word(fp);
    if (!fits_32_bits(value[kCfaOffsetColumn])) return kGivesUp;
    row.cfa_offset = static_cast<int32_t>(value[kCfaOffsetColumn]);
    if (where[sp] != kSame && where[sp] != kUndefined) return kGivesUp;
    if (where[ra] == kUndefined) {
        row.kind = Row::outermost;
    } else if (where[ra] == kAtCfa && fits_32_bits(value[ra])) {
        row.return_address_offset = static_cast<int32_t>(value[ra]);
    } else {
        return kGivesUp;
    }
    if (where[fp] == kSame) {
        row.frame_pointer = Row::same;
    } else if (where[fp] == kAtCfa && fits_32_bits(value[fp])) {
        row.frame_pointer = Row::saved;
        row.frame_pointer_offset = static_cast<int32_t>(value[fp]);
    } else if (where[fp] == kUndefined) {
        row.frame_pointer = Row::lost;
    } else {
        return kGivesUp;
    }
    return row;
}

int on_row(void* token, void* data, size_t row_bytes, Word start, Word end) {
    auto* search = static_cast<Search*>(token);
    if (row_bytes != abi::kRowBytes) {  // another libunwind's layout: never walk on it
        search->found = true;
        search->row = kGivesUp;
        return -1;
    }
    if (search->address < start || search->address >= end) return 0;
    search->found = true;
    search->row = read_row(data);
    return -1;  // found: no more rows
}

// The row of a return address, from libunwind's parser. The row of the call instruction
// (address - 1) is the one in force while the callee runs; a context pointing at
// address - 1 finds its procedure whether libunwind looks up the address given or the
// one before it (a call is at least two bytes long).
Row row_from_unwinder(Word return_address) {
    ucontext_t context;
    memset(&context, 0, sizeof context);
    Word somewhere_on_our_stack = 0;
    abi::point_context_at(context, return_address - 1,
                          reinterpret_cast<Word>(&somewhere_on_our_stack));
    Cursor cursor;
    Search search{return_address - 1, false, {}};
    if (init_local(&cursor, &context) == 0) iterate(&cursor, on_row, &search);
    // No row: no unwind information, or the procedure's last row, which libunwind's
    // iteration leaves out.
    return search.found ? search.row : kGivesUp;
}

Row row_of(Word return_address, uint32_t current) {
    if (return_address < 4096) return kGivesUp;
    uint64_t index = (return_address * 0x9e3779b97f4a7c15ULL) >> 40;
    for (uint32_t probe = 0; probe < kProbes; ++probe) {
        Slot& slot = slots[(index + probe) & (kSlots - 1)];
        Word held = slot.address.load(std::memory_order_acquire);
        if (held == return_address && slot.generation == current) return slot.row;
        if (held != 0) continue;
        // Claimed first, filled, then published: a slot is written once. A signal
        // handler's walk finding it claimed reads the row itself.
        if (!slot.address.compare_exchange_strong(held, kClaimed, std::memory_order_acquire)) {
            if (held == return_address && slot.generation == current) return slot.row;
            continue;
        }
        Row row = row_from_unwinder(return_address);
        row.collectors = unwind::detail::is_collectors(return_address);
        slot.row = row;
        slot.generation = current;
        slot.address.store(return_address, std::memory_order_release);
        return row;
    }
    // The table is full (or every slot near is taken by rows of unloaded code): libunwind.
    return kGivesUp;
}

// The word at `slot`, kept in the trail. Every word a walk reads lies above its starting
// SP, at an aligned address (the saved registers' slots); one that does not, or lies too
// far above, leaves the walk unremembered.
void keep(Trail& trail, Word start_sp, Word slot, Word value) {
    Word offset = slot - start_sp;
    if (trail.words >= Trail::kMaxWords || offset % sizeof(Word) != 0 ||
        offset / sizeof(Word) > UINT16_MAX) {
        trail.words = Trail::kUnkept;
        return;
    }
    trail.place[trail.words] = static_cast<uint16_t>(offset / sizeof(Word));
    trail.value[trail.words] = value;
    ++trail.words;
}

// The spine's frame `from` and those outward of it (outermost first: down to 0): whether
// every word their steps read and used still holds what it held. -1 if so, else the
// frame whose word differs. Read in the walk's order, each word only once the ones its
// address came from are found the same: exactly what the walk would read.
__attribute__((always_inline)) inline int32_t spine_differs(const Spine& spine, int32_t from) {
    for (int32_t q = from; q >= 0; --q) {
        const SpineFrame& frame = spine.frame[q];
        if (frame.return_slot != 0 &&
            *reinterpret_cast<const Word*>(frame.return_slot) != frame.return_value)
            return q;
        if (frame.fp_kept && *reinterpret_cast<const Word*>(frame.fp_slot) != frame.fp_value)
            return q;
    }
    return -1;
}

// The walk's frames (scratch, innermost first) up to `upto` take their frame pointer as the
// step of frame `source` left it (-1: as the walk started, or a frame of the collector's
// step): they need it as it is, and that step's word is used.
void mark_needs_fp(SpineScratch* scratch, int32_t source, int32_t& marked, int32_t upto) {
    for (int32_t i = (source > marked ? source : marked) + 1; i <= upto; ++i)
        scratch->frame[i].needs_fp = true;
    if (upto > marked) marked = upto;
    if (source >= 0) scratch->frame[source].fp_kept = true;
}

// One walk's state from step to step. Its steps below are always inlined into walk():
// the state stays in registers and on walk's own frame, as plain locals would.
struct Walk {
    Word ip, sp, fp;  // the frame reached
    const Word start_sp;
    const uint32_t current;  // the rows' generation
    uintptr_t* const frames;
    const uint32_t max;
    Trail& trail;
    bool frame_pointer_known = true;
    // Where FP's value was read (0: it is the starting register's), and whether that word
    // is in the trail: only a FP some CFA is reckoned from is.
    Word frame_pointer_slot = 0;
    bool frame_pointer_kept = false;
    int depth = 0;     // frames given; -1 once the walk gave up
    bool cut = false;  // stopped at `max` frames
    // The spine: this walk's frames go to `scratch`; `candidate` is the last walk's frame
    // (outermost first) that this one may meet next, from the inside; one whose words were
    // found changed, and those inside it, are not met again (below `unchanged`).
    Spine* last = nullptr;
    SpineScratch* scratch = nullptr;
    int32_t candidate = -1, unchanged = 0;
    int32_t fp_source = -1, fp_marked = -1;  // mark_needs_fp
    int32_t met_at = -1;  // the spine's frame this walk met: the rest is the spine's
};

// The spine to meet, when there is one to use and the walk may take all of it.
[[gnu::always_inline]] inline void begin_spine(Walk& w, SpineUse* use) {
    if (use == nullptr || w.max > kSpineFrames) return;
    w.last = use->spine;
    w.scratch = use->scratch;
    if (w.last->depth != 0 && w.last->generation == w.current)
        w.candidate = w.unchanged = static_cast<int32_t>(w.last->depth);
    --w.candidate;
}

// Whether the walk has reached the spine's frame `candidate` at the same SP, IP (and FP,
// if the rest needs it) with every word the spine read from there out unchanged; then
// the rest of the stack is the spine's (met_at). A word found changed leaves that frame
// and those inside it unmet.
[[gnu::always_inline]] inline bool meets_spine(Walk& w) {
    while (w.candidate >= 0 && w.last->sp[w.candidate] < w.sp) --w.candidate;
    if (w.candidate < 0 || w.candidate >= w.unchanged || w.last->sp[w.candidate] != w.sp ||
        w.last->ip[w.candidate] != w.ip)
        return false;
    const SpineFrame& met = w.last->frame[w.candidate];
    if ((met.needs_fp && (!w.frame_pointer_known || met.fp != w.fp)) ||
        static_cast<uint32_t>(w.depth + w.candidate + 1) > w.max)
        return false;
    int32_t differs = spine_differs(*w.last, w.candidate);
    if (differs < 0) {
        w.met_at = w.candidate;
        return true;
    }
    w.unchanged = differs;
    return false;
}

// The frame reached, given unless it is the collector's. The collector's frames on top
// are left out; one of its frames below the program's is for unwind::capture's rules (a
// call of ours a handler interrupted): the walk gives up. False when the walk ends here
// (given up, or `max` frames given).
[[gnu::always_inline]] inline bool give_frame(Walk& w, bool program) {
    if (__builtin_expect(!program, 0)) {
        if (w.depth == 0) return true;
        w.depth = -1;
        return false;
    }
    w.frames[w.depth] = w.ip;
    if (w.scratch != nullptr) {
        w.scratch->sp[w.depth] = w.sp;
        w.scratch->frame[w.depth] = SpineFrame{w.fp, 0, 0, 0, 0, 0, false, false};
    }
    ++w.depth;
    if (static_cast<uint32_t>(w.depth) == w.max) {
        w.cut = true;
        return false;
    }
    return true;
}

// The current FP, used as it is: kept in the trail (the starting register's, marked so)
// unless it is already.
[[gnu::always_inline]] inline void keep_frame_pointer(Walk& w) {
    if (w.frame_pointer_kept) return;
    if (w.frame_pointer_slot == 0)
        w.trail.uses_start_fp = true;
    else
        keep(w.trail, w.start_sp, w.frame_pointer_slot, w.fp);
    w.frame_pointer_kept = true;
}

// The frame's CFA, by its row: from SP, or from FP (which the trail and the spine's frames
// then need as it is).
[[gnu::always_inline]] inline Word cfa_of(Walk& w, const Row& row, bool program) {
    if (!row.cfa_from_frame_pointer) return w.sp + static_cast<int64_t>(row.cfa_offset);
    keep_frame_pointer(w);
    if (w.scratch != nullptr && program)
        mark_needs_fp(w.scratch, w.fp_source, w.fp_marked, w.depth - 1);
    return w.fp + static_cast<int64_t>(row.cfa_offset);
}

// The step to the caller: its IP from the return address's slot, its FP as the row says,
// its SP the CFA; each word read kept in the trail and the spine's frame. False at the
// outermost frame (a return address of 0).
[[gnu::always_inline]] inline bool step_to_caller(Walk& w, const Row& row, bool program) {
    const Word cfa = cfa_of(w, row, program);
    Word return_address_slot = cfa + static_cast<int64_t>(row.return_address_offset);
    w.ip = *reinterpret_cast<const Word*>(return_address_slot);
    keep(w.trail, w.start_sp, return_address_slot, w.ip);
    if (w.scratch != nullptr && program) {
        w.scratch->frame[w.depth - 1].return_slot = return_address_slot;
        w.scratch->frame[w.depth - 1].return_value = w.ip;
    }
    if (row.frame_pointer == Row::saved) {
        w.frame_pointer_slot = cfa + static_cast<int64_t>(row.frame_pointer_offset);
        w.fp = *reinterpret_cast<const Word*>(w.frame_pointer_slot);
        w.frame_pointer_kept = false;
        if (w.scratch != nullptr) {
            w.fp_source = w.fp_marked = program ? w.depth - 1 : -1;
            if (program) {
                w.scratch->frame[w.depth - 1].fp_slot = w.frame_pointer_slot;
                w.scratch->frame[w.depth - 1].fp_value = w.fp;
            }
        }
    } else if (row.frame_pointer == Row::lost) {
        w.frame_pointer_known = false;
    }
    w.sp = cfa;
    return w.ip != 0;
}

// The walk, frame by frame, up to the spine's frame it meets, the outermost frame, `max`
// frames, or a frame it cannot step from (then depth is -1).
[[gnu::always_inline]] inline void walk_frames(Walk& w) {
    for (;;) {
        if (w.candidate >= 0 && meets_spine(w)) return;
        Row row = row_of(w.ip, w.current);
        if (row.kind == Row::gives_up || (row.cfa_from_frame_pointer && !w.frame_pointer_known)) {
            w.depth = -1;
            return;
        }
        const bool program = !row.collectors;
        if (!give_frame(w, program) || row.kind == Row::outermost) return;
        if (!step_to_caller(w, row, program)) return;
    }
}

// The spine's frame met and those outward of it, taken for this walk's: the trail gets
// their words (if the whole walk's words may fit: every frame but the outermost read one
// at least; the spine's words are only copied for a stack short enough to be
// remembered), and the hash starts from the met frame's.
[[gnu::always_inline]] inline uint64_t take_spine_rest(Walk& w) {
    const SpineFrame& met = w.last->frame[w.met_at];
    // The rest uses the frame pointer this walk has there, as a CFA reckoned from it.
    if (met.needs_fp) {
        mark_needs_fp(w.scratch, w.fp_source, w.fp_marked, w.depth - 1);
        keep_frame_pointer(w);
    }
    Trail& trail = w.trail;
    if (trail.words + static_cast<uint32_t>(w.met_at) <= Trail::kMaxWords) {
        for (int32_t q = w.met_at; q >= 0 && trail.words != Trail::kUnkept; --q) {
            const SpineFrame& frame = w.last->frame[q];
            if (frame.return_slot != 0)
                keep(trail, w.start_sp, frame.return_slot, frame.return_value);
            if (frame.fp_kept) keep(trail, w.start_sp, frame.fp_slot, frame.fp_value);
        }
    } else {
        trail.words = Trail::kUnkept;
    }
    return met.hash;
}

// The spine becomes this walk: its own frames inside the frame met (all of them when it
// met none), the spine's from there outward as they are; the frames given get the
// spine's, and the use its hash.
[[gnu::always_inline]] inline int become_spine(Walk& w, SpineUse* use) {
    uint64_t hash = StackTable::kHashStart;
    const int32_t outer = w.met_at;  // the spine's innermost frame kept, -1 for none
    if (w.met_at >= 0) hash = take_spine_rest(w);
    Spine* last = w.last;
    const int32_t own = w.depth;
    for (int32_t d = own - 1; d >= 0; --d) {
        hash = StackTable::hash_step(hash, w.frames[d]);
        const int32_t at = outer + own - d;
        last->ip[at] = w.frames[d];
        last->sp[at] = w.scratch->sp[d];
        SpineFrame& frame = last->frame[at];
        frame = w.scratch->frame[d];
        frame.hash = hash;
    }
    int depth = w.depth;
    for (int32_t q = outer; q >= 0; --q) w.frames[depth++] = last->ip[q];
    last->depth = static_cast<uint32_t>(depth);
    last->generation = w.current;
    use->hash = StackTable::hash_end(hash, static_cast<uint32_t>(depth));
    use->hashed = true;
    use->resumed = w.met_at >= 0;
    return depth;
}

}  // namespace

bool start(void* init_local_function, void* iterate_function) {
    if (!abi::kWalksRows || init_local_function == nullptr || iterate_function == nullptr)
        return false;
    slots = static_cast<Slot*>(reserve_pages(uint64_t{kSlots} * sizeof(Slot)));
    if (slots == nullptr) return false;
    init_local = reinterpret_cast<InitLocal>(init_local_function);
    iterate = reinterpret_cast<Iterate>(iterate_function);
    return true;
}

int walk(Word ip, Word sp, Word fp, uintptr_t* frames, uint32_t max, Trail& trail, SpineUse* use) {
    trail.words = 0;
    trail.uses_start_fp = false;
    if (use != nullptr) use->hashed = use->resumed = false;
    if (max == 0) return 0;
    uint32_t current = generation.load(std::memory_order_acquire);
    trail.generation = current;
    Walk w{ip, sp, fp, sp, current, frames, max, trail};
    begin_spine(w, use);
    walk_frames(w);
    if (w.last == nullptr) return w.depth;
    if (w.depth < 0 || w.cut) {
        w.last->depth = 0;  // not a whole walk: nothing to meet
        return w.depth;
    }
    return become_spine(w, use);
}

void forget_rows() { generation.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace memusage::row_walk
