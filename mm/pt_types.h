/*
 * The page tables' types and bounds: protections, page sizes, the gather
 * that carries an unmap's flush, the slot a fault-path walk ends in, and
 * the leaf a walk reports. Only types and constants, so the files of
 * mm/pt*.c and mm/tlb*.c share them without including each other.
 */
#ifndef MM_PT_TYPES_H
#define MM_PT_TYPES_H

#include "kernel/spinlock.h"
#include "types.h"

struct page;

/* Protection of a mapping; PROT_READ is required (x86 has no unreadable present page). */
enum pt_prot {
	PROT_READ = 1u << 0,
	PROT_WRITE = 1u << 1,
	PROT_EXEC = 1u << 2,
	PROT_USER = 1u << 3,
	PROT_GLOBAL = 1u << 4,	/* survives address-space switches (kernel mappings) */
	PROT_NOCACHE = 1u << 5, /* uncached: device memory */
};
#define PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC | PROT_USER | PROT_GLOBAL | PROT_NOCACHE)

#define PT_PAGE_4K (1ull << 12)
#define PT_PAGE_2M (1ull << 21)
#define PT_PAGE_1G (1ull << 30)

/*
 * Table pages a gather holds before it must flush and free them mid-unmap.
 * An unmap of PT_GATHER_PAGES contiguous 4 KiB pages empties at most
 * PT_GATHER_PAGES / 512 + 2 level-1 tables and 2 tables per level above,
 * 24 in all on x86-64, so it is the frames' bound, not this one, that
 * decides when such an unmap flushes (checked in mm/pt_gather.c).
 */
#define PT_GATHER_MAX 32
/* Frames a gather holds in itself, before it grows into batch pages. */
#define PT_GATHER_LOCAL 64
/* Frames one batch page holds: a 4 KiB frame of pointers less its two-word header. */
#define PT_GATHER_BATCH ((PT_PAGE_4K - 2 * sizeof(void *)) / sizeof(void *))
/*
 * Mapped 4 KiB frames a gather holds (when it collects them) before it
 * must flush mid-unmap, like Linux's mmu_gather: it starts with
 * PT_GATHER_LOCAL frames of its own and grows by one batch page at a time
 * (PT_GATHER_BATCH frames each) up to this bound, so one unmap call of up
 * to 8192 pages costs one flush round. The bound exists because every
 * frame gathered stays out of the allocator until the flush, and the
 * gather's own batch pages with it: 8192 frames is 32 MiB held back and 16
 * batch pages at most. A larger bound would save little: above the
 * ceiling (TLB_FLUSH_CEILING) a round costs each target one full flush
 * whatever its size, so the rounds it saves are one per 32 MiB unmapped.
 * Linux bounds its gather at about 10,000 pages (MAX_GATHER_BATCH_COUNT
 * batches of MAX_GATHER_BATCH), there against soft lockups of a
 * non-preemptible kernel freeing huge unmaps. When no batch page can be
 * had, the gather flushes when the storage it has is full instead.
 */
#define PT_GATHER_PAGES 8192
/*
 * Swap entries a gather holds before handing them to @swap_free. Runs are
 * also cut where the address is a multiple of this many pages, so a
 * naturally aligned folio of up to this many pages is never split.
 */
#define PT_GATHER_SWAPS 64
/* Largest swap entry value (the arch's entries must hold it: mm/pt_entry.h checks). */
#define PT_SWAP_MAX ((1ull << 62) - 1)

struct pt_gather;

/*
 * Flushes translations of [g->start, g->last] (global ones too when
 * g->global) and the paging-structure caches from every CPU that may hold
 * them, and returns once that is done. A flush that could not complete
 * (a CPU did not acknowledge) sets g->err if it is still 0.
 */
typedef void pt_flush_fn(struct pt_gather *g);

/*
 * Called after the flush with @n frames that 4 KiB leaves mapped (see
 * pt_gather.release), in batches of up to PT_GATHER_BATCH; the array is
 * the callee's to reorder or overwrite (it is the gather's storage, reused
 * after the call).
 */
typedef void pt_page_fn(struct pt_gather *g, struct page **pages, unsigned n);

/*
 * Called by an unmap's walk before it removes the leaf (4 KiB or huge
 * page) at @va into @g: a hook that may flush what @g holds first
 * (pt_gather_cut()), so that leaf starts a round of its own.
 */
typedef void pt_leaf_fn(struct pt_gather *g, vaddr_t va);

/* A batch page the gather grew into (mm/pt_gather.c). */
struct pt_gather_batch;

/*
 * Swap entries an unmap removed from @n consecutive 4 KiB pages of one
 * level-1 table, in address order: a folio swapped out whole arrives in one
 * call, so its slots can be freed together (mm/swap/swap.h).
 */
typedef void pt_swap_fn(struct pt_gather *g, const u64 *swp, unsigned n);

/* The work an unmap leaves behind: the range to flush and the pages to free after. */
struct pt_gather {
	vaddr_t start, last; /* inclusive range whose translations went away; start > last: none */
	bool global;	     /* a global leaf was removed */
	unsigned nr_tables;
	struct page *tables[PT_GATHER_MAX];
	unsigned nr_pages;		     /* frames held, in @pages and then the batches */
	struct page *pages[PT_GATHER_LOCAL]; /* frames of removed 4 KiB leaves, when @release */
	struct pt_gather_batch *batches;     /* grown into once @pages is full; freed at finish */
	struct pt_gather_batch *cur;	     /* the batch being filled (NULL: @pages) */
	unsigned nr_swaps;
	vaddr_t swap_next;		 /* the page after the last one in @swaps */
	u64 swaps[PT_GATHER_SWAPS];	 /* removed swap entries, when @swap_free */
	u64 unmapped;	    /* bytes of mappings removed, over the gather's life */
	u64 swap_cleared;   /* swap entries removed, over the gather's life */
	u64 flushes;	    /* flush rounds done */
	int err;	    /* the first error @flush reported (set by @flush itself) */
	pt_flush_fn *flush; /* NULL: flush the calling CPU only */
	void *arg;	    /* for @flush: the address space, say */
	/*
	 * Optional, set after pt_gather_init(): @release gets every frame (in
	 * the memmap) that a removed 4 KiB leaf mapped, once the flush covering
	 * it is done; @swap_free gets every removed swap entry, in runs of
	 * consecutive pages, by the end of the unmap that removed it.
	 */
	pt_page_fn *release;
	pt_swap_fn *swap_free;
	/* Optional: called before each leaf is removed (a TLB design's add, mm/tlb/tlb_batch.c). */
	pt_leaf_fn *leaf;
	/*
	 * Set after pt_gather_init() for an unmap under a read side (the
	 * shareable zap, mm/mapping/mapping.h): only level-1 tables it empties are
	 * unlinked; emptied tables above stay linked, since a fault elsewhere
	 * under that read side may have stopped its walk in one and resumes
	 * from it (pt_slot_populate()). The next unmap under the exclusive
	 * lock over their range unlinks them (an empty table is unlinked when
	 * any unmap walks through it).
	 */
	bool keep_upper;
	/*
	 * Optional: a spinlock the caller holds around pt_unmap() (mm->pt_lock).
	 * A flush the gather must do mid-walk (it is full) waits for other
	 * CPUs, which may spin on that lock with interrupts off, so the lock is
	 * dropped around that flush and taken again. The caller must make sure
	 * nothing can free the tables the walk is in meanwhile (the exclusive
	 * side of the lock that keeps other unmappers out).
	 */
	spinlock_t *lock;
};

/*
 * Where one walk toward an address ended, so the operation that follows
 * (install, replace, swap-in) needs no walk of its own: the table holding
 * the entry that maps @va (a leaf at @level, possibly huge, or a swap
 * entry at level 1), or the empty entry above it at the level where the
 * tables end. The fault path keeps it while it holds its read side, which
 * keeps the tables from being freed; @e is the entry as read, and the
 * operations compare-and-exchange against the table itself.
 */
#define PT_MAX_LEVELS 5 /* most levels an arch may have (mm/pt_entry.h checks) */

struct pt_slot {
	vaddr_t va;	/* the address walked to */
	paddr_t table;	/* the table holding the entry */
	int level;	/* that table's level */
	u64 e;		/* the entry as read (the arch's format) */
	paddr_t tables[PT_MAX_LEVELS + 1]; /* the tables walked through, by level */
};

/* One leaf or swap entry, as pt_walk() reports it. */
struct pt_leaf {
	vaddr_t va;	/* first address the entry covers */
	u64 size;	/* PT_PAGE_4K, _2M or _1G */
	paddr_t pa;	/* a mapping: its physical address; 0 for a swap entry */
	unsigned prot;	/* a mapping: its protection */
	u64 swp;	/* a swap entry: its value; 0 for a mapping */
};

typedef int pt_walk_fn(void *arg, const struct pt_leaf *leaf);

#endif
