/*
 * Page tables on a root (the physical address of the top table): map,
 * unmap, change protection and look up ranges with 4 KiB, 2 MiB and 1 GiB
 * pages, splitting a huge page when only part of it changes. Table pages
 * come from mm/pmm.c; ones that unmapping empties are unlinked and handed to
 * a struct pt_gather, which frees them only after the TLB flush that covers
 * them (pt_gather_finish()).
 *
 * Every operation is all or nothing: the tables it may need are allocated
 * before it changes anything, so -ENOMEM (like -EEXIST and -EINVAL) leaves
 * the tables exactly as they were.
 *
 * Besides mappings, a level-1 entry may hold a swap entry: a non-present
 * entry with a value the swap subsystem chose. Unmapping removes swap
 * entries too and reports each to the gather.
 *
 * Locking: the caller serialises all calls on one root (the address space's
 * lock); the kernel half, shared by every root, needs one kernel-wide lock.
 * The exceptions are the single-entry operations marked "fault path"
 * below: those may run concurrently with each other (an address space's
 * read side) as long as tables are created only by pt_populate() under a
 * lock of their own and freed only under the exclusive lock, or, for
 * level-1 tables whose whole range the caller owns, under the read side
 * with pt_gather.keep_upper set: a walk of the fault path may stop in any
 * table above level 1 and resume from it later, so those are freed only
 * under the exclusive lock.
 * The CPU's own page walker may run concurrently: entries are written with
 * single atomic stores, and A/D bits the CPU sets are never lost.
 * PML4 entries of the kernel half are never unlinked, so tables they point
 * to stay shared by every root copied from the kernel root.
 */
#ifndef MM_PT_H
#define MM_PT_H

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
/* Largest swap entry value (the arch's entries must hold it: mm/pt_internal.h checks). */
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

/* True unless the CPU lacks NX: then mappings are executable whatever the protection. */
extern bool pt_nx_enabled;

/*
 * @prot as the page tables can hold it on this CPU, which is what
 * pt_lookup() returns for a mapping made with @prot: without NX, every
 * mapping is executable (SDM Vol. 3A 4.6: EFER.NXE=0 leaves bit 63 reserved).
 */
static inline unsigned pt_prot_effective(unsigned prot)
{
	return pt_nx_enabled ? prot : prot | PROT_EXEC;
}

/* Prepares @g, empty; @flush may be NULL: the calling CPU only, by tlb_flush_local(). */
void pt_gather_init(struct pt_gather *g, pt_flush_fn *flush, void *arg);

/*
 * Flushes what @g gathered (if anything), then frees its table pages and
 * hands its frames to @g->release, and leaves @g empty for reuse. If the
 * flush did not complete (it set g->err), the tables and frames go to the
 * quarantine instead (mm/quarantine.h): never freed, never reused. The
 * caller must hold nothing the flush needs (IPIs are sent with interrupts on).
 */
void pt_gather_finish(struct pt_gather *g);

/*
 * pt_gather_finish() from inside an unmap's walk (a pt_leaf_fn, or the
 * gather itself when full): drops g->lock around the flush, and keeps the
 * batch pages @g grew into for the rest of the walk.
 */
void pt_gather_cut(struct pt_gather *g);

/* Frame @i (0 .. g->nr_pages - 1) that @g holds, in the order gathered. */
struct page *pt_gather_page_at(const struct pt_gather *g, unsigned i);

/*
 * Allocates an empty root. With @kernel_root non-zero its kernel half (PML4
 * slots 256..511) is copied, so the tables below are shared. Returns 0 with
 * *@root set, or -ENOMEM.
 */
int pt_root_alloc(paddr_t *root, paddr_t kernel_root);

/* pt_root_alloc() from NUMA node @node (page_alloc_node()'s @node and PMM_FALLBACK). */
int pt_root_alloc_node(paddr_t *root, paddr_t kernel_root, unsigned node, unsigned flags);

/*
 * Takes over page tables pt did not build (the boot tables): records each
 * table's number of present entries, so later changes keep exact counts
 * and unlink only tables that are really empty. A table reached through
 * several entries (the boot tables share their PDs) is never unlinked, even
 * when emptied, since the other entries still point to it; changing a
 * mapping through it changes it for every alias. Tables inside reserved
 * memory (the kernel image) are never handed to the allocator. Every
 * table must lie inside the memmap. Call once, after pmm_init() and before
 * any other pt call on @root. Returns 0, or -EINVAL for a table outside the
 * memmap (the tables are then only partly adopted: do not use @root).
 */
int pt_root_adopt(paddr_t root);

/*
 * Frees a root whose user half is empty, once no CPU has it loaded (or its
 * PCID cached). Returns 0, or -EBUSY when the user half still maps something.
 */
int pt_root_free(paddr_t root);

/*
 * Maps [va, va + len) to [pa, pa + len) with pages of @page_size
 * (PT_PAGE_4K, _2M or _1G; 1 GiB pages need CPUID pdpe1gb). Nothing may be
 * mapped in the range yet; no TLB flush is needed. Returns 0, -EINVAL
 * (misaligned, empty, non-canonical, bad @prot or @page_size), -EEXIST
 * (something is mapped there) or -ENOMEM.
 */
int pt_map(paddr_t root, vaddr_t va, paddr_t pa, u64 len, unsigned prot, u64 page_size);

/*
 * Removes every mapping in [va, va + len) (4 KiB aligned; holes are fine),
 * splitting huge pages that straddle an end, and unlinks tables it empties.
 * Flush range and table pages go into @g; call pt_gather_finish(@g) before
 * the frames that were mapped are reused. Returns 0, -EINVAL or -ENOMEM.
 */
int pt_unmap(paddr_t root, vaddr_t va, u64 len, struct pt_gather *g);

/*
 * Sets @prot on every mapping in [va, va + len) (4 KiB aligned; holes are
 * skipped), splitting huge pages that straddle an end. The caller then
 * flushes the range, widened to the huge pages around va and va + len if
 * those were split. Returns 0, -EINVAL or -ENOMEM.
 */
int pt_protect(paddr_t root, vaddr_t va, u64 len, unsigned prot);

/*
 * Translates @va. Returns 0 and fills the non-NULL outputs (the physical
 * address of @va itself, its protection, the size of the page mapping it),
 * -ENOENT when nothing maps it, or -EINVAL for a non-canonical @va.
 */
int pt_lookup(paddr_t root, vaddr_t va, paddr_t *pa, unsigned *prot, u64 *page_size);

/*
 * Allocates the tables that leaves of @page_size over [va, va + len) need
 * (PT_PAGE_4K: down to level-1 tables), mapping nothing. Returns 0,
 * -EINVAL, -EEXIST (a larger leaf covers part of the range) or -ENOMEM.
 */
int pt_populate(paddr_t root, vaddr_t va, u64 len, u64 page_size);

/* Page-table pages allocated now, roots included. */
u64 pt_table_pages(void);

#ifdef HOST_BUILD
/*
 * Host builds only (a debug counter, kept off the kernel's fault path):
 * walks that started at a root, so tests can hold each operation to one.
 */
extern u64 pt_debug_root_walks;
#endif

/* Single-entry operations (mm/pt_leaf.c); the fault path ones are safe under a read side. */

/*
 * Where one walk toward an address ended, so the operation that follows
 * (install, replace, swap-in) needs no walk of its own: the table holding
 * the entry that maps @va (a leaf at @level, possibly huge, or a swap
 * entry at level 1), or the empty entry above it at the level where the
 * tables end. The fault path keeps it while it holds its read side, which
 * keeps the tables from being freed; @e is the entry as read, and the
 * operations compare-and-exchange against the table itself.
 */
#define PT_MAX_LEVELS 5 /* most levels an arch may have (mm/pt_internal.h checks) */

struct pt_slot {
	vaddr_t va;	/* the address walked to */
	paddr_t table;	/* the table holding the entry */
	int level;	/* that table's level */
	u64 e;		/* the entry as read (the arch's format) */
	paddr_t tables[PT_MAX_LEVELS + 1]; /* the tables walked through, by level */
};

/* Fault path: walks @root toward @va once and fills *@s. Returns 0, or -EINVAL (bad @va). */
int pt_slot_find(paddr_t root, vaddr_t va, struct pt_slot *s);

/* A present leaf maps s->va: returns true with its physical address and protection. */
bool pt_slot_mapped(const struct pt_slot *s, paddr_t *pa, unsigned *prot);

/* A swap entry is in the slot: returns true with its value in *@swp. */
bool pt_slot_swap(const struct pt_slot *s, u64 *swp);

/*
 * Fault path, under the caller's table lock as for pt_populate(): resumes
 * the walk of @s where its tables ended and allocates the ones missing
 * down to level 1 (all or none). Returns 0 (s->level is 1 now), -EEXIST
 * (a huge leaf maps s->va) or -ENOMEM.
 */
int pt_slot_populate(struct pt_slot *s);

/* pt_leaf_install() on the slot found: -ENOENT when s->level > 1 (pt_slot_populate() first). */
int pt_slot_install(struct pt_slot *s, paddr_t pa, unsigned prot);

/* pt_leaf_replace() on the slot found: -EAGAIN unless a 4 KiB leaf is there mapping @old_pa. */
int pt_slot_replace(const struct pt_slot *s, paddr_t old_pa, paddr_t pa, unsigned prot);

/* Fault path: the slot's entry, read again now, still holds swap entry @swp. */
bool pt_slot_holds_swap(const struct pt_slot *s, u64 swp);

/* pt_swap_to_leaf() on the slot found: -EAGAIN unless swap entry @swp is still there. */
int pt_slot_swap_to_leaf(const struct pt_slot *s, u64 swp, paddr_t pa, unsigned prot);

/*
 * Fault path: maps the 4 KiB page at @va to @pa if the entry is empty,
 * with one compare-and-exchange. Returns 0, -ENOENT when no level-1 table
 * holds @va yet (pt_populate() first), -EEXIST when the entry is not empty
 * (a mapping or a swap entry: someone was first), or -EINVAL.
 */
int pt_leaf_install(paddr_t root, vaddr_t va, paddr_t pa, unsigned prot);

/*
 * Fault path: if the 4 KiB leaf at @va still maps @old_pa, points it at
 * @pa with @prot in one compare-and-exchange (the accessed and dirty bits
 * are kept when @pa == @old_pa). The caller flushes when the old
 * translation must not be used any more. Returns 0, -EAGAIN when the leaf
 * changed meanwhile or is gone, or -EINVAL.
 */
int pt_leaf_replace(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, unsigned prot);

/*
 * Migration: points the 4 KiB leaf at @va from @old_pa to @pa with the
 * same protection, in one compare-and-exchange, after @g's leaf hook (a
 * design may flush what @g holds first). The old translation's range and
 * frame go into @g as an unmap's would: the frame is released after the
 * flush that covers it. Caller holds the mm's write side. Returns 0,
 * -EAGAIN (no 4 KiB leaf maps @old_pa there) or -EINVAL.
 */
int pt_leaf_move(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, struct pt_gather *g);

/*
 * Puts swap entry @swp (1..PT_SWAP_MAX) in the empty 4 KiB entry at @va,
 * allocating tables as needed. Not the fault path: the caller holds the
 * root's lock. Returns 0, -EEXIST, -EINVAL or -ENOMEM.
 */
int pt_swap_set(paddr_t root, vaddr_t va, u64 swp);

/* Fault path: the swap entry at @va. Returns 0 with *@swp set, or -ENOENT. */
int pt_swap_lookup(paddr_t root, vaddr_t va, u64 *swp);

/*
 * Fault path (swap-in): if the entry at @va still holds swap entry @swp,
 * maps @pa there with @prot in one compare-and-exchange. No flush is
 * needed (the entry was not present). Returns 0, -EAGAIN when the entry
 * changed meanwhile (another CPU brought the page in), or -EINVAL.
 */
int pt_swap_to_leaf(paddr_t root, vaddr_t va, u64 swp, paddr_t pa, unsigned prot);

/*
 * Swap-out: if the 4 KiB leaf at @va maps @pa, replaces it with swap entry
 * @swp (1..PT_SWAP_MAX) and adds its range to @g, whose finish flushes it;
 * the frame is the caller's to free after that flush. Not the fault path:
 * the caller holds the root's lock. Returns 0 with *@prot set to the
 * leaf's protection, -ENOENT (no such leaf) or -EINVAL.
 */
int pt_leaf_to_swap(paddr_t root, vaddr_t va, paddr_t pa, u64 swp, struct pt_gather *g,
		    unsigned *prot);

/* One leaf or swap entry, as pt_walk() reports it. */
struct pt_leaf {
	vaddr_t va;	/* first address the entry covers */
	u64 size;	/* PT_PAGE_4K, _2M or _1G */
	paddr_t pa;	/* a mapping: its physical address; 0 for a swap entry */
	unsigned prot;	/* a mapping: its protection */
	u64 swp;	/* a swap entry: its value; 0 for a mapping */
};

typedef int pt_walk_fn(void *arg, const struct pt_leaf *leaf);

/*
 * Calls @fn for every leaf and swap entry that overlaps [va, va + len)
 * (4 KiB aligned), in address order (leaf->va is where the entry starts),
 * stopping at the first non-zero return, which it returns; else 0
 * (-EINVAL for a bad range). @fn may change entries of the root but must
 * not add or free tables.
 */
int pt_walk(paddr_t root, vaddr_t va, u64 len, pt_walk_fn *fn, void *arg);

#endif
