/*
 * Mapping objects: what regions of several address spaces map in common
 * (a file, say), with the reader-writer lock that stands in for Linux's
 * i_mmap_rwsem, and the fault path's designs for taking it
 * (fault_lock_designs[]; a mapping's own, given to mapping_init()), from
 * every fault taking it to only the faults that can race a table's removal.
 * The lock order and what the writer takes are written once, below.
 */
#ifndef MM_MAPPING_H
#define MM_MAPPING_H

#include "mm/counters.h"
#include "compiler.h"
#include "kernel/design.h"
#include "kernel/rwlock.h"
#include "types.h"

/*
 * Lock order: mm->lock -> a region's vma_lock -> mapping->lock ->
 * mm->pt_lock -> frame allocator. Faults take mm->lock's read side, then
 * (as the design says) the mapping's or their region's read side. The
 * writer (mapping_zap()) takes, per attached region, mm->lock's read side
 * for a shareable region (its faults are kept out by the lock the design
 * has them take, so faults elsewhere in the address space go on; the write
 * side for a private one), then the write side of that region's vma_lock
 * when the design's faults take it, then the mapping's write side, then
 * mm->pt_lock around the table removal (of level-1 tables only under the
 * read side: see MAPPING_SHARE_ALIGN); the flush and the release of the
 * pages follow under the mapping lock, after pt_lock is dropped (a region
 * of more than PT_GATHER_PAGES pages flushes mid-walk too, and drops
 * pt_lock around each such flush: no flush waits for other CPUs with a
 * spinlock held, which debug builds check). The attachment table changes
 * under the write side, and an entry never moves while attached, so a
 * writer walking it by index while regions come and go still reaches
 * every region attached throughout; attach and detach take mm->lock and
 * the mapping lock one after the other, never nested.
 * Nothing here is taken from interrupt handlers.
 */

struct mm;
struct mm_region;

/* Regions one mapping can be attached to, over every address space. */
#define MAPPING_MAX_ATTACH 256
/*
 * A shareable region starts and ends on this boundary, so the level-1
 * tables that cover it are its own: the writer may unlink them under
 * mm->lock's read side while faults on other regions walk their own
 * tables. The tables above level 1 (PD, PDPT) are not its own: a fault on
 * a private region under the same PD, under the same read side, may have
 * stopped its walk in that PD and link a table into it later. So under
 * the read side the writer unlinks level-1 tables only (pt_gather
 * keep_upper, mm/pt.h); upper tables it empties stay linked, empty, until
 * an unmap under the write side over their range (mm_unmap_region(),
 * mm_destroy()) reaps them, as Linux frees page tables only in
 * free_pgtables() under the mmap write lock.
 */
#define MAPPING_SHARE_ALIGN (1ul << 21)

/*
 * A fault-lock design (kernel/design.h); promises count PCPU_MAPPING_LOCKS
 * and PCPU_VMA_LOCKS per fault.
 */
struct fault_lock_ops {
	struct design d; /* first: fault_lock_designs[] holds &ops.d */
	/*
	 * The lock a fault on @r (attached: r->mapping set) takes for reading,
	 * or NULL for none: r->mapping->lock, or r's own vma_lock.
	 */
	rwlock_t *(*lock_of)(const struct mm_region *r);
};

extern const struct fault_lock_ops fault_lock_ops_naive, fault_lock_ops_fixed;
extern const struct fault_lock_ops fault_lock_ops_vma_lock;

/* Every fault-lock design, naive first, NULL-terminated. */
extern const struct design *fault_lock_designs[DESIGN_TABLE_SLOTS];

static inline const struct fault_lock_ops *fault_lock_ops_of(const struct design *d)
{
	return container_of(d, struct fault_lock_ops, d);
}

/* One region attached to the mapping. */
struct mm_mapping_attach {
	struct mm *mm; /* NULL: a free slot */
	vaddr_t start, end;
	unsigned flags; /* the region's MM_* flags when attached */
};

/* A region's own fault lock, alone on its line (the line vma_lock's faults write). */
struct mapping_vma_lock {
	rwlock_t lock;
} __cacheline_aligned;

struct mm_mapping {
	/* Alone on its line: the line the naive design makes every fault write. */
	rwlock_t lock __cacheline_aligned;
	/* attach[0..nattach) holds every attached region; an empty slot has mm NULL. */
	unsigned nattach __cacheline_aligned;
	/* How faults on the attached regions take @lock (set once, by mapping_init()). */
	const struct fault_lock_ops *fault_lock;
	struct mm_mapping_attach attach[MAPPING_MAX_ATTACH];
	/*
	 * vma_lock[i]: the fault lock of the region in attach[i] under design
	 * vma_lock. Set up once by mapping_init(); free whenever slot i is, since
	 * only holders of the region's mm->lock take it and detaching takes
	 * the write side.
	 */
	struct mapping_vma_lock vma_lock[MAPPING_MAX_ATTACH];
};

/*
 * Initialises @m with no attached region, its faults taking the lock as
 * design @fault_lock says (an entry of fault_lock_designs[]). Any context,
 * before first use.
 */
void mapping_init(struct mm_mapping *m, const char *name, const struct fault_lock_ops *fault_lock);

/*
 * Attaches the region of @mm that starts at @start to @m. Task context;
 * the caller does not change that region meanwhile. Returns 0, -EINVAL (no
 * region starts there, or a shareable one is not MAPPING_SHARE_ALIGN
 * aligned), -EBUSY (already attached) or -ENOSPC (table full).
 */
int mapping_attach(struct mm_mapping *m, struct mm *mm, vaddr_t start);

/*
 * Detaches the region of @mm at @start from @m (call before mm_destroy()
 * or unmapping the region). Task context. Returns 0 or -ENOENT.
 */
int mapping_detach(struct mm_mapping *m, struct mm *mm, vaddr_t start);

/*
 * The writer path (truncate / unshare): unmaps every page of the regions
 * attached to @m (@mm non-NULL: only those of @mm) and releases the pages
 * after the flush, in the lock order above. Task context, interrupts on,
 * no lock held. Returns 0 or the first error: pt_unmap()'s, or -ETIMEDOUT
 * when a flush did not complete (that region's pages are unmapped, and
 * quarantined rather than released).
 */
int mapping_zap(struct mm_mapping *m, struct mm *mm);

/*
 * Fault path, mm->lock's read side held: takes for reading the lock the
 * mapping's design has faults on @r take (its mapping lock, counted as
 * PCPU_MAPPING_LOCKS, or its own vma_lock, counted as PCPU_VMA_LOCKS), if
 * any. Returns that lock, or NULL; pass it to mapping_fault_done().
 */
rwlock_t *mapping_fault_lock(const struct mm_region *r);

/* Drops what mapping_fault_lock(@r) took (@held NULL: nothing). */
void mapping_fault_done(const struct mm_region *r, rwlock_t *held);

/*
 * For code outside the fault path that installs pages in region @r
 * (mm_populate(), mm_map_page()), mm->lock's read side held: takes @r's
 * mapping lock for reading when @r is shareable, whichever fault design is
 * in use, since the writer zaps such a region under mm->lock's read side
 * and keeps installers out with this lock alone. Not counted. Returns
 * whether it did; pass that to mapping_fault_unlock().
 */
bool mapping_install_lock(const struct mm_region *r);

/* Drops what mapping_install_lock() took (nothing when @held is false). */
void mapping_fault_unlock(const struct mm_region *r, bool held);

#endif
