/*
 * The address-space type (struct mm, its regions and flags) and the inline
 * accessors the TLB shootdown and mapping code need, without mm/mm.c's
 * functions: mm/tlb/tlb.c includes this, not mm/mm.h, so that mm.c can call
 * into tlb.c with no arrow back (docs/design.md, layering rules). Locking
 * and the rest of the interface: mm/mm.h.
 */
#ifndef MM_MM_TYPES_H
#define MM_MM_TYPES_H

#include "compiler.h"
#include "kernel/cpumask.h"
#include "kernel/percpu.h"
#include "kernel/rwlock.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "types.h"
#include <arch/mmu.h>

/* Regions per address space: the struct mm, regions included, fits one page. */
#define MM_MAX_REGIONS 64
/* Lowest address a region may start at: page 0 and its neighbours stay unmapped. */
#define MM_MIN_ADDR 0x10000ul
/* One past the highest address a region may reach (the top of the lower half). */
#define MM_USER_TOP ARCH_USER_TOP
/*
 * Address-space identifiers (x86: PCIDs) each CPU hands out to the last
 * address spaces it ran, least recently handed out first replaced, as
 * Linux's TLB_NR_DYN_ASIDS; a CPU switching back to one of them keeps its
 * TLB entries unless they went stale meanwhile.
 */
#define MM_ASID_SLOTS 6

/* Region flags */
#define MM_READ (1u << 0)
#define MM_WRITE (1u << 1)
#define MM_EXEC (1u << 2)
#define MM_SHARED (1u << 3)	  /* frames shared with mm_fork() children; else private (COW) */
#define MM_PT_SHAREABLE (1u << 4) /* page tables may be shared: faults need region->mapping */
#define MM_REGION_FLAGS (MM_READ | MM_WRITE | MM_EXEC | MM_SHARED | MM_PT_SHAREABLE)

/* The mapping object regions may be attached to (mm/mapping/mapping.h). */
struct mm_mapping;

struct mm_region {
	vaddr_t start, end; /* [start, end), page aligned */
	unsigned flags;	    /* MM_* */
	unsigned attach_slot; /* while attached: its index in mapping->attach[] (and vma_lock[]) */
	struct mm_mapping *mapping; /* attached by mapping_attach(), else NULL */
};

struct mm {
	rwlock_t lock;	    /* regions; read side for faults, write side for changes */
	spinlock_t pt_lock; /* table allocation on the fault path */
	paddr_t root;
	/*
	 * NUMA: the node the root, this struct and the pages come from (page
	 * tables follow the table they hang from), and PMM_FALLBACK when other
	 * nodes may serve. Fixed at creation.
	 */
	unsigned node, node_flags;
	u64 ctx_id; /* never reused: names this mm in the CPUs' ASID slots */
	unsigned nregions;
	u32 write_protect_seq; /* odd while mm_fork() write-protects (mm_wp_seq_*) */
	struct mm_region regions[MM_MAX_REGIONS]; /* sorted by start, not overlapping */
	/*
	 * Bumped after translations are removed or downgraded, before the
	 * CPUs in mm_cpumask are flushed: a CPU that switches back to this mm
	 * with an older generation in its ASID slot flushes that slot.
	 */
	u64 tlb_gen __cacheline_aligned;
	cpumask_t cpumask __cacheline_aligned; /* mm_cpumask(): CPUs with the root loaded */
	/*
	 * Pinning state (mm/pin/pin.c), on its own cache line so what the pin
	 * benchmark measures is this line alone: has_pinned is the old shared
	 * field that every pin call wrote; flags holds MMF_HAS_PINNED, set once.
	 */
	u32 has_pinned __cacheline_aligned;
	unsigned long flags;
	/*
	 * The swap-free design unmap and swap-in use for this mm's slots
	 * (mm/swap/swap.h swap_free_designs[]; NULL: swap_free_ops_batched). Set
	 * with swap_mm_set_free() while no unmap runs; a fork inherits it.
	 */
	const struct swap_free_ops *swap_free;
};

/* struct mm flags */
#define MMF_HAS_PINNED 0 /* bit: some page of this mm was pinned (FOLL_PIN) */

static inline cpumask_t *mm_cpumask(struct mm *mm)
{
	return &mm->cpumask;
}

/*
 * Fork's write-protect sequence count (Linux's write_protect_seq). The
 * writer, mm_fork() under @mm's write side, makes it odd before it
 * write-protects and checks pins, and even again after. A lockless pinner
 * (mm/pin/pin.c) reads it before its walk and, if it was odd or has changed
 * after, undoes the walk: a pin taken while fork decided which pages to
 * share could otherwise be on a page fork has just shared.
 */
static inline u32 mm_wp_seq_read_begin(const struct mm *mm)
{
	return atomic_load_acquire(&mm->write_protect_seq);
}

/* After the walk: true when a fork ran (or was running) since mm_wp_seq_read_begin(). */
static inline bool mm_wp_seq_read_retry(const struct mm *mm, u32 seq)
{
	smp_mb(); /* the walk's loads and its pins' increments before the second read */
	return (seq & 1) || atomic_load_relaxed(&mm->write_protect_seq) != seq;
}

/* The writer's side: @mm's write side held. */
static inline void mm_wp_seq_write_begin(struct mm *mm)
{
	atomic_store_relaxed(&mm->write_protect_seq, mm->write_protect_seq + 1);
	smp_mb(); /* odd before any entry is write-protected or any pin checked */
}

static inline void mm_wp_seq_write_end(struct mm *mm)
{
	atomic_store_release(&mm->write_protect_seq, mm->write_protect_seq + 1);
}

/* The address space loaded on the calling CPU, or NULL for the kernel root. */
static inline struct mm *mm_current(void)
{
	return this_cpu()->mm;
}

#endif
