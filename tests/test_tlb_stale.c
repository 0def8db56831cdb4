/*
 * The stale-translation detector, for each TLB shootdown design. Reader
 * CPUs load the address space and read its pages in a tight loop (task
 * context, interrupts on, so they answer shootdowns). This CPU repeatedly
 * unmaps a page, waits for the flush, then writes poison into the frame the
 * page used to map (kept by an extra reference). After the flush no CPU may
 * reach that frame through the old address: a reader that reads poison
 * there saw a stale TLB entry, and the test fails naming the CPU, address
 * and design. The control run leaves the remote flush out on purpose and
 * reports (without failing) whether staleness was observable on this
 * machine; TCG keeps a software TLB per vCPU, so it usually is. Kernel only.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define STALE_BASE 0x58000000ul
#define STALE_PAGES 16
#define STALE_ROUNDS 400
#define POISON 0xdeadbeefdeadbeefull

struct stale_state {
	struct mm *mm;
	u32 stop;
	u32 readers_left;
	u64 reads;		/* reads done by all readers */
	u64 poison_seen;	/* stale reads */
	u32 first_cpu;
	vaddr_t first_va;
};

static struct stale_state ss;

/* Each reader: load the mm and read every page until told to stop. */
static void stale_reader(void *arg)
{
	(void)arg;
	mm_switch(ss.mm);
	while (!atomic_load_acquire(&ss.stop)) {
		for (unsigned i = 0; i < STALE_PAGES; i++) {
			vaddr_t va = STALE_BASE + (vaddr_t)i * PAGE_SIZE;

			if (*(volatile u64 *)va == POISON &&
			    atomic_fetch_add(&ss.poison_seen, 1) == 0) {
				ss.first_cpu = this_cpu()->cpu_id;
				ss.first_va = va;
			}
		}
		atomic_fetch_add(&ss.reads, STALE_PAGES);
	}
	mm_switch(NULL);
	atomic_fetch_sub(&ss.readers_left, 1);
}

/* One round: unmap page @i, wait for the flush, poison the old frame, then let it go. */
static int stale_round(const struct tlb_ops *ops, unsigned i)
{
	vaddr_t va = STALE_BASE + (vaddr_t)i * PAGE_SIZE;
	struct page *old;
	paddr_t pa;
	int err;

	err = mm_populate(ss.mm, va, PAGE_SIZE);
	if (err || pt_lookup(ss.mm->root, va, &pa, NULL, NULL))
		return err ? err : -ENOENT;
	old = phys_to_page(pa);
	page_ref_inc(old);
	err = tlb_unmap_pages(ss.mm, va, 1, ops);
	*(volatile u64 *)page_address(old) = POISON;
	/* Give readers time to use a stale entry, if one survived the flush. */
	for (int spin = 0; spin < 2000; spin++)
		arch_cpu_relax();
	if (page_ref_dec_and_test(old))
		page_free(old, 0);
	return err;
}

/* Runs the detector with @ops; returns the number of stale reads seen. */
static u64 stale_run(struct ktest *t, const struct tlb_ops *ops)
{
	unsigned cpu;

	ss = (struct stale_state){ 0 };
	if (!KEXPECT_EQ(t, mm_create(&ss.mm), 0))
		return ~0ull;
	if (mm_map_region(ss.mm, STALE_BASE, STALE_PAGES * PAGE_SIZE, MM_READ | MM_WRITE) ||
	    mm_populate(ss.mm, STALE_BASE, STALE_PAGES * PAGE_SIZE))
		return ~0ull;
	mm_switch(ss.mm);
	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu != this_cpu()->cpu_id && smp_run_async(cpu, stale_reader, NULL) == 0)
			atomic_fetch_add(&ss.readers_left, 1);
	}
	for (unsigned r = 0; r < STALE_ROUNDS; r++)
		KEXPECT_EQ(t, stale_round(ops, r % STALE_PAGES), 0);
	atomic_store_release(&ss.stop, 1);
	while (atomic_load_acquire(&ss.readers_left))
		arch_cpu_relax();
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(ss.mm), 0);
	ktest_log(t, "%s: %lu reads on %u reader CPUs, %lu stale", ops->name,
		  (unsigned long)ss.reads, ncpus_online - 1, (unsigned long)ss.poison_seen);
	return ss.poison_seen;
}

static void check_design(struct ktest *t, const struct tlb_ops *ops)
{
	u64 stale;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a reader CPU");
		return;
	}
	stale = stale_run(t, ops);
	if (stale)
		ktest_log(t, "STALE: design %s, CPU %u read poison at 0x%lx after the flush", ops->name,
			  ss.first_cpu, ss.first_va);
	KEXPECT_EQ(t, stale, 0);
	KEXPECT_GT(t, ss.reads, 0);
}

static void test_tlb_stale_naive(struct ktest *t)
{
	check_design(t, &tlb_ops_naive);
}

static void test_tlb_stale_batched(struct ktest *t)
{
	check_design(t, &tlb_ops_batched);
}

/* The control: no remote flush. Reported, not asserted: it shows what the detector can see. */
static void test_tlb_stale_control(struct ktest *t)
{
	u64 stale;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a reader CPU");
		return;
	}
	stale = stale_run(t, &tlb_ops_no_remote);
	printk("# tlb detector control (no remote flush): %s (%lu stale reads)\n",
	       stale ? "staleness observed: the detector sees missing flushes here"
		     : "no staleness observed: this machine may hide missing flushes",
	       (unsigned long)stale);
}

static const struct ktest_case tlb_stale_cases[] = {
	KTEST_CASE(test_tlb_stale_naive),
	KTEST_CASE(test_tlb_stale_batched),
	KTEST_CASE(test_tlb_stale_control),
};
KTEST_SUITE(tlb_stale, tlb_stale_cases);
