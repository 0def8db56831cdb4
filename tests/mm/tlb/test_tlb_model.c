/*
 * The host TLB model (tests/host/fake_tlb.h) against the real shootdown code
 * (mm/tlb/tlb.c): fake CPUs read pages so their modelled TLBs cache them, CPU
 * 0 unmaps and rewrites the frames, and a reader seeing the new pattern used
 * a stale entry. The control design (tlb_ops_no_remote) must be caught, the
 * others never; no design may free a frame before its flush. Host only; the
 * kernel's own detector is tests/mm/tlb/test_tlb_stale.c.
 */
/* build: host only */
#include "errno.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_tlb.h"
#include <arch/arch.h>

#define REG 0x30000000ul
#define RW (MM_READ | MM_WRITE)
#define NEW_PATTERN 0x5757575757575757ull
#define MODEL_MAX_PAGES (PT_GATHER_LOCAL + 1)
#define READERS (EMUL_FAKE_CPUS - 1)

static vaddr_t model_va(unsigned i)
{
	return REG + (vaddr_t)i * PAGE_SIZE;
}

/* Every fake CPU back on the kernel root, CPU 0 current again. */
static void model_all_cpus_away(void)
{
	for (unsigned cpu = 0; cpu < EMUL_FAKE_CPUS; cpu++) {
		fake_arch_set_cpu(cpu);
		mm_switch(NULL);
	}
	fake_arch_set_cpu(0);
}

/* Readers 1..READERS read every page of @mm, so their TLBs cache all @nr. */
static void model_readers_touch(struct ktest *t, struct mm *mm, unsigned nr)
{
	for (unsigned cpu = 1; cpu <= READERS; cpu++) {
		fake_arch_set_cpu(cpu);
		for (unsigned i = 0; i < nr; i++)
			KEXPECT_EQ(t, emul_read(t, mm, model_va(i)), 1000 + i);
	}
	fake_arch_set_cpu(0);
}

/* Readers read the first @nr pages again: each a fresh demand-zero page. */
static void model_readers_touch_zero(struct ktest *t, struct mm *mm, unsigned nr)
{
	for (unsigned cpu = 1; cpu <= READERS; cpu++) {
		fake_arch_set_cpu(cpu);
		for (unsigned i = 0; i < nr; i++)
			KEXPECT_EQ(t, emul_read(t, mm, model_va(i)), 0);
	}
	fake_arch_set_cpu(0);
}

/*
 * Unmaps @nr pages through @ops with the frames held, rewrites them, then
 * has every reader read them again. Returns the stale reads (the new
 * pattern seen); every other read must be the demand-zero page.
 */
static unsigned model_unmap_and_reread(struct ktest *t, struct mm *mm, unsigned nr,
				       const struct tlb_ops *ops)
{
	static struct page *old[MODEL_MAX_PAGES];
	unsigned stale = 0;

	for (unsigned i = 0; i < nr; i++) {
		old[i] = emul_page_at(mm, model_va(i), NULL);
		page_ref_inc(old[i]);
	}
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, nr, ops), 0);
	for (unsigned i = 0; i < nr; i++)
		*(volatile u64 *)page_address(old[i]) = NEW_PATTERN;
	for (unsigned cpu = 1; cpu <= READERS; cpu++) {
		fake_arch_set_cpu(cpu);
		for (unsigned i = 0; i < nr; i++) {
			u64 v = ~0ull;

			KEXPECT_EQ(t, emul_touch(mm, model_va(i), false, &v), 0);
			stale += v == NEW_PATTERN;
			KEXPECT(t, v == NEW_PATTERN || v == 0);
		}
	}
	fake_arch_set_cpu(0);
	for (unsigned i = 0; i < nr; i++) {
		if (page_ref_dec_and_test(old[i]))
			page_free(old[i], 0);
	}
	return stale;
}

/* A mapped region of @nr pages holding 1000 + i, read by every reader. */
static struct mm *model_mm_new(struct ktest *t, unsigned nr)
{
	struct mm *mm = NULL;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(mm, REG, (u64)nr * PAGE_SIZE, RW), 0);
	for (unsigned i = 0; i < nr; i++)
		emul_write(t, mm, model_va(i), 1000 + i);
	model_readers_touch(t, mm, nr);
	return mm;
}

/* One design, one size: @want_stale stale reads exactly, and the model counted each. */
static void model_check(struct ktest *t, const struct tlb_ops *ops, unsigned nr,
			unsigned want_stale)
{
	struct emul_snap before = emul_snap_take();
	u64 stale_uses = emul_stale_uses();
	unsigned stale;
	struct mm *mm = model_mm_new(t, nr);

	KASSERT(t, mm != NULL);
	stale = model_unmap_and_reread(t, mm, nr, ops);
	ktest_log(t, "%s, %u pages: stale reads: %u of %u", ops->d.name, nr, stale, nr * READERS);
	KEXPECT_EQ(t, stale, want_stale);
	KEXPECT_EQ(t, emul_stale_uses() - stale_uses, want_stale);
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	before.stale += want_stale;
	emul_snap_expect(t, before);
}

/*
 * Both sides of the ceiling, and a gather that grew past its own array
 * into a batch page; the control's stale reads are exact only while the
 * readers' TLBs (FAKE_TLB_ENTRIES) hold every page.
 */
static const unsigned model_sizes[] = { 1, TLB_FLUSH_CEILING + 1, PT_GATHER_LOCAL + 1 };
BUILD_ASSERT(PT_GATHER_LOCAL + 1 <= FAKE_TLB_ENTRIES);

/* The control leaves every reader's entries: the model keeps them, and reports each use. */
static void test_tlb_model_control_stale(struct ktest *t)
{
	for (unsigned s = 0; s < ARRAY_SIZE(model_sizes); s++)
		model_check(t, &tlb_ops_no_remote, model_sizes[s], model_sizes[s] * READERS);
}

/*
 * Every design of the table but the control leaves no stale entry in use
 * (past the gather's bound: test_tlb_model_free_order; a reread there
 * would need more frames than the host's memory holds).
 */
static void test_tlb_model_designs(struct ktest *t)
{
	for (const struct design *const *d = tlb_designs; *d; d++)
		for (unsigned s = 0; s < ARRAY_SIZE(model_sizes) && !(*d)->control; s++)
			model_check(t, tlb_ops_of(*d), model_sizes[s], 0);
}

/* Counter @c summed over every fake CPU. */
static u64 model_count(const struct pcpu_counter *c)
{
	u64 n = 0;

	for (unsigned cpu = 0; cpu < EMUL_FAKE_CPUS; cpu++)
		n += percpu_counter_read(cpu, c);
	return n;
}

/*
 * One unmap of @nr pages through @ops keeps each promise of its design that
 * the host can count: not the per-target ones (the host's smp_call() sends
 * no IPI, so none is counted), which the kernel's tlb suites and the
 * benchmark's verify hold. A counter a design defines in its own file (the
 * example's) is checked here like the shared ones.
 */
static void model_check_promises(struct ktest *t, const struct tlb_ops *ops, unsigned nr)
{
	static u64 before[PCPU_COUNTER_SLOTS];
	const struct design_promise *p;
	struct mm *mm = model_mm_new(t, nr);

	KASSERT(t, mm != NULL);
	for (unsigned k = 0; k < pcpu_counter_count(); k++)
		before[k] = model_count(pcpu_counter_at(k));
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, nr, ops), 0);
	design_for_each_promise(p, &ops->d) {
		u64 got = model_count(p->counter) - before[pcpu_counter_index(p->counter)];

		if (p->per_target)
			continue;
		if (!KEXPECT(t, design_kept(p, got, 1, nr, READERS)))
			ktest_log(t, "%s, %u pages: %lu %s, promised %s%u per %u", ops->d.name, nr,
				  (unsigned long)got, percpu_counter_name(p->counter),
				  p->at_most ? "at most " : "", p->count, p->per);
	}
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Every design that completes in the call keeps its promises, at every size. */
static void test_tlb_model_promises(struct ktest *t)
{
	for (const struct design *const *d = tlb_designs; *d; d++) {
		if ((*d)->control || (*d)->completes_later)
			continue;
		for (unsigned s = 0; s < ARRAY_SIZE(model_sizes); s++)
			model_check_promises(t, tlb_ops_of(*d), model_sizes[s]);
	}
}

/*
 * Every design unmaps a range with one walk of the page tables from the
 * root, however it flushes (naive: a round per page inside that walk).
 * Before the walk was shared, tlb_unmap_pages() walked once per page.
 */
static void test_tlb_model_one_walk(struct ktest *t)
{
	enum { NR = PT_GATHER_LOCAL + 1 };

	for (const struct design *const *d = tlb_designs; *d; d++) {
		struct mm *mm = model_mm_new(t, NR);
		u64 w;

		KASSERT(t, mm != NULL);
		w = pt_debug_root_walks;
		KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, NR, tlb_ops_of(*d)), 0);
		if (!KEXPECT_EQ(t, pt_debug_root_walks - w, 1))
			ktest_log(t, "%s: %lu walks", (*d)->name,
				  (unsigned long)(pt_debug_root_walks - w));
		KEXPECT_EQ(t, pt_lookup(mm->root, model_va(NR - 1), NULL, NULL, NULL), -ENOENT);
		model_all_cpus_away();
		KEXPECT_EQ(t, mm_destroy(mm), 0);
	}
}

/* The model itself: an entry stays until its CPU flushes it (INVLPG of its page, or all). */
static void test_tlb_model_invlpg(struct ktest *t)
{
	struct mm *mm = model_mm_new(t, 2);
	u64 stale_uses = emul_stale_uses(), v;

	KASSERT(t, mm != NULL);
	/* Unmapped behind the readers' backs: only CPU 0 flushes. */
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, 2, &tlb_ops_no_remote), 0);
	fake_arch_set_cpu(1);
	arch_tlb_flush_one(model_va(1));
	KEXPECT_EQ(t, emul_read(t, mm, model_va(1)), 0); /* flushed: faults, demand-zero */
	KEXPECT_EQ(t, emul_touch(mm, model_va(0), false, &v), 0); /* not flushed: stale */
	KEXPECT_EQ(t, emul_stale_uses() - stale_uses, 1);
	fake_arch_set_cpu(2);
	arch_tlb_flush_all();
	KEXPECT_EQ(t, emul_read(t, mm, model_va(0)), 0);
	fake_arch_set_cpu(3);
	KEXPECT_EQ(t, emul_touch(mm, model_va(0), false, &v), 0); /* not flushed: stale */
	KEXPECT_EQ(t, emul_stale_uses() - stale_uses, 2);
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

static void model_flush(struct pt_gather *g)
{
	mm_flush_range(g->arg, g->start, g->last);
}

/* The designs free a frame only after the flush; freeing first is what the model flags. */
static void test_tlb_model_free_order(struct ktest *t)
{
	u64 early = fake_tlb_early_frees(NULL);
	struct pt_gather g;
	struct page *p;
	struct mm *mm;

	for (const struct design *const *d = tlb_designs; *d; d++) {
		if ((*d)->control)
			continue;
		mm = model_mm_new(t, PT_GATHER_PAGES + 1);
		KASSERT(t, mm != NULL);
		KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, PT_GATHER_PAGES + 1, tlb_ops_of(*d)), 0);
		KEXPECT_EQ(t, fake_tlb_early_frees(NULL) - early, 0);
		model_all_cpus_away();
		KEXPECT_EQ(t, mm_destroy(mm), 0);
	}
	/* The wrong order by hand: the only reference dropped, then the flush. */
	early = fake_tlb_early_frees(NULL);
	mm = model_mm_new(t, 1);
	KASSERT(t, mm != NULL);
	p = emul_page_at(mm, REG, NULL);
	pt_gather_init(&g, model_flush, mm);
	write_lock(&mm->lock);
	KEXPECT_EQ(t, pt_unmap(mm->root, REG, PAGE_SIZE, &g), 0);
	mm_page_drop(p);
	pt_gather_finish(&g);
	write_unlock(&mm->lock);
	/* CPU 0 wrote it, the readers read it: every CPU flushed a freed frame. */
	KEXPECT_EQ(t, fake_tlb_early_frees(NULL) - early, EMUL_FAKE_CPUS);
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * Lazy: reader 1 switched to another address space before the unmap, so no
 * IPI reaches it; switching back must flush its ASID (the tlb_gen check of
 * mm_switch()), while a root load without that flush keeps the old entry.
 */
static void test_tlb_model_lazy(struct ktest *t)
{
	struct mm *mm = model_mm_new(t, 1), *other;
	u64 stale_uses = emul_stale_uses();
	struct fake_tlb_hit hit;
	u16 asid;

	KASSERT(t, mm != NULL);
	KASSERT_EQ(t, mm_create(&other), 0);
	fake_arch_set_cpu(1);
	mm_switch(NULL); /* and back, to learn its ASID; nothing changed, its entries stay */
	mm_switch(mm);
	asid = fake_loaded_asid;
	mm_switch(other);
	fake_arch_set_cpu(0);
	fake_arch_reset_counts();
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, 1, &tlb_ops_batched), 0);
	KEXPECT_EQ(t, fake_ipi_calls, READERS - 1); /* readers 2 and 3, not the one away */
	fake_arch_set_cpu(1);
	mm_switch(mm);
	KEXPECT_EQ(t, fake_load_flushed, true);
	KEXPECT_EQ(t, emul_read(t, mm, model_va(0)), 0);
	/* The same return without the flush: the model must keep the entry. */
	emul_write(t, mm, model_va(0), 5);
	mm_switch(other);
	fake_arch_set_cpu(0);
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, 1, &tlb_ops_batched), 0);
	fake_arch_set_cpu(1);
	arch_load_root(mm->root, asid, false);
	KEXPECT(t, fake_tlb_lookup(1, model_va(0), &hit));
	mm_switch(NULL); /* mm_switch() still believes @other is loaded: it is what it leaves */
	KEXPECT_EQ(t, emul_stale_uses(), stale_uses);
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(other), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Every reader's tick once (the fake timer fires only when told): each drains its lazy queue. */
static void model_readers_tick(struct ktest *t)
{
	for (unsigned cpu = 1; cpu <= READERS; cpu++) {
		fake_arch_set_cpu(cpu);
		KEXPECT(t, fake_tick());
	}
	fake_arch_set_cpu(0);
}

/*
 * The lazy design with its tick on: no IPI; until a reader ticks it still
 * translates the unmapped range to the old frame (the window the design
 * trades), so the frames must not be freed yet (the design holds one
 * reference each); after every tick, tlb_settle() releases them, readers
 * fault to demand-zero pages, and no frame was freed under an entry.
 */
static void test_tlb_model_lazy_queue(struct ktest *t)
{
	enum { NR = TLB_FLUSH_CEILING + 1 };
	struct page *old[NR];
	u64 early = fake_tlb_early_frees(NULL), stale_uses;
	struct mm *mm = model_mm_new(t, NR);
	u64 v = 0;

	KASSERT(t, mm != NULL);
	/* The host has no online mask of its own: enable and settle walk these CPUs. */
	cpumask_set_first_n(&cpu_online_mask, EMUL_FAKE_CPUS);
	KASSERT_EQ(t, tlb_design_enable(&tlb_ops_lazy, true), 0);
	for (unsigned i = 0; i < NR; i++) {
		old[i] = emul_page_at(mm, model_va(i), NULL);
		page_ref_inc(old[i]);
	}
	fake_arch_reset_counts();
	KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, NR, &tlb_ops_lazy), 0);
	KEXPECT_EQ(t, fake_ipi_calls, 0);
	for (unsigned i = 0; i < NR; i++)
		KEXPECT_EQ(t, page_ref_count(old[i]), 2); /* ours and the deferred mapping's */
	stale_uses = emul_stale_uses();
	fake_arch_set_cpu(1);
	KEXPECT_EQ(t, emul_touch(mm, model_va(0), false, &v), 0);
	KEXPECT_EQ(t, v, 1000); /* the window: the old frame, still not reused */
	KEXPECT_EQ(t, emul_stale_uses() - stale_uses, 1);
	fake_arch_set_cpu(0);
	model_readers_tick(t);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, mm), 0);
	for (unsigned i = 0; i < NR; i++) {
		KEXPECT_EQ(t, page_ref_count(old[i]), 1); /* the design let go of it */
		if (page_ref_dec_and_test(old[i]))
			page_free(old[i], 0);
	}
	model_readers_touch_zero(t, mm, NR);
	KEXPECT_EQ(t, emul_stale_uses() - stale_uses, 1);
	KEXPECT_EQ(t, fake_tlb_early_frees(NULL) - early, 0);
	KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_lazy, false), 0);
	cpumask_clear(&cpu_online_mask);
	model_all_cpus_away();
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * ASID reuse: reader 1 runs @first, then MM_ASID_SLOTS other address
 * spaces mapping the same address to their own frames, so one of them
 * gets @first's ASID. Each must read its own page, never @first's.
 */
static void test_tlb_model_asid_reuse(struct ktest *t)
{
	struct mm *first = model_mm_new(t, 1), *more[MM_ASID_SLOTS];
	u64 stale_uses = emul_stale_uses();
	u16 first_asid;
	bool reused = false;

	KASSERT(t, first != NULL);
	fake_arch_set_cpu(1);
	mm_switch(NULL); /* and back, to learn its ASID */
	mm_switch(first);
	first_asid = fake_loaded_asid;
	for (unsigned i = 0; i < MM_ASID_SLOTS; i++) {
		fake_arch_set_cpu(0);
		KASSERT_EQ(t, mm_create(&more[i]), 0);
		KEXPECT_EQ(t, mm_map_region(more[i], REG, PAGE_SIZE, RW), 0);
		emul_write(t, more[i], model_va(0), 2000 + i);
		fake_arch_set_cpu(1);
		mm_switch(more[i]);
		reused |= fake_loaded_asid == first_asid;
		KEXPECT_EQ(t, emul_read(t, more[i], model_va(0)), 2000 + i);
	}
	KEXPECT(t, reused);
	KEXPECT_EQ(t, emul_stale_uses(), stale_uses);
	model_all_cpus_away();
	for (unsigned i = 0; i < MM_ASID_SLOTS; i++)
		KEXPECT_EQ(t, mm_destroy(more[i]), 0);
	KEXPECT_EQ(t, mm_destroy(first), 0);
}
static const struct ktest_case tlb_model_cases[] = {
	KTEST_CASE(test_tlb_model_control_stale),
	KTEST_CASE(test_tlb_model_designs),
	KTEST_CASE(test_tlb_model_promises),
	KTEST_CASE(test_tlb_model_one_walk),
	KTEST_CASE(test_tlb_model_invlpg),
	KTEST_CASE(test_tlb_model_free_order),
	KTEST_CASE(test_tlb_model_lazy),
	KTEST_CASE(test_tlb_model_lazy_queue),
	KTEST_CASE(test_tlb_model_asid_reuse),
};
KTEST_SUITE_EXT(tlb_model, tlb_model_cases, emul_suite_init, NULL, NULL);
