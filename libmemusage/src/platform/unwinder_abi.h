// What libunwind's local unwinder looks like on this machine: the names its library
// exports (they carry the architecture: _ULx86_64_step, _ULaarch64_step, ...), the size
// of its cursor, the numbers of the instruction and stack pointer registers, and the code
// a signal handler returns to (the signal frame). sites/unwind.cpp loads libunwind at run
// time through these, so nothing there knows the architecture.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memusage::unwinder_abi {

#define MEMUSAGE_UNWINDER_NAMES(arch)                                                 \
    inline constexpr const char* kGetAccessors = "_U" arch "_get_accessors";          \
    inline constexpr const char* kLocalAddressSpace = "_UL" arch "_local_addr_space"; \
    inline constexpr const char* kInitLocal = "_UL" arch "_init_local";               \
    inline constexpr const char* kInitLocal2 = "_UL" arch "_init_local2";             \
    inline constexpr const char* kStep = "_UL" arch "_step";                          \
    inline constexpr const char* kGetRegister = "_UL" arch "_get_reg";

#if defined(__x86_64__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("x86_64")
// unw_getcontext is a function here; null where it is a macro of inline assembly and the
// C library's getcontext fills the same ucontext_t.
inline constexpr const char* kGetContext = "_Ux86_64_getcontext";
inline constexpr size_t kCursorWords = 127;
inline constexpr int kInstructionPointer = 16;  // UNW_X86_64_RIP
inline constexpr int kStackPointer = 7;         // UNW_X86_64_RSP
// Whether a signal handler's ucontext_t is what the unwinder's init_local2 takes.
inline constexpr bool kUnwindsSignalContexts = true;
inline constexpr bool kReadsWhereTheCallIsRefused = true;
// __restore_rt: mov $15, %rax; syscall.
inline constexpr unsigned char kSignalReturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                                  0x00, 0x00, 0x0f, 0x05};

#elif defined(__i386__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("x86")
inline constexpr const char* kGetContext = "_Ux86_getcontext";
inline constexpr size_t kCursorWords = 127;
inline constexpr int kInstructionPointer = 8;  // UNW_X86_EIP
inline constexpr int kStackPointer = 4;        // UNW_X86_ESP
inline constexpr bool kUnwindsSignalContexts = true;
inline constexpr bool kReadsWhereTheCallIsRefused = true;
// The kernel's __kernel_rt_sigreturn (vDSO) and the C library's: mov $173, %eax; int $0x80.
inline constexpr unsigned char kSignalReturn[] = {0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80};

#elif defined(__aarch64__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("aarch64")
inline constexpr const char* kGetContext = nullptr;
inline constexpr size_t kCursorWords = 250;
inline constexpr int kInstructionPointer = 30;  // UNW_TDEP_IP: the link register, x30
inline constexpr int kStackPointer = 31;        // UNW_AARCH64_SP
inline constexpr bool kUnwindsSignalContexts = true;
inline constexpr bool kReadsWhereTheCallIsRefused = true;
// The vDSO's __kernel_rt_sigreturn: mov x8, #139; svc #0 (little-endian words).
inline constexpr unsigned char kSignalReturn[] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4};

#elif defined(__arm__)

inline constexpr bool kSupported = true;
MEMUSAGE_UNWINDER_NAMES("arm")
inline constexpr const char* kGetContext = "_Uarm_getcontext";
inline constexpr size_t kCursorWords = 4096;
inline constexpr int kInstructionPointer = 15;  // UNW_ARM_R15, the program counter
inline constexpr int kStackPointer = 13;        // UNW_ARM_R13
// Its unwind context is sixteen registers, not a ucontext_t: a handler's capture starts
// from them (platform/signal_context.h).
inline constexpr bool kUnwindsSignalContexts = true;
// Where process_vm_readv is refused (sites/own_memory.cpp), the guessed frames' words
// are not read through a pipe here: given them under qemu-arm, libunwind's ARM unwinder
// made sites_fixture_c die of SIGSEGV. Its stacks end at the first guessed frame there.
inline constexpr bool kReadsWhereTheCallIsRefused = false;
// The C library's __default_rt_sa_restorer: mov r7, #173; svc 0 (ARM state).
inline constexpr unsigned char kSignalReturn[] = {0xad, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef};

#else

// riscv64 and the rest: Debian 12 has no libunwind for them, and its layout here would be
// a guess. The collector runs without stacks and says so.
inline constexpr bool kSupported = false;
MEMUSAGE_UNWINDER_NAMES("unsupported")
inline constexpr const char* kGetContext = nullptr;
inline constexpr size_t kCursorWords = 1;
inline constexpr int kInstructionPointer = 0;
inline constexpr int kStackPointer = 0;
inline constexpr bool kUnwindsSignalContexts = false;
inline constexpr bool kReadsWhereTheCallIsRefused = true;
inline constexpr unsigned char kSignalReturn[] = {0};

#endif

#undef MEMUSAGE_UNWINDER_NAMES

}  // namespace memusage::unwinder_abi
