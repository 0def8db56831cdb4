/*
 * The fake CPUs' TLBs (see tests/host/fake_tlb.h). Direct-mapped: an address
 * has one candidate entry per page size; a large page's entry covers its
 * whole range, so one INVLPG anywhere in it drops it, as on hardware. Each
 * CPU's array is behind its own spinning lock: the owner's thread looks up
 * and fills, the thread that sends a fake IPI invalidates.
 */
#include <sched.h>

#include "compiler.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "tests/host/fake_tlb.h"
#include <arch/layout.h>

struct fake_tlb_entry {
	bool valid;
	u16 asid;
	vaddr_t base;	/* page base: va rounded down to @size */
	paddr_t pa;	/* frame of the page at @base */
	u64 size;
	unsigned prot;
};

struct fake_tlb {
	int lock;
	u16 asid; /* the ASID loaded now */
	struct fake_tlb_entry e[FAKE_TLB_ENTRIES];
};

static struct fake_tlb fake_tlbs[FAKE_TLB_CPUS];
/* Odd, so ASIDs 0..6 spread a page over different entries. */
#define FAKE_TLB_ASID_STRIDE 97
static const u64 fake_tlb_sizes[] = { PT_PAGE_4K, PT_PAGE_2M, PT_PAGE_1G };
static u64 fake_tlb_hit_count, fake_tlb_early_count;
static paddr_t fake_tlb_early_pa;

/* @cpu's TLB, locked; NULL for a CPU without one. */
static struct fake_tlb *tlb_lock(unsigned cpu)
{
	struct fake_tlb *t = cpu < FAKE_TLB_CPUS ? &fake_tlbs[cpu] : NULL;

	while (t && __atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	return t;
}

static void tlb_unlock(struct fake_tlb *t)
{
	if (t)
		__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

/*
 * The ASID is in the index too, so the same address under several ASIDs
 * can be cached at once, as in a set-associative TLB.
 */
static struct fake_tlb_entry *tlb_slot(struct fake_tlb *t, vaddr_t va, u64 size)
{
	return &t->e[(va / size + t->asid * FAKE_TLB_ASID_STRIDE) % FAKE_TLB_ENTRIES];
}

/*
 * A flush drops @e while its CPU runs the ASID: had its frame been freed
 * already, the CPU could have reached the frame's next owner through it.
 * Load-time flushes are not checked: a CPU away from an address space
 * (idle lazy mode) may keep entries of frames freed meanwhile, as it cannot use them.
 */
static void tlb_drop_checked(struct fake_tlb_entry *e)
{
	u64 pfn = e->pa >> PAGE_SHIFT;

	e->valid = false;
	if (e->size != PT_PAGE_4K || !pfn_valid(pfn) ||
	    !page_test_flags(pfn_to_page(pfn), PG_FREED))
		return;
	__atomic_store_n(&fake_tlb_early_pa, e->pa, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fake_tlb_early_count, 1, __ATOMIC_RELAXED);
}

/* The entry that translates @va under the loaded ASID, or NULL. */
static struct fake_tlb_entry *tlb_find(struct fake_tlb *t, vaddr_t va)
{
	for (unsigned i = 0; i < ARRAY_SIZE(fake_tlb_sizes); i++) {
		struct fake_tlb_entry *e = tlb_slot(t, va, fake_tlb_sizes[i]);

		if (e->valid && e->asid == t->asid && e->size == fake_tlb_sizes[i] &&
		    va - e->base < e->size)
			return e;
	}
	return NULL;
}

void fake_tlb_reset(void)
{
	for (unsigned cpu = 0; cpu < FAKE_TLB_CPUS; cpu++) {
		struct fake_tlb *t = tlb_lock(cpu);

		for (unsigned i = 0; i < FAKE_TLB_ENTRIES; i++)
			t->e[i].valid = false;
		t->asid = 0;
		tlb_unlock(t);
	}
	__atomic_store_n(&fake_tlb_hit_count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fake_tlb_early_count, 0, __ATOMIC_RELAXED);
}

bool fake_tlb_lookup(unsigned cpu, vaddr_t va, struct fake_tlb_hit *hit)
{
	struct fake_tlb *t = tlb_lock(cpu);
	const struct fake_tlb_entry *e;

	if (!t)
		return false;
	e = tlb_find(t, va);
	if (e) {
		hit->pa = e->pa + (va - e->base);
		hit->prot = e->prot;
	}
	tlb_unlock(t);
	if (e)
		__atomic_fetch_add(&fake_tlb_hit_count, 1, __ATOMIC_RELAXED);
	return e != NULL;
}

void fake_tlb_fill(unsigned cpu, vaddr_t va, paddr_t pa, u64 size, unsigned prot)
{
	struct fake_tlb *t = tlb_lock(cpu);
	vaddr_t base = va & ~(vaddr_t)(size - 1);

	if (!t)
		return;
	*tlb_slot(t, base, size) = (struct fake_tlb_entry){
		true, t->asid, base, pa & ~(paddr_t)(size - 1), size, prot,
	};
	tlb_unlock(t);
}

/* Drops @cpu's entries covering @va in its current ASID. */
void fake_tlb_flush_va(unsigned cpu, vaddr_t va)
{
	struct fake_tlb *t = tlb_lock(cpu);
	struct fake_tlb_entry *e;

	if (!t)
		return;
	while ((e = tlb_find(t, va)))
		tlb_drop_checked(e);
	tlb_unlock(t);
}

void fake_tlb_fault(unsigned cpu, vaddr_t va)
{
	fake_tlb_flush_va(cpu, va);
}

static void tlb_drop_asid_locked(struct fake_tlb *t, u16 asid, bool check)
{
	for (unsigned i = 0; i < FAKE_TLB_ENTRIES; i++) {
		struct fake_tlb_entry *e = &t->e[i];

		if (!e->valid || e->asid != asid || (e->prot & PROT_GLOBAL))
			continue;
		if (check)
			tlb_drop_checked(e);
		else
			e->valid = false;
	}
}

void fake_tlb_flush_asid(unsigned cpu)
{
	struct fake_tlb *t = tlb_lock(cpu);

	if (!t)
		return;
	tlb_drop_asid_locked(t, t->asid, true);
	tlb_unlock(t);
}

void fake_tlb_flush_everything(unsigned cpu)
{
	struct fake_tlb *t = tlb_lock(cpu);

	if (!t)
		return;
	for (unsigned i = 0; i < FAKE_TLB_ENTRIES; i++) {
		if (t->e[i].valid && t->e[i].asid == t->asid)
			tlb_drop_checked(&t->e[i]);
		t->e[i].valid = false;
	}
	tlb_unlock(t);
}

/*
 * With PCIDs a load keeps what other PCIDs cached; mm_init(..., 0) makes
 * every root load PCID 0 with a flush, which then drops everything
 * non-global, as a CR3 load without PCIDs does.
 */
void fake_tlb_load(unsigned cpu, u16 asid, bool flush)
{
	struct fake_tlb *t = tlb_lock(cpu);

	if (!t)
		return;
	t->asid = asid;
	if (flush)
		tlb_drop_asid_locked(t, asid, false);
	tlb_unlock(t);
}

bool fake_tlb_holds(unsigned cpu, paddr_t pa, u64 len)
{
	struct fake_tlb *t = tlb_lock(cpu);
	bool held = false;

	for (unsigned i = 0; t && i < FAKE_TLB_ENTRIES && !held; i++) {
		const struct fake_tlb_entry *e = &t->e[i];

		held = e->valid && e->asid == t->asid && e->pa < pa + len && pa < e->pa + e->size;
	}
	tlb_unlock(t);
	return held;
}

void fake_tlb_visit(unsigned cpu, fake_tlb_visit_fn *fn, void *arg)
{
	struct fake_tlb *t = tlb_lock(cpu);

	for (unsigned i = 0; t && i < FAKE_TLB_ENTRIES; i++) {
		const struct fake_tlb_entry *e = &t->e[i];

		if (e->valid && e->asid == t->asid)
			fn(arg, e->base, e->pa, e->size, e->prot);
	}
	tlb_unlock(t);
}

u64 fake_tlb_hits(void)
{
	return __atomic_load_n(&fake_tlb_hit_count, __ATOMIC_RELAXED);
}

u64 fake_tlb_early_frees(paddr_t *last_pa)
{
	if (last_pa)
		*last_pa = __atomic_load_n(&fake_tlb_early_pa, __ATOMIC_RELAXED);
	return __atomic_load_n(&fake_tlb_early_count, __ATOMIC_RELAXED);
}
