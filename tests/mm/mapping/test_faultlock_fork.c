/*
 * Self-test of the faultlock benchmark's writer (fork) against faults, once
 * per fault-lock design: while every other CPU takes copy-on-write faults on
 * regions attached to one mapping, this CPU forks, checks and destroys
 * children attached to it too, so attachment slots are reused under the
 * faults. Then: no wrong value, lock counts as the design promises, the
 * parent's pages and attachments back as they were. Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/ktest_smp.h"
#include <arch/arch.h>

#define FF_SHARE 0x40000000ul			    /* shareable region: 2 MiB */
#define FF_PRIV (FF_SHARE + MAPPING_SHARE_ALIGN) /* private, attached */
#define FF_PAGES 8				    /* pages of each region touched */
#define FF_FORKS 50
#define FF_MAX_READERS 8
#define FF_TIMEOUT_MS 120000

static struct mm_mapping ff_mapping;

static struct ff_race {
	struct mm *mm[FF_MAX_READERS];
	u32 started, done, stop, nreaders;
	u32 bad;	  /* a page read back neither what was written nor the last value */
	u64 share_faults; /* faults the readers took on the shareable region */
	u64 priv_faults;
} ff;

static int ff_init(struct ktest *t)
{
	mapping_init(&ff_mapping, "ff_mapping", fault_lock_ops_of(ktest_design(t)));
	return 0;
}

/* An mm with FF_PAGES populated pages in a shareable and a private region, both attached. */
static int ff_mm_create(struct mm **out)
{
	int err = mm_create(out);

	if (!err)
		err = mm_map_region(*out, FF_SHARE, MAPPING_SHARE_ALIGN, MM_READ | MM_WRITE |
				    MM_PT_SHAREABLE);
	if (!err)
		err = mm_map_region(*out, FF_PRIV, MAPPING_SHARE_ALIGN, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(*out, FF_SHARE, FF_PAGES * KB4);
	if (!err)
		err = mm_populate(*out, FF_PRIV, FF_PAGES * KB4);
	if (!err)
		err = mapping_attach(&ff_mapping, *out, FF_SHARE);
	return err ? err : mapping_attach(&ff_mapping, *out, FF_PRIV);
}

static void ff_mm_destroy(struct ktest *t, struct mm *mm)
{
	KEXPECT_EQ(t, mapping_detach(&ff_mapping, mm, FF_SHARE), 0);
	KEXPECT_EQ(t, mapping_detach(&ff_mapping, mm, FF_PRIV), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Writes @value to each page of the region at @base (one write-protect fault each). */
static u64 ff_write_pass(vaddr_t base, u64 value, u64 last)
{
	u64 f0 = percpu_counter_read(arch_cpu_id(), PCPU_PAGE_FAULTS);

	for (unsigned i = 0; i < FF_PAGES; i++) {
		volatile u64 *w = (volatile u64 *)(base + i * KB4);

		if (*w != last)
			atomic_fetch_add(&ff.bad, 1);
		*w = value;
		if (*w != value)
			atomic_fetch_add(&ff.bad, 1);
	}
	return percpu_counter_read(arch_cpu_id(), PCPU_PAGE_FAULTS) - f0;
}

/* On another CPU: rounds of write-protect, then a write pass over both regions. */
static void ff_reader(void *arg)
{
	unsigned slot = (unsigned)(uintptr_t)arg;
	struct mm *mm = ff.mm[slot];
	u64 sf = 0, pf = 0, last = 0;

	mm_switch(mm);
	atomic_fetch_add(&ff.started, 1);
	for (u64 round = 1; round < 3 || !atomic_load_acquire(&ff.stop); round++) {
		u64 value = (u64)slot << 32 | round;

		if (mm_cow_protect(mm, FF_SHARE, 2 * MAPPING_SHARE_ALIGN))
			atomic_fetch_add(&ff.bad, 1);
		sf += ff_write_pass(FF_SHARE, value, last);
		pf += ff_write_pass(FF_PRIV, value, last);
		last = value;
	}
	mm_switch(NULL);
	atomic_fetch_add(&ff.share_faults, sf);
	atomic_fetch_add(&ff.priv_faults, pf);
	atomic_fetch_add(&ff.done, 1);
}

/* One fork of @parent: the child shares the parent's frames, attached; then it goes. */
static void ff_fork_once(struct ktest *t, struct mm *parent)
{
	struct mm *child;
	paddr_t pa, pa2;

	if (!KEXPECT_EQ(t, mm_fork(parent, &child), 0))
		return;
	KEXPECT_EQ(t, pt_lookup(parent->root, FF_SHARE, &pa, NULL, NULL), 0);
	KEXPECT_EQ(t, pt_lookup(child->root, FF_SHARE, &pa2, NULL, NULL), 0);
	KEXPECT_EQ(t, pa, pa2);
	ff_mm_destroy(t, child);
}

/* The parent's pages each mapped once with no other reference; only live regions attached. */
static void ff_check_end(struct ktest *t, struct mm *parent)
{
	unsigned attached = 0;

	for (unsigned i = 0; i < ff_mapping.nattach; i++)
		attached += ff_mapping.attach[i].mm != NULL;
	KEXPECT_EQ(t, attached, 2 * (ff.nreaders + 1));
	for (unsigned i = 0; i < FF_PAGES; i++) {
		paddr_t pa = 0;

		KEXPECT_EQ(t, pt_lookup(parent->root, FF_SHARE + i * KB4, &pa, NULL, NULL), 0);
		KEXPECT_EQ(t, page_ref_count(phys_to_page(pa)), 1);
		KEXPECT_EQ(t, page_mapcount(phys_to_page(pa)), 1);
	}
}

/* Starts a reader on every other online CPU (at most FF_MAX_READERS), each in a new mm. */
static void ff_start_readers(struct ktest *t)
{
	unsigned cpu, self = arch_cpu_id();

	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == self || ff.nreaders == FF_MAX_READERS)
			continue;
		if (!KEXPECT_EQ(t, ff_mm_create(&ff.mm[ff.nreaders]), 0))
			return;
		if (!smp_run_async(cpu, ff_reader, (void *)(uintptr_t)ff.nreaders))
			ff.nreaders++;
		else /* that CPU is busy: no reader there */
			ff_mm_destroy(t, ff.mm[ff.nreaders]);
	}
}

static void test_faultlock_fork_races_faults(struct ktest *t)
{
	const struct design_promise *p = design_promise(ktest_design(t), PCPU_MAPPING_LOCKS);
	bool naive = p && p->count > 0, vma = p && p->count == 0;
	u64 l0 = percpu_counter_sum(PCPU_MAPPING_LOCKS), v0 = percpu_counter_sum(PCPU_VMA_LOCKS);
	struct mm *parent;

	if (!ktest_need_second_cpu(t))
		return;
	ff = (struct ff_race){ 0 };
	KASSERT_EQ(t, ff_mm_create(&parent), 0);
	ff_start_readers(t);
	KASSERT(t, ff.nreaders > 0 && ktest_wait_count(&ff.started, ff.nreaders, FF_TIMEOUT_MS));
	for (unsigned i = 0; i < FF_FORKS; i++)
		ff_fork_once(t, parent);
	atomic_store_release(&ff.stop, 1);
	KASSERT(t, ktest_wait_count(&ff.done, ff.nreaders, FF_TIMEOUT_MS));
	ktest_log(t, "%u readers, %u forks, %lu shareable and %lu private faults", ff.nreaders,
		  FF_FORKS, (unsigned long)ff.share_faults, (unsigned long)ff.priv_faults);
	KEXPECT_EQ(t, ff.bad, 0);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_MAPPING_LOCKS) - l0,
		   (vma ? 0 : ff.share_faults) + (naive ? ff.priv_faults : 0));
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_VMA_LOCKS) - v0, vma ? ff.share_faults : 0);
	KEXPECT_GE(t, ff.share_faults, 2ull * ff.nreaders * FF_PAGES);
	ff_check_end(t, parent);
	for (unsigned i = 0; i < ff.nreaders; i++)
		ff_mm_destroy(t, ff.mm[i]);
	ff_mm_destroy(t, parent);
}

static const struct ktest_case faultlock_fork_cases[] = {
	KTEST_CASE(test_faultlock_fork_races_faults),
};
KTEST_SUITE_DESIGNS(faultlock_fork, faultlock_fork_cases, ff_init, NULL, fault_lock_designs);
