/*
 * Mapping objects and the fault path's mapping-lock designs (see
 * mm/mapping.h): attaching regions, the writer path that zaps what the
 * attached regions map, and fault_lock_ops_naive / _fixed / _vma_lock.
 *
 * Locking and lock order as mm/mapping.h says.
 */
#include "mm/mapping.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include "mm/mm.h"
#include "mm/pt.h"

PCPU_COUNTER(PCPU_MAPPING_LOCKS, "mapping_locks");
PCPU_COUNTER(PCPU_VMA_LOCKS, "vma_locks");

void mapping_init(struct mm_mapping *m, const char *name, const struct fault_lock_ops *fault_lock)
{
	rwlock_init(&m->lock, name);
	m->fault_lock = fault_lock;
	m->nattach = 0;
	for (unsigned i = 0; i < MAPPING_MAX_ATTACH; i++) {
		m->attach[i] = (struct mm_mapping_attach){ NULL, 0, 0, 0 };
		rwlock_init(&m->vma_lock[i].lock, "vma_lock");
	}
}

/* ---- attaching ---- */

/* What the region of @mm at @start is, for the table; checks it may be attached. */
static int mapping_region_info(struct mm *mm, vaddr_t start, struct mm_mapping_attach *a)
{
	const struct mm_region *r;
	int err = -EINVAL;

	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, start);
	if (r && r->start == start) {
		*a = (struct mm_mapping_attach){ mm, r->start, r->end, r->flags };
		err = r->mapping ? -EBUSY : 0;
	}
	read_unlock(&mm->lock);
	if (!err && (a->flags & MM_PT_SHAREABLE) &&
	    (!IS_ALIGNED(a->start, MAPPING_SHARE_ALIGN) ||
	     !IS_ALIGNED(a->end, MAPPING_SHARE_ALIGN)))
		err = -EINVAL;
	return err;
}

/*
 * Removes the table entry for (@mm, @start). The slot is emptied in place,
 * never filled from elsewhere, so an entry keeps its index for as long as
 * it stays attached and a writer walking the table by index cannot step
 * over one; nattach shrinks past the empty slots at its end. Returns 0 or
 * -ENOENT.
 */
static int mapping_table_remove(struct mm_mapping *m, struct mm *mm, vaddr_t start)
{
	int err = -ENOENT;

	write_lock(&m->lock);
	for (unsigned i = 0; i < m->nattach; i++) {
		if (m->attach[i].mm != mm || m->attach[i].start != start)
			continue;
		m->attach[i].mm = NULL;
		err = 0;
		break;
	}
	while (m->nattach && !m->attach[m->nattach - 1].mm)
		m->nattach--;
	write_unlock(&m->lock);
	return err;
}

/* Puts @a in the first empty slot, stored in *@slot. Write side held. Returns 0 or -ENOSPC. */
static int mapping_table_add_locked(struct mm_mapping *m, const struct mm_mapping_attach *a,
				    unsigned *slot)
{
	unsigned i = 0;

	while (i < m->nattach && m->attach[i].mm)
		i++;
	if (i == MAPPING_MAX_ATTACH)
		return -ENOSPC;
	m->attach[i] = *a;
	if (i == m->nattach)
		m->nattach++;
	*slot = i;
	return 0;
}

int mapping_attach(struct mm_mapping *m, struct mm *mm, vaddr_t start)
{
	struct mm_mapping_attach a;
	unsigned slot = 0;
	int err = mapping_region_info(mm, start, &a);

	if (err)
		return err;
	write_lock(&m->lock);
	err = mapping_table_add_locked(m, &a, &slot);
	write_unlock(&m->lock);
	/* Table first, region second: a writer in between skips the region (not yet ours). */
	if (!err && (err = mm_region_set_mapping(mm, start, m, slot)))
		mapping_table_remove(m, mm, start);
	return err;
}

int mapping_detach(struct mm_mapping *m, struct mm *mm, vaddr_t start)
{
	/*
	 * Region first: once it has no mapping, faults on it no longer take
	 * the lock; and with the write side of mm->lock taken here, none still
	 * holds its vma_lock when the slot is freed.
	 */
	mm_region_set_mapping(mm, start, NULL, 0);
	return mapping_table_remove(m, mm, start);
}

/* ---- the writer path ---- */

/* @a's region if it is attached to @m (not detached meanwhile, nor not yet attached), else NULL. */
static const struct mm_region *mapping_zap_region(struct mm_mapping *m,
						  const struct mm_mapping_attach *a)
{
	const struct mm_region *r = mm_region_find_locked(a->mm, a->start);

	return r && r->mapping == m && r->start == a->start ? r : NULL;
}

/*
 * The lock besides m->lock the writer must hold for writing to keep
 * region @r's faults out: the one they take (the design's lock_of()) when
 * it is not the mapping lock itself; else NULL.
 */
static rwlock_t *mapping_zap_fault_lock(struct mm_mapping *m, const struct mm_region *r)
{
	rwlock_t *l = r ? m->fault_lock->lock_of(r) : NULL;

	return l == &m->lock ? NULL : l;
}

/* Unmaps region @r of @mm; mm->lock (side per mm/mapping.h) and the mapping's write side held. */
static int mapping_zap_locked(struct mm *mm, const struct mm_region *r)
{
	struct pt_gather g;
	int err;

	mm_gather_init(&g, mm);
	/*
	 * A shareable region is zapped under mm->lock's read side, so faults
	 * on private regions under the same PD (or PDPT) go on and may have
	 * stopped their walk in it: only the region's own level-1 tables go.
	 */
	g.keep_upper = r->flags & MM_PT_SHAREABLE;
	/*
	 * pt_lock: faults elsewhere in this mm may be adding tables next to
	 * ours. A mid-walk flush (over PT_GATHER_PAGES pages) drops it, since
	 * it waits for CPUs that may spin on it; our tables stay ours
	 * meanwhile (the mapping's write side or mm->lock's keeps unmappers out).
	 */
	g.lock = &mm->pt_lock;
	spin_lock(&mm->pt_lock);
	err = pt_unmap(mm->root, r->start, r->end - r->start, &g);
	spin_unlock(&mm->pt_lock);
	/* Still under the mapping lock: no fault maps a page here before the flush. */
	pt_gather_finish(&g);
	/* A flush that did not complete quarantined the frames: say so. */
	return err ? err : g.err;
}

static int mapping_zap_one(struct mm_mapping *m, const struct mm_mapping_attach *a)
{
	bool shareable = a->flags & MM_PT_SHAREABLE;
	int err;

	/*
	 * A shareable region's faults all take the mapping lock, so the read
	 * side of mm->lock is enough; a private region's faults may not
	 * (fixed), so those are kept out by the write side.
	 */
	const struct mm_region *r;
	rwlock_t *fl;

	if (shareable)
		read_lock(&a->mm->lock);
	else
		write_lock(&a->mm->lock);
	r = mapping_zap_region(m, a);
	fl = mapping_zap_fault_lock(m, r);
	if (fl)
		write_lock(fl);
	write_lock(&m->lock);
	err = r ? mapping_zap_locked(a->mm, r) : 0;
	write_unlock(&m->lock);
	if (fl)
		write_unlock(fl);
	if (shareable)
		read_unlock(&a->mm->lock);
	else
		write_unlock(&a->mm->lock);
	return err;
}

/* Copies attachment @i to @a (a.mm NULL: an empty slot); false past the end of the table. */
static bool mapping_attach_get(struct mm_mapping *m, unsigned i, struct mm_mapping_attach *a)
{
	bool ok;

	read_lock(&m->lock);
	ok = i < m->nattach;
	if (ok)
		*a = m->attach[i];
	read_unlock(&m->lock);
	return ok;
}

int mapping_zap(struct mm_mapping *m, struct mm *mm)
{
	struct mm_mapping_attach a;
	int err = 0;

	for (unsigned i = 0; mapping_attach_get(m, i, &a); i++) {
		int e = (a.mm && (!mm || a.mm == mm)) ? mapping_zap_one(m, &a) : 0;

		if (!err)
			err = e;
	}
	return err;
}

/* ---- the fault path: naive ---- */

static rwlock_t *fault_lock_of_naive(const struct mm_region *r)
{
	return &r->mapping->lock;
}

/* ---- the fault path: fixed ---- */

/* Only a region whose tables may be shared can lose a table under the fault. */
static rwlock_t *fault_lock_of_fixed(const struct mm_region *r)
{
	return (r->flags & MM_PT_SHAREABLE) ? &r->mapping->lock : NULL;
}

/*
 * ---- the fault path: vma_lock ----
 * Mike Kravetz, "hugetlb: add vma based lock for synchronization" (2022,
 * the hugetlb vma_lock series): faults on a hugetlb vma that may share
 * PMDs take a lock of that vma's own instead of the file's i_mmap_rwsem,
 * which only the unsharing writer takes for writing. Reported on a 48-CPU
 * VM: 71,405 faults/s with i_mmap_rwsem in the fault path, 79,048 with
 * the vma lock, 81,191 with no lock at all (the unsafe original), whose
 * fork rate a concurrent fault load had cut from 358 to 67 forks/s. Here:
 * the same regions lock as under fixed (shareable ones), each on its own
 * vma_lock[] line, so K CPUs faulting on K regions share no lock line;
 * the writer takes the region's lock for writing before the mapping's.
 */
static rwlock_t *fault_lock_of_vma(const struct mm_region *r)
{
	return (r->flags & MM_PT_SHAREABLE) ? &r->mapping->vma_lock[r->attach_slot].lock : NULL;
}

/* One mapping lock per fault, never a vma lock. */
const struct fault_lock_ops fault_lock_ops_naive = {
	.d = { .name = "naive", .desc = "every fault on a mapped region takes the mapping lock",
	       .source = "the 2020 hugetlbfs i_mmap_rwsem regression (after c0d0381ade)",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES({ PCPU_MAPPING_LOCKS, 1, 1, false, false },
					   { PCPU_VMA_LOCKS, 0, 1, false, false }) },
	.lock_of = fault_lock_of_naive,
};

/*
 * Locks only on shareable regions: no mapping-lock count the fault count
 * alone can state (one per fault there, none elsewhere); never a vma lock.
 */
const struct fault_lock_ops fault_lock_ops_fixed = {
	.d = { .name = "fixed", .desc = "only faults on shareable regions take the mapping lock",
	       .source = "the fix of that regression (34ae204f1851): lock only where tables "
			 "may be shared",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES({ PCPU_VMA_LOCKS, 0, 1, false, false }) },
	.lock_of = fault_lock_of_fixed,
};

/*
 * Never the mapping lock, the promise that tells it from fixed; its vma
 * locks, like fixed's mapping locks, are one per fault on shareable
 * regions and none elsewhere, which the fault count alone cannot state.
 */
const struct fault_lock_ops fault_lock_ops_vma_lock = {
	.d = { .name = "vma_lock", .desc = "faults take their region's own lock, not the mapping's",
	       .source = "Mike Kravetz, \"hugetlb: add vma based lock for synchronization\" "
			 "(2022)",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES({ PCPU_MAPPING_LOCKS, 0, 1, false, false }) },
	.lock_of = fault_lock_of_vma,
};

const struct design *const fault_lock_designs[] = { &fault_lock_ops_naive.d,
						    &fault_lock_ops_fixed.d,
						    &fault_lock_ops_vma_lock.d, NULL };

rwlock_t *mapping_fault_lock(const struct mm_region *r)
{
	rwlock_t *l = r->mapping ? r->mapping->fault_lock->lock_of(r) : NULL;

	bool shared;

	if (!l)
		return NULL;
	shared = l == &r->mapping->lock;
	read_lock(l);
	trace_event(TRACE_LOCK_ACQ, shared ? TRACE_LOCK_MAPPING : TRACE_LOCK_VMA, 0);
	this_cpu_inc(shared ? PCPU_MAPPING_LOCKS : PCPU_VMA_LOCKS);
	return l;
}

void mapping_fault_done(const struct mm_region *r, rwlock_t *held)
{
	if (held) {
		trace_event(TRACE_LOCK_REL,
			    held == &r->mapping->lock ? TRACE_LOCK_MAPPING : TRACE_LOCK_VMA, 0);
		read_unlock(held);
	}
}

bool mapping_install_lock(const struct mm_region *r)
{
	/* Whatever the fault design: the writer trusts this lock alone for such regions. */
	if (!r->mapping || !(r->flags & MM_PT_SHAREABLE))
		return false;
	read_lock(&r->mapping->lock);
	trace_event(TRACE_LOCK_ACQ, TRACE_LOCK_MAPPING, 1);
	return true;
}

void mapping_fault_unlock(const struct mm_region *r, bool held)
{
	if (held) {
		trace_event(TRACE_LOCK_REL, TRACE_LOCK_MAPPING, 0);
		read_unlock(&r->mapping->lock);
	}
}
