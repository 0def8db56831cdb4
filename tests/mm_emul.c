/*
 * The software MMU and allocator snapshots of tests/mm_emul.h. One test
 * case at a time; on the host the fake CPU number picks the per-CPU data.
 */
#include "tests/mm_emul.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "mm/fault.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

struct emul_snap emul_snap_take(void)
{
	struct pmm_stats s;

	pmm_stats_get(&s);
	return (struct emul_snap){ s.free, pt_table_pages() };
}

void emul_snap_expect(struct ktest *t, struct emul_snap before)
{
	struct emul_snap now = emul_snap_take();

	KEXPECT_EQ(t, now.free, before.free);
	KEXPECT_EQ(t, now.tables, before.tables);
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

int emul_touch(struct mm *mm, vaddr_t va, bool write, u64 *val)
{
	for (int tries = 0; tries < 3; tries++) {
		unsigned prot = 0;
		paddr_t pa = 0;
		int err = pt_lookup(mm->root, va, &pa, &prot, NULL);

		if (!err && (!write || (prot & PROT_WRITE))) {
			u64 *p = phys_to_virt(pa);

			if (write)
				*p = *val;
			else
				*val = *p;
			return 0;
		}
		err = fault_handle_mm(mm, va, (write ? FAULT_WRITE : 0) | (err ? 0 : FAULT_PRESENT));
		if (err)
			return err;
	}
	return -EAGAIN;
}

u64 emul_read(struct ktest *t, struct mm *mm, vaddr_t va)
{
	u64 v = ~0ull;

	KEXPECT_EQ(t, emul_touch(mm, va, false, &v), 0);
	return v;
}

void emul_write(struct ktest *t, struct mm *mm, vaddr_t va, u64 v)
{
	KEXPECT_EQ(t, emul_touch(mm, va, true, &v), 0);
}

struct page *emul_page_at(struct mm *mm, vaddr_t va, unsigned *prot)
{
	paddr_t pa;

	if (pt_lookup(mm->root, va, &pa, prot, NULL))
		return NULL;
	return phys_to_page(pa);
}
