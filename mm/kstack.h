/*
 * Kernel stacks with guard pages: each CPU owns one slot in the stack area
 * holding its main stack and its interrupt-stack-table (IST) stacks, each
 * with an unmapped page below it, so running off the end faults instead of
 * silently overwriting a neighbour. How many interrupt stacks a CPU needs is
 * the machine's (struct machine_desc's irq_stacks); a slot holds up to
 * MACHINE_MAX_IRQ_STACKS.
 */
#ifndef MM_KSTACK_H
#define MM_KSTACK_H

#include "machine.h"
#include "types.h"

#define KSTACK_SIZE (16 * 1024ul)
#define KSTACK_IST_SIZE (8 * 1024ul)
#define KSTACK_GUARD_SIZE 4096ul
/* One CPU's slot: guard + main stack, then guard + stack per IST entry. */
#define KSTACK_SLOT_SIZE (64 * 1024ul)

/*
 * Allocates and maps CPU @cpu's stacks into the kernel page tables (the root
 * set by kstack_init()), once; later calls return 0. Boot CPU, during
 * bring-up. Returns 0 or -ENOMEM (nothing stays allocated then).
 */
int kstack_alloc_cpu(unsigned cpu);

/* Top (initial stack pointer) of CPU @cpu's main stack. */
vaddr_t kstack_top(unsigned cpu);

/* Tops of CPU @cpu's stacks: the main one and each interrupt stack kstack_init() set. */
void kstack_tops(unsigned cpu, struct machine_stacks *out);

/* Lowest address of the guard page below CPU @cpu's main stack. */
vaddr_t kstack_guard(unsigned cpu);

/*
 * Sets the page-table root stacks are mapped into and how many interrupt
 * stacks each CPU gets. Returns 0, or -EINVAL when @irq_stacks does not fit
 * a slot (more than MACHINE_MAX_IRQ_STACKS).
 */
int kstack_init(paddr_t kernel_root, unsigned irq_stacks);

#endif
