// SPDX-License-Identifier: MIT
// What libunwind's local unwinder looks like on this machine: the names its library
// exports (they carry the architecture: _ULx86_64_step, _ULaarch64_step, ...), the size
// of its cursor, the numbers of the instruction and stack pointer registers, and the code
// a signal handler returns to (the signal frame). sites/unwind.cpp loads libunwind at run
// time through these, so nothing there knows the architecture.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

namespace memusage::unwinder_abi {

#define MEMUSAGE_UNWINDER_NAMES(arch)                                                 \
    inline constexpr const char* kGetAccessors = "_U" arch "_get_accessors";          \
    inline constexpr const char* kFlushCache = "_U" arch "_flush_cache";              \
    inline constexpr const char* kLocalAddressSpace = "_UL" arch "_local_addr_space"; \
    inline constexpr const char* kInitLocal = "_UL" arch "_init_local";               \
    inline constexpr const char* kInitLocal2 = "_UL" arch "_init_local2";             \
    inline constexpr const char* kStep = "_UL" arch "_step";                          \
    inline constexpr const char* kGetRegister = "_UL" arch "_get_reg";                \
    inline constexpr const char* kRegStatesIterate = "_UL" arch "_reg_states_iterate";

// The environment variable through which libunwind takes the ways it unwinds, read once
// when it initialises, and the ways wanted (kMethodsVariable, kMethods): none where it
// has no such choice.
#define MEMUSAGE_NO_UNWIND_METHODS                           \
    inline constexpr const char* kMethodsVariable = nullptr; \
    inline constexpr const char* kMethods = "";

// Where a walk along unwind rows starts (start_registers below).
struct StartRegisters {
    uintptr_t ip, sp, fp;
};

// Machines without the walk along unwind rows (sites/row_walk.cpp): every capture goes to
// libunwind.
#define MEMUSAGE_WITHOUT_ROW_WALK                                 \
    inline constexpr bool kWalksRows = false;                     \
    inline constexpr int kDwarfStackPointer = 0;                  \
    inline constexpr int kDwarfFramePointer = 0;                  \
    inline constexpr int kDwarfReturnAddress = 0;                 \
    inline constexpr int kDwarfRegisters = 0;                     \
    inline constexpr size_t kRowBytes = 0;                        \
    inline constexpr size_t kRowWhereOffset = 0;                  \
    inline constexpr size_t kRowValueOffset = 0;                  \
    inline StartRegisters start_registers() { return {0, 0, 0}; } \
    inline void point_context_at(ucontext_t&, uintptr_t, uintptr_t) {}

#if defined(__x86_64__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("x86_64")
// unw_getcontext is a function here; null where it is a macro of inline assembly and the
// C library's getcontext fills a ucontext_t (unwinder_context() makes it the unwinder's).
inline constexpr const char* kGetContext = "_Ux86_64_getcontext";
inline constexpr size_t kCursorWords = 127;
inline constexpr int kInstructionPointer = 16;  // UNW_X86_64_RIP
inline constexpr int kStackPointer = 7;         // UNW_X86_64_RSP
// Whether a signal handler's ucontext_t is what the unwinder's init_local2 takes.
inline constexpr bool kUnwindsSignalContexts = true;
MEMUSAGE_NO_UNWIND_METHODS
// The address a frame is kept at, from what the unwinder gives (a return address, or the
// interrupted instruction's): as it is, on most machines.
inline constexpr uintptr_t frame_address(uintptr_t address) { return address; }
// __restore_rt: mov $15, %rax; syscall.
inline constexpr unsigned char kSignalReturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                                  0x00, 0x00, 0x0f, 0x05};

// The walk along unwind rows (sites/row_walk.cpp): the DWARF numbers of the stack pointer,
// the frame pointer and the return address column, and the layout of the row libunwind's
// unw_reg_states_iterate hands out (its dwarf_reg_state_t: the return address column, then
// a `where` byte and a value word for each of the 17 registers and the CFA's two columns).
inline constexpr bool kWalksRows = true;
inline constexpr int kDwarfStackPointer = 7;
inline constexpr int kDwarfFramePointer = 6;
inline constexpr int kDwarfReturnAddress = 16;
inline constexpr int kDwarfRegisters = 17;
inline constexpr size_t kRowBytes = 184;
inline constexpr size_t kRowWhereOffset = 8;
inline constexpr size_t kRowValueOffset = 32;

// Where a walk starts (StartRegisters): an address in the calling function (after this
// point, so its row is found at address - 1, as for a return address), its stack pointer
// and frame pointer.
__attribute__((always_inline)) inline StartRegisters start_registers() {
    StartRegisters r;
    asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                 : "=r"(r.ip), "=r"(r.sp), "=r"(r.fp));
    return r;
}
// A context that only says where: libunwind finds the unwind row of `ip` from it.
inline void point_context_at(ucontext_t& context, uintptr_t ip, uintptr_t sp) {
    context.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(ip);
    context.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(sp);
}

#elif defined(__i386__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("x86")
inline constexpr const char* kGetContext = "_Ux86_getcontext";
inline constexpr size_t kCursorWords = 127;
inline constexpr int kInstructionPointer = 8;  // UNW_X86_EIP
inline constexpr int kStackPointer = 4;        // UNW_X86_ESP
inline constexpr bool kUnwindsSignalContexts = true;
MEMUSAGE_NO_UNWIND_METHODS
inline constexpr uintptr_t frame_address(uintptr_t address) { return address; }
// The kernel's __kernel_rt_sigreturn (vDSO) and the C library's: mov $173, %eax; int $0x80.
inline constexpr unsigned char kSignalReturn[] = {0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80};
MEMUSAGE_WITHOUT_ROW_WALK

#elif defined(__aarch64__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("aarch64")
inline constexpr const char* kGetContext = nullptr;
inline constexpr size_t kCursorWords = 250;
inline constexpr int kInstructionPointer = 30;  // UNW_TDEP_IP: the link register, x30
inline constexpr int kStackPointer = 31;        // UNW_AARCH64_SP
inline constexpr bool kUnwindsSignalContexts = true;
MEMUSAGE_NO_UNWIND_METHODS
// libunwind's fast trace (unw_backtrace) gives each frame's return address less one, its
// step-by-step unwind the return address itself: rounded up to the next instruction
// (every one is 4 bytes, at a multiple of 4), a stack is the same whichever way took it.
inline constexpr uintptr_t frame_address(uintptr_t address) {
    return (address + 3) & ~uintptr_t{3};
}
// The vDSO's __kernel_rt_sigreturn: mov x8, #139; svc #0 (little-endian words).
inline constexpr unsigned char kSignalReturn[] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4};

// The walk along unwind rows: DWARF's sp, x29 (the frame pointer) and x30 (the link
// register, the return address column); libunwind's row holds a `where` byte and a value
// word for each of its 97 registers and the CFA's two columns.
inline constexpr bool kWalksRows = true;
inline constexpr int kDwarfStackPointer = 31;
inline constexpr int kDwarfFramePointer = 29;
inline constexpr int kDwarfReturnAddress = 30;
inline constexpr int kDwarfRegisters = 97;
inline constexpr size_t kRowBytes = 904;
inline constexpr size_t kRowWhereOffset = 8;
inline constexpr size_t kRowValueOffset = 112;

// Where a walk starts: the address after the adr (its row, found at address - 1, is the
// adr's own: the state there), the stack pointer and the frame pointer.
__attribute__((always_inline)) inline StartRegisters start_registers() {
    StartRegisters r;
    asm volatile("adr %0, 1f\n1:\n\tmov %1, sp\n\tmov %2, x29"
                 : "=r"(r.ip), "=r"(r.sp), "=r"(r.fp));
    return r;
}
inline void point_context_at(ucontext_t& context, uintptr_t ip, uintptr_t sp) {
    context.uc_mcontext.pc = ip;
    context.uc_mcontext.sp = sp;
}

#elif defined(__arm__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("arm")
// libunwind's _Uarm_getcontext is made for its own macro (which pushes lr before the call):
// called as a function it returns the context's address and records sp and pc a word off.
// The C library's getcontext fills a ucontext_t, whose registers signal_context.h copies.
inline constexpr const char* kGetContext = nullptr;
inline constexpr size_t kCursorWords = 4096;
inline constexpr int kInstructionPointer = 15;  // UNW_ARM_R15, the program counter
inline constexpr int kStackPointer = 13;        // UNW_ARM_R13
// Its unwind context is sixteen registers, not a ucontext_t: a capture starts from them
// (platform/signal_context.h).
inline constexpr bool kUnwindsSignalContexts = true;
// Only the ARM exception tables (EXIDX: every function the compiler gave unwind tables).
// Its DWARF way finds nothing in .debug_frame for any frame, having opened and parsed every
// module's file again at each step (a sampled run under qemu-arm went from seconds to
// minutes), and its frame-chain way follows r11, which Thumb code does not keep as a
// frame pointer, loading directly from wherever it points.
inline constexpr const char* kMethodsVariable = "UNW_ARM_UNWIND_METHOD";
inline constexpr const char* kMethods = "4";  // UNW_ARM_METHOD_EXIDX
// A return into Thumb code has bit 0 set (the state to return in); the instruction is at
// the even address. Kept, the caller's line would be looked up one instruction late.
inline constexpr uintptr_t frame_address(uintptr_t address) { return address & ~uintptr_t{1}; }
// The C library's __default_rt_sa_restorer: mov r7, #173; svc 0 (ARM state).
inline constexpr unsigned char kSignalReturn[] = {0xad, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef};
MEMUSAGE_WITHOUT_ROW_WALK

#elif defined(__riscv) && __riscv_xlen == 64

// libunwind 1.6's riscv port (Debian's source package: Debian 12 has no riscv64 binaries;
// cmake/toolchains/riscv64_libraries.sh builds it).
inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("riscv")
// A function that stores the registers into a ucontext_t, the return address as its pc.
inline constexpr const char* kGetContext = "_Uriscv_getcontext";
inline constexpr size_t kCursorWords = 4096;    // UNW_TDEP_CURSOR_LEN
inline constexpr int kInstructionPointer = 64;  // UNW_RISCV_PC
inline constexpr int kStackPointer = 2;         // UNW_RISCV_X2
// Its unwind context is the ucontext_t (unw_tdep_context_t), a signal handler's as it is.
inline constexpr bool kUnwindsSignalContexts = true;
MEMUSAGE_NO_UNWIND_METHODS
// No fast trace on riscv: unw_backtrace steps as the step-by-step unwind does.
inline constexpr uintptr_t frame_address(uintptr_t address) { return address; }
// The vDSO's __vdso_rt_sigreturn: li a7, 139; ecall (little-endian words).
inline constexpr unsigned char kSignalReturn[] = {0x93, 0x08, 0xb0, 0x08, 0x73, 0x00, 0x00, 0x00};
MEMUSAGE_WITHOUT_ROW_WALK

#else

// The rest: no libunwind known there, and its layout here would be a guess. The collector
// runs without stacks and says so.
inline constexpr bool kSupported = false;
MEMUSAGE_UNWINDER_NAMES("unsupported")
inline constexpr const char* kGetContext = nullptr;
inline constexpr size_t kCursorWords = 1;
inline constexpr int kInstructionPointer = 0;
inline constexpr int kStackPointer = 0;
inline constexpr bool kUnwindsSignalContexts = false;
MEMUSAGE_NO_UNWIND_METHODS
inline constexpr uintptr_t frame_address(uintptr_t address) { return address; }
inline constexpr unsigned char kSignalReturn[] = {0};
MEMUSAGE_WITHOUT_ROW_WALK

#endif

#undef MEMUSAGE_UNWINDER_NAMES
#undef MEMUSAGE_WITHOUT_ROW_WALK

}  // namespace memusage::unwinder_abi
