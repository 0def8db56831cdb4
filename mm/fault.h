/*
 * The page-fault path, architecture-neutral: the arch's #PF handler calls
 * fault_handle() (hooked by fault_init()) with the error code as FAULT_*
 * flags; non-zero means not resolved, and the arch reports the exception.
 * Context: the faulting CPU, under its address space's read side, interrupts
 * on when the faulting code had them (copy-on-write waits for flush IPIs).
 */
#ifndef MM_FAULT_H
#define MM_FAULT_H

#include "mm/counters.h"
#include "types.h"
#include <arch/arch.h>

struct mm;

/* Fault flags, decoded from the hardware's error code. */
#define FAULT_WRITE ARCH_FAULT_WRITE	/* the access was a write */
#define FAULT_PRESENT ARCH_FAULT_PRESENT /* the page was present: a protection violation */
#define FAULT_EXEC ARCH_FAULT_EXEC	/* the access was an instruction fetch */

/* What resolved faults did, counted per CPU. */
enum fault_event {
	FAULT_EV_ZERO,	    /* demand-zero: a new zeroed page mapped */
	FAULT_EV_COW_COPY,  /* write to a shared private page: copied */
	FAULT_EV_COW_REUSE, /* write to a write-protected page nobody else maps: made writable */
	FAULT_EV_SPURIOUS,  /* the entry already allowed the access (stale TLB, or a race) */
	FAULT_EV_SWAPIN,    /* a swap entry brought back by the swap hook */
	FAULT_EV_FAILED,    /* not resolved: the arch reports the exception */
	FAULT_NR_EVENTS,
};

/*
 * Resolves a fault at @addr in the calling CPU's current address space.
 * Returns 0 (retry the access), -EFAULT (no address space loaded, @addr
 * in no region, or the region does not allow the access), -ENOMEM, or
 * -ENOSYS (a swap entry, and no swap subsystem registered), or what the
 * swap-in hook returned.
 */
int fault_handle(vaddr_t addr, unsigned flags);

/* fault_handle() in @mm, whether or not it is loaded (host tests emulate the MMU with it). */
int fault_handle_mm(struct mm *mm, vaddr_t addr, unsigned flags);

/* A sentence on why fault_handle() returned @err, for the exception report. */
const char *fault_strerror(int err);

/* Registers fault_handle() as the arch's page-fault hook. Boot CPU, once, after mm_init(). */
void fault_init(void);

/* Sum over every CPU of the faults that ended in @ev. */
u64 fault_event_count(enum fault_event ev);

#endif
