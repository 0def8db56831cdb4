/*
 * Self-tests of the fault path's mapping lock (mm/mapping/mapping.h), once per
 * design: attach checks, the writer's zap, lock counts exactly as each design
 * promises, a fault waiting for the writer on the lock its design names only,
 * and faults and mm_populate() on every other CPU racing the writer without a
 * torn mapping or a wrong table count. Faults are real #PFs; other CPUs work
 * through smp_run_async() (interrupts on). Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/ktest_smp.h"
#include <arch/arch.h>
#include <arch/pte.h>

#define RW (MM_READ | MM_WRITE)
#define SHARE_BASE 0x40000000ul                       /* shareable region: 2 MiB */
#define PRIV_BASE (SHARE_BASE + MAPPING_SHARE_ALIGN)   /* private, attached */
#define PLAIN_BASE (PRIV_BASE + MAPPING_SHARE_ALIGN)   /* private, not attached */
#define COUNT_PAGES 16
#define READER_PAGES 8 /* shareable pages each racing reader owns */
#define MAX_READERS (MAPPING_SHARE_ALIGN / KB4 / READER_PAGES)
#define RACE_ZAPS 100
#define POP_ZAPS 1000 /* populate race: zaps are cheap with no CPU to flush */
#define RACE_TIMEOUT_MS 120000
#define LAST_WORD (KB4 / sizeof(u64) - 1)

static struct mm_mapping fl_mapping;

static volatile u64 *word(vaddr_t va)
{
	return (volatile u64 *)va;
}

static u64 my_count(const struct pcpu_counter *c)
{
	return percpu_counter_read(arch_cpu_id(), c);
}

/* Whether the design promises a mapping lock on every fault (naive does). */
static bool locks_every_fault(struct ktest *t)
{
	const struct design_promise *p = design_promise(ktest_design(t), PCPU_MAPPING_LOCKS);

	return p && p->count > 0;
}

/*
 * Whether shareable regions' faults take the region's own vma_lock: the
 * design promises no mapping lock ever (vma_lock does).
 */
static bool locks_per_region(struct ktest *t)
{
	const struct design_promise *p = design_promise(ktest_design(t), PCPU_MAPPING_LOCKS);

	return p && p->count == 0;
}

static int faultlock_init(struct ktest *t)
{
	mapping_init(&fl_mapping, "fl_mapping", fault_lock_ops_of(ktest_design(t)));
	return 0;
}

/* An mm with a shareable and a private region attached, and a plain one. */
static int fl_mm_create(struct mm **out)
{
	int err = mm_create(out);

	if (!err)
		err = mm_map_region(*out, SHARE_BASE, MAPPING_SHARE_ALIGN, RW | MM_PT_SHAREABLE);
	if (!err)
		err = mm_map_region(*out, PRIV_BASE, MAPPING_SHARE_ALIGN, RW);
	if (!err)
		err = mm_map_region(*out, PLAIN_BASE, MAPPING_SHARE_ALIGN, RW);
	if (!err)
		err = mapping_attach(&fl_mapping, *out, SHARE_BASE);
	if (!err)
		err = mapping_attach(&fl_mapping, *out, PRIV_BASE);
	return err;
}

static void fl_mm_destroy(struct ktest *t, struct mm *mm)
{
	KEXPECT_EQ(t, mapping_detach(&fl_mapping, mm, SHARE_BASE), 0);
	KEXPECT_EQ(t, mapping_detach(&fl_mapping, mm, PRIV_BASE), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

static void test_faultlock_attach_checks(struct ktest *t)
{
	struct mm *mm;

	KASSERT_EQ(t, fl_mm_create(&mm), 0);
	KEXPECT_EQ(t, mapping_attach(&fl_mapping, mm, SHARE_BASE), -EBUSY);
	KEXPECT_EQ(t, mapping_attach(&fl_mapping, mm, SHARE_BASE + KB4), -EINVAL);
	KEXPECT_EQ(t, mm_map_region(mm, 0x80000000ul, KB4, RW | MM_PT_SHAREABLE), 0);
	KEXPECT_EQ(t, mapping_attach(&fl_mapping, mm, 0x80000000ul), -EINVAL); /* misaligned */
	KEXPECT_EQ(t, mapping_detach(&fl_mapping, mm, PLAIN_BASE), -ENOENT);
	KEXPECT_EQ(t, fl_mapping.nattach, 2);
	fl_mm_destroy(t, mm);
	KEXPECT_EQ(t, fl_mapping.nattach, 0);
}

/* Writes @n pages from @base; returns the faults, mapping locks and vma locks they took. */
static void fl_touch(vaddr_t base, unsigned n, u64 *faults, u64 *locks, u64 *vlocks)
{
	u64 f0 = my_count(PCPU_PAGE_FAULTS), l0 = my_count(PCPU_MAPPING_LOCKS);
	u64 v0 = my_count(PCPU_VMA_LOCKS);

	for (unsigned i = 0; i < n; i++)
		*word(base + i * KB4) = 0xf100 + i;
	*faults = my_count(PCPU_PAGE_FAULTS) - f0;
	*locks = my_count(PCPU_MAPPING_LOCKS) - l0;
	*vlocks = my_count(PCPU_VMA_LOCKS) - v0;
}

/* One demand-zero pass and one copy-on-write pass over each region. */
static void test_faultlock_counts(struct ktest *t)
{
	static const vaddr_t bases[] = { SHARE_BASE, PRIV_BASE, PLAIN_BASE };
	bool naive = locks_every_fault(t), vma = locks_per_region(t);
	const u64 want[] = { vma ? 0 : COUNT_PAGES, naive ? COUNT_PAGES : 0, 0 };
	const u64 want_vma[] = { vma ? COUNT_PAGES : 0, 0, 0 };
	struct mm *mm;
	u64 faults, locks, vlocks;

	KASSERT_EQ(t, fl_mm_create(&mm), 0);
	mm_switch(mm);
	for (unsigned pass = 0; pass < 2; pass++) {
		if (pass)
			KEXPECT_EQ(t, mm_cow_protect(mm, SHARE_BASE, 3 * MAPPING_SHARE_ALIGN), 0);
		for (unsigned i = 0; i < ARRAY_SIZE(bases); i++) {
			fl_touch(bases[i], COUNT_PAGES, &faults, &locks, &vlocks);
			KEXPECT_EQ(t, faults, COUNT_PAGES);
			KEXPECT_EQ(t, locks, want[i]);
			KEXPECT_EQ(t, vlocks, want_vma[i]);
		}
	}
	mm_switch(NULL);
	fl_mm_destroy(t, mm);
}

/* The writer unmaps the attached regions' pages: they read zero again. */
static void test_faultlock_zap(struct ktest *t)
{
	struct pmm_stats before, after;
	struct mm *mm;

	pmm_stats_get(&before);
	KASSERT_EQ(t, fl_mm_create(&mm), 0);
	mm_switch(mm);
	for (unsigned i = 0; i < COUNT_PAGES; i++) {
		*word(SHARE_BASE + i * KB4) = 1;
		*word(PRIV_BASE + i * KB4) = 2;
		*word(PLAIN_BASE + i * KB4) = 3;
	}
	KEXPECT_EQ(t, mapping_zap(&fl_mapping, NULL), 0);
	KEXPECT_EQ(t, pt_lookup(mm->root, SHARE_BASE, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, pt_lookup(mm->root, PRIV_BASE, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, *word(SHARE_BASE), 0);
	KEXPECT_EQ(t, *word(PRIV_BASE), 0);
	KEXPECT_EQ(t, *word(PLAIN_BASE), 3);
	mm_switch(NULL);
	fl_mm_destroy(t, mm);
	pmm_stats_get(&after);
	KEXPECT_EQ(t, after.allocated, before.allocated);
	KEXPECT_EQ(t, after.errors, before.errors);
}

/* which lock a fault waits on */

struct fl_waiter {
	struct mm *mm;
	vaddr_t va;
	u32 done;
};

/* On another CPU: one write fault on w->va in w->mm, then done. */
static void fl_waiter_cpu(void *arg)
{
	struct fl_waiter *w = arg;

	mm_switch(w->mm);
	*word(w->va) = 0xfa17;
	mm_switch(NULL);
	atomic_store_release(&w->done, 1);
}

/* Waits up to @ms milliseconds for @w's fault; whether it finished. */
static bool fl_waiter_wait(struct fl_waiter *w, u64 ms)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * ms;

	while (!atomic_load_acquire(&w->done)) {
		if (arch_tsc_read() > deadline)
			return false;
		arch_cpu_relax();
	}
	return true;
}

/*
 * A fault on @va of @mm on CPU @cpu while this CPU holds the write side of
 * @l, as the writer would: returns whether it completed within @ms (it
 * always completes once @l is dropped).
 */
static bool fl_fault_passes(struct ktest *t, unsigned cpu, struct mm *mm, vaddr_t va, rwlock_t *l,
			    u64 ms)
{
	static struct fl_waiter w;
	bool passed;

	w = (struct fl_waiter){ mm, va, 0 };
	write_lock(l);
	if (!KEXPECT_EQ(t, smp_run_async(cpu, fl_waiter_cpu, &w), 0)) {
		write_unlock(l);
		return false;
	}
	passed = fl_waiter_wait(&w, ms);
	write_unlock(l);
	KEXPECT(t, fl_waiter_wait(&w, RACE_TIMEOUT_MS));
	return passed;
}

/*
 * A fault on a shareable region waits for a writer on exactly the lock the
 * design names (the mapping's for naive and fixed, the region's own
 * vma_lock for vma_lock) and goes past one holding the other: under
 * vma_lock, a writer of the mapping alone no longer stalls faults.
 */
static void test_faultlock_fault_waits_for_its_lock(struct ktest *t)
{
	const struct mm_region *r;
	rwlock_t *own, *other;
	unsigned cpu;
	struct mm *mm;

	if (!ktest_need_second_cpu(t))
		return;
	cpu = ktest_other_cpu();
	KASSERT_EQ(t, fl_mm_create(&mm), 0);
	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, SHARE_BASE); /* stays put: no region changes below */
	read_unlock(&mm->lock);
	KASSERT(t, r != NULL && r->mapping == &fl_mapping);
	own = &fl_mapping.lock;
	other = &fl_mapping.vma_lock[r->attach_slot].lock;
	if (locks_per_region(t)) {
		other = own;
		own = &fl_mapping.vma_lock[r->attach_slot].lock;
	}
	KEXPECT(t, !fl_fault_passes(t, cpu, mm, SHARE_BASE, own, 100));
	KEXPECT(t, fl_fault_passes(t, cpu, mm, SHARE_BASE + KB4, other, RACE_TIMEOUT_MS));
	for (unsigned i = 0; i < 2; i++) {
		paddr_t pa = 0;

		/* Both faults went through: each page is mapped and holds what was written. */
		KEXPECT_EQ(t, pt_lookup(mm->root, SHARE_BASE + i * KB4, &pa, NULL, NULL), 0);
		KEXPECT_EQ(t, *(volatile u64 *)phys_to_virt(pa), 0xfa17);
	}
	fl_mm_destroy(t, mm);
}

/* On another CPU: the writer zaps w->mm's attached regions, then done. */
static void fl_zapper_cpu(void *arg)
{
	struct fl_waiter *w = arg;

	if (mapping_zap(&fl_mapping, w->mm))
		atomic_store_release(&w->va, 1); /* va: the error flag here */
	atomic_store_release(&w->done, 1);
}

/*
 * The other direction: while a fault holds its design's lock on the
 * shareable region (this CPU takes the read side as the fault path does,
 * inside mm->lock's read side), the writer zapping the mm's attached
 * regions on another CPU leaves the page the fault is resolving mapped;
 * it unmaps it once the fault is done. (The writer then also waits for
 * mm->lock's write side, for the private region: held here too.)
 */
static void test_faultlock_writer_waits_for_faults(struct ktest *t)
{
	static struct fl_waiter w;
	const struct mm_region *r;
	rwlock_t *held;
	unsigned cpu;
	struct mm *mm;
	int mapped;

	if (!ktest_need_second_cpu(t))
		return;
	cpu = ktest_other_cpu();
	KASSERT_EQ(t, fl_mm_create(&mm), 0);
	KASSERT_EQ(t, mm_populate(mm, SHARE_BASE, KB4), 0);
	w = (struct fl_waiter){ mm, 0, 0 };
	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, SHARE_BASE);
	held = mapping_fault_lock(r);
	KEXPECT(t, held != NULL); /* every design locks a shareable region's faults */
	KEXPECT_EQ(t, smp_run_async(cpu, fl_zapper_cpu, &w), 0);
	fl_waiter_wait(&w, 500); /* never done: the private region waits for mm->lock */
	mapped = pt_lookup(mm->root, SHARE_BASE, NULL, NULL, NULL);
	mapping_fault_done(r, held);
	read_unlock(&mm->lock);
	KEXPECT_EQ(t, mapped, 0);
	KASSERT(t, fl_waiter_wait(&w, RACE_TIMEOUT_MS));
	KEXPECT_EQ(t, w.va, 0);
	KEXPECT_EQ(t, pt_lookup(mm->root, SHARE_BASE, NULL, NULL, NULL), -ENOENT);
	fl_mm_destroy(t, mm);
}

/* the race: readers fault, the writer zaps */

struct fl_race {
	struct mm *mm;
	u32 started, done, stop, nreaders;
	u32 bad;	  /* contents neither the pattern written nor zero */
	u64 share_faults; /* faults the readers took on the shareable region */
	u64 priv_faults;  /* ... on the private attached region */
};

static struct fl_race race;

static u64 fl_pattern(unsigned slot, u32 round, unsigned j)
{
	return 0xfa00000000000000ull | (u64)slot << 40 | (u64)round << 16 | j;
}

/* One page: what it holds is the last pattern or zero; what is written reads back, or zero. */
static void fl_check_page(vaddr_t va, u64 *last, u64 pattern)
{
	u64 v = *word(va);

	if (v != 0 && v != *last)
		atomic_fetch_add(&race.bad, 1);
	*word(va) = pattern;
	*word(va + LAST_WORD * 8) = pattern;
	v = *word(va);
	if (v != 0 && v != pattern)
		atomic_fetch_add(&race.bad, 1);
	v = *word(va + LAST_WORD * 8);
	if (v != 0 && v != pattern)
		atomic_fetch_add(&race.bad, 1);
	*last = pattern;
}

/* One round over the reader's pages; adds the faults taken on each region. */
static void fl_reader_round(unsigned slot, u32 round, u64 *last, u64 *sf, u64 *pf)
{
	vaddr_t share = SHARE_BASE + (vaddr_t)slot * READER_PAGES * KB4;
	u64 f0;

	for (unsigned j = 0; j < READER_PAGES; j++) {
		f0 = my_count(PCPU_PAGE_FAULTS);
		fl_check_page(share + j * KB4, &last[j], fl_pattern(slot, round, j));
		*sf += my_count(PCPU_PAGE_FAULTS) - f0;
	}
	f0 = my_count(PCPU_PAGE_FAULTS);
	fl_check_page(PRIV_BASE + slot * KB4, &last[READER_PAGES], fl_pattern(slot, round, 99));
	*pf += my_count(PCPU_PAGE_FAULTS) - f0;
}

static void fl_reader(void *arg)
{
	unsigned slot = (unsigned)(uintptr_t)arg;
	u64 last[READER_PAGES + 1] = { 0 }, sf = 0, pf = 0;

	mm_switch(race.mm);
	atomic_fetch_add(&race.started, 1);
	for (u32 round = 1; round < 3 || !atomic_load_acquire(&race.stop); round++)
		fl_reader_round(slot, round, last, &sf, &pf);
	mm_switch(NULL);
	atomic_fetch_add(&race.share_faults, sf);
	atomic_fetch_add(&race.priv_faults, pf);
	atomic_fetch_add(&race.done, 1);
}

/* Starts a reader on every other online CPU (at most MAX_READERS). */
static void fl_start_readers(void)
{
	unsigned cpu, self = arch_cpu_id();

	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == self || race.nreaders == MAX_READERS)
			continue;
		if (!smp_run_async(cpu, fl_reader, (void *)(uintptr_t)race.nreaders))
			race.nreaders++;
	}
}

/* Every present leaf maps an allocated frame that holds a mapping's count. */
static int fl_leaf_check(void *arg, const struct pt_leaf *leaf)
{
	struct page *p;

	(void)arg;
	if (leaf->swp || leaf->size != KB4 || !pfn_valid(leaf->pa >> PAGE_SHIFT))
		return -EINVAL;
	p = phys_to_page(leaf->pa);
	if (!page_test_flags(p, PG_HEAD) || page_test_flags(p, PG_BUDDY | PG_PCP | PG_FREED))
		return -EINVAL;
	return page_mapcount(p) >= 1 && page_ref_count(p) >= 1 ? 0 : -EINVAL;
}

static void test_faultlock_writer_race(struct ktest *t)
{
	bool naive = locks_every_fault(t), vma = locks_per_region(t);
	u64 l0 = percpu_counter_sum(PCPU_MAPPING_LOCKS), f0 = percpu_counter_sum(PCPU_PAGE_FAULTS);
	u64 v0 = percpu_counter_sum(PCPU_VMA_LOCKS);
	u64 locks, faults, vlocks;
	unsigned zaps = 0;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	race = (struct fl_race){ 0 };
	KASSERT_EQ(t, fl_mm_create(&race.mm), 0);
	fl_start_readers();
	KASSERT(t, race.nreaders > 0 &&
		   ktest_wait_count(&race.started, race.nreaders, RACE_TIMEOUT_MS));
	for (; zaps < RACE_ZAPS; zaps++)
		KEXPECT_EQ(t, mapping_zap(&fl_mapping, NULL), 0);
	atomic_store_release(&race.stop, 1);
	KASSERT(t, ktest_wait_count(&race.done, race.nreaders, RACE_TIMEOUT_MS));
	locks = percpu_counter_sum(PCPU_MAPPING_LOCKS) - l0;
	vlocks = percpu_counter_sum(PCPU_VMA_LOCKS) - v0;
	faults = percpu_counter_sum(PCPU_PAGE_FAULTS) - f0;
	ktest_log(t, "%u readers, %u zaps, %lu faults (%lu shareable), %lu mapping locks, %lu vma locks",
		  race.nreaders, zaps, (unsigned long)faults, (unsigned long)race.share_faults,
		  (unsigned long)locks, (unsigned long)vlocks);
	KEXPECT_EQ(t, race.bad, 0);
	KEXPECT_EQ(t, faults, race.share_faults + race.priv_faults);
	KEXPECT_EQ(t, locks, (vma ? 0 : race.share_faults) + (naive ? race.priv_faults : 0));
	KEXPECT_EQ(t, vlocks, vma ? race.share_faults : 0);
	KEXPECT_GE(t, race.share_faults, race.nreaders * READER_PAGES);
	KEXPECT_EQ(t, pt_walk(race.mm->root, SHARE_BASE, 2 * MAPPING_SHARE_ALIGN, fl_leaf_check,
			      NULL), 0);
	fl_mm_destroy(t, race.mm);
}

/* the race: mm_populate() on other CPUs, the writer zaps */

struct fl_pop {
	struct mm *mm;
	u32 started, done, stop, nworkers;
	u32 errors; /* mm_populate() calls that failed */
	u64 calls;
};

static struct fl_pop pop;

static void fl_populater(void *arg)
{
	vaddr_t base = SHARE_BASE + (vaddr_t)(uintptr_t)arg * READER_PAGES * KB4;
	u64 calls = 0;

	atomic_fetch_add(&pop.started, 1);
	do {
		if (mm_populate(pop.mm, base, READER_PAGES * KB4))
			atomic_fetch_add(&pop.errors, 1);
		calls++;
	} while (calls < 3 || !atomic_load_acquire(&pop.stop));
	atomic_fetch_add(&pop.calls, calls);
	atomic_fetch_add(&pop.done, 1);
}

/*
 * The level-1 table under @va: its entry count must equal the entries
 * present. Returns the entries present, or -1 when the count is wrong.
 */
static int fl_table_check(struct mm *mm, vaddr_t va)
{
	paddr_t tab = mm->root;
	const pte_t *t;
	unsigned n = 0;

	for (int l = PTE_LEVELS; l > 1; l--) {
		pte_t e = ((const pte_t *)phys_to_virt(tab))[PTE_INDEX(va, l)];

		if (!pte_present(e))
			return 0;
		tab = pte_addr(e, l);
	}
	t = phys_to_virt(tab);
	for (unsigned i = 0; i < PTE_PER_TABLE; i++)
		n += t[i] != 0;
	return phys_to_page(tab)->priv == n ? (int)n : -1;
}

static void test_faultlock_populate_race(struct ktest *t)
{
	struct pmm_stats before, after;
	unsigned cpu, self = arch_cpu_id();
	int present;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	pmm_stats_get(&before);
	pop = (struct fl_pop){ 0 };
	KASSERT_EQ(t, fl_mm_create(&pop.mm), 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu != self && pop.nworkers < MAX_READERS &&
		    !smp_run_async(cpu, fl_populater, (void *)(uintptr_t)pop.nworkers))
			pop.nworkers++;
	}
	KASSERT(t, pop.nworkers > 0 &&
		   ktest_wait_count(&pop.started, pop.nworkers, RACE_TIMEOUT_MS));
	for (unsigned zaps = 0; zaps < POP_ZAPS; zaps++)
		KEXPECT_EQ(t, mapping_zap(&fl_mapping, NULL), 0);
	atomic_store_release(&pop.stop, 1);
	KASSERT(t, ktest_wait_count(&pop.done, pop.nworkers, RACE_TIMEOUT_MS));
	present = fl_table_check(pop.mm, SHARE_BASE);
	ktest_log(t, "%u populaters, %lu calls, %d entries left", pop.nworkers,
		  (unsigned long)pop.calls, present);
	KEXPECT_EQ(t, pop.errors, 0);
	KEXPECT_GE(t, present, 0);
	KEXPECT_EQ(t, pt_walk(pop.mm->root, SHARE_BASE, MAPPING_SHARE_ALIGN, fl_leaf_check, NULL),
		   0);
	fl_mm_destroy(t, pop.mm);
	pmm_drain_all();
	pmm_stats_get(&after);
	KEXPECT_EQ(t, after.allocated, before.allocated);
	KEXPECT_EQ(t, after.errors, before.errors);
}

static const struct ktest_case faultlock_cases[] = {
	KTEST_CASE(test_faultlock_attach_checks),
	KTEST_CASE(test_faultlock_counts),
	KTEST_CASE(test_faultlock_zap),
	KTEST_CASE(test_faultlock_fault_waits_for_its_lock),
	KTEST_CASE(test_faultlock_writer_waits_for_faults),
	KTEST_CASE(test_faultlock_writer_race),
	KTEST_CASE(test_faultlock_populate_race),
};
KTEST_SUITE_DESIGNS(faultlock, faultlock_cases, faultlock_init, NULL, fault_lock_designs);
