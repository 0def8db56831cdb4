/*
 * Exceptions and interrupt dispatch. trap_dispatch() is the one C entry from
 * isr.S. Exceptions either end the run with a full report or, when the
 * current CPU armed a fault catcher, are recorded and resumed (tests use this
 * to provoke faults on purpose). Interrupt vectors call registered handlers.
 */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include "types.h"

/* Saved by isr.S, lowest address first. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error;
	u64 rip, cs, rflags, rsp, ss;
};

#define VEC_DE 0
#define VEC_DB 1
#define VEC_NMI 2
#define VEC_UD 6
#define VEC_DF 8
#define VEC_GP 13
#define VEC_PF 14
#define VEC_MC 18

/* What a caught fault looked like. */
struct fault_info {
	u64 vector, error, rip, cr2;
};

/*
 * Calls fn(arg) on this CPU with a fault catcher armed: if fn takes an
 * exception, the report is not printed; *fi is filled and the call returns
 * true. Returns false when fn returned normally. Not nestable.
 */
bool trap_catch(void (*fn)(void *), void *arg, struct fault_info *fi);

typedef void (*irq_handler_t)(struct trap_frame *f);

/* Routes vector @vec (32..255) to @fn. Returns 0, -EINVAL or -EBUSY. */
int irq_register(unsigned vec, irq_handler_t fn);

/* Name of an exception vector, e.g. "page fault"; NULL for vectors >= 32. */
const char *trap_name(unsigned vec);

/* Prints a frame-pointer backtrace starting at @rbp with @rip as frame #0. */
void trap_backtrace(u64 rip, u64 rbp);

/* Loads the IDT on this CPU (built once by the boot CPU). */
void idt_init(void);
void idt_load(void);

#endif
