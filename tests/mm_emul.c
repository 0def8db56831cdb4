/*
 * The software MMU and allocator snapshots of tests/mm_emul.h; one test case
 * at a time. On the host an access loads the address space on the fake CPU
 * and translates through that CPU's modelled TLB (tests/host/fake_tlb.h), so
 * an entry the kernel forgot to flush is used, stale. In the kernel the
 * hardware TLB cannot be watched, so accesses walk the tables.
 */
#include "tests/mm_emul.h"
#include "errno.h"
#include "lib/atomic.h"
#include "kernel/percpu.h"
#include "mm/fault.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/arch.h>

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#include "tests/host/fake_tlb.h"
#endif

static void emul_stale_expect(struct ktest *t, u64 before);
static void emul_early_expect(struct ktest *t, u64 before);

struct emul_snap emul_snap_take(void)
{
	struct pmm_stats s;

	pmm_stats_get(&s);
	return (struct emul_snap){ s.free, pt_table_pages(), emul_stale_uses(),
				   emul_early_frees() };
}

void emul_snap_expect(struct ktest *t, struct emul_snap before)
{
	struct emul_snap now = emul_snap_take();

	KEXPECT_EQ(t, now.free, before.free);
	KEXPECT_EQ(t, now.tables, before.tables);
	emul_stale_expect(t, before.stale);
	emul_early_expect(t, before.early_frees);
}

int emul_suite_init(struct ktest *t)
{
	(void)t;
#ifdef HOST_BUILD
	paddr_t kroot;
	int err;

	for (unsigned cpu = 0; cpu < EMUL_FAKE_CPUS; cpu++) {
		fake_arch_set_cpu(cpu);
		this_cpu()->mm = NULL; /* the last case's address spaces went with its allocator */
	}
	fake_arch_set_cpu(0);
	fake_tlb_reset();
	mm_swap = NULL;
	err = fake_pmm_init(0);
	if (!err)
		err = pt_root_alloc(&kroot, 0);
	if (!err)
		mm_init(kroot, MM_ASID_SLOTS);
	return err;
#else
	return 0;
#endif
}

#ifdef HOST_BUILD
static u64 emul_stale;
static struct {
	unsigned cpu;
	vaddr_t va;
	paddr_t tlb_pa, pt_pa;
} emul_last_stale;

u64 emul_stale_uses(void)
{
	return atomic_load_relaxed(&emul_stale);
}

/*
 * A hit the page tables no longer back: the entry maps another frame, or
 * allows a write the entry in the tables does not, or the tables map
 * nothing there. Counted and reported; the access still goes through it,
 * as the hardware's would.
 */
static void emul_check_hit(struct mm *mm, vaddr_t va, const struct fake_tlb_hit *hit)
{
	unsigned prot = 0;
	paddr_t pa = 0;
	int err = pt_lookup(mm->root, va, &pa, &prot, NULL);

	if (!err && pa == hit->pa && (prot & PROT_WRITE || !(hit->prot & PROT_WRITE)))
		return;
	emul_last_stale.cpu = arch_cpu_id();
	emul_last_stale.va = va;
	emul_last_stale.tlb_pa = hit->pa;
	emul_last_stale.pt_pa = err ? 0 : pa;
	atomic_inc(&emul_stale);
}

/* Names the last stale use in case @t's log when there were some since @before. */
static void emul_stale_expect(struct ktest *t, u64 before)
{
	if (!KEXPECT_EQ(t, emul_stale_uses() - before, 0))
		ktest_log(t, "stale TLB use: CPU %u at 0x%lx reached 0x%lx, the tables say 0x%lx",
			  emul_last_stale.cpu, (unsigned long)emul_last_stale.va,
			  (unsigned long)emul_last_stale.tlb_pa,
			  (unsigned long)emul_last_stale.pt_pa);
}

u64 emul_early_frees(void)
{
	return fake_tlb_early_frees(NULL);
}

static void emul_early_expect(struct ktest *t, u64 before)
{
	paddr_t pa;

	if (!KEXPECT_EQ(t, fake_tlb_early_frees(&pa) - before, 0))
		ktest_log(t, "frame 0x%lx was freed while a CPU running its space still cached it",
			  (unsigned long)pa);
}

/* Through this fake CPU's TLB; a miss walks the tables and fills it. */
static int emul_translate(struct mm *mm, vaddr_t va, paddr_t *pa, unsigned *prot)
{
	struct fake_tlb_hit hit;
	u64 size = 0;
	int err;

	if (mm_current() != mm)
		mm_switch(mm);
	if (fake_tlb_lookup(arch_cpu_id(), va, &hit)) {
		emul_check_hit(mm, va, &hit);
		*pa = hit.pa;
		*prot = hit.prot;
		return 0;
	}
	err = pt_lookup(mm->root, va, pa, prot, &size);
	if (!err)
		fake_tlb_fill(arch_cpu_id(), va, *pa, size, *prot);
	return err;
}

/* A page fault drops the faulting address's entries before the handler runs. */
static void emul_fault_begin(vaddr_t va)
{
	fake_tlb_fault(arch_cpu_id(), va);
}
#else
u64 emul_stale_uses(void)
{
	return 0;
}

static void emul_stale_expect(struct ktest *t, u64 before)
{
	(void)t;
	(void)before;
}

u64 emul_early_frees(void)
{
	return 0;
}

static void emul_early_expect(struct ktest *t, u64 before)
{
	(void)t;
	(void)before;
}

static int emul_translate(struct mm *mm, vaddr_t va, paddr_t *pa, unsigned *prot)
{
	return pt_lookup(mm->root, va, pa, prot, NULL);
}

static void emul_fault_begin(vaddr_t va)
{
	(void)va;
}
#endif

int emul_touch(struct mm *mm, vaddr_t va, bool write, u64 *val)
{
	for (int tries = 0; tries < 3; tries++) {
		unsigned prot = 0;
		paddr_t pa = 0;
		int err = emul_translate(mm, va, &pa, &prot);

		if (!err && (!write || (prot & PROT_WRITE))) {
			u64 *p = phys_to_virt(pa);

			if (write)
				*p = *val;
			else
				*val = *p;
			return 0;
		}
		emul_fault_begin(va);
		err = fault_handle_mm(mm, va,
				      (write ? FAULT_WRITE : 0) | (err ? 0 : FAULT_PRESENT));
		if (err)
			return err;
	}
	return -EAGAIN;
}

u64 emul_read(struct ktest *t, struct mm *mm, vaddr_t va)
{
	u64 stale = emul_stale_uses(), v = ~0ull;

	KEXPECT_EQ(t, emul_touch(mm, va, false, &v), 0);
	emul_stale_expect(t, stale);
	return v;
}

void emul_write(struct ktest *t, struct mm *mm, vaddr_t va, u64 v)
{
	u64 stale = emul_stale_uses();

	KEXPECT_EQ(t, emul_touch(mm, va, true, &v), 0);
	emul_stale_expect(t, stale);
}

struct page *emul_page_at(struct mm *mm, vaddr_t va, unsigned *prot)
{
	paddr_t pa;

	if (pt_lookup(mm->root, va, &pa, prot, NULL))
		return NULL;
	return phys_to_page(pa);
}
