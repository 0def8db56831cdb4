/*
 * torture_env_touch() on the host: tests/mm_emul.c's software MMU, with the
 * TLB lookup (or walk and fill) and the access done with this fake CPU's
 * interrupts off, so a flush IPI (run by another thread, tests/host/fake_cpus.h)
 * comes before the translation or after the access, never between them, as
 * with one instruction on hardware. Stale hits are counted by mm_emul's own
 * accesses only; the torture judges by its model and the early frees.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "tests/host/fake_tlb.h"
#include "tests/torture/torture.h"
#include <arch/arch.h>

/* One attempt: true when the access was done (no fault needed). */
static bool touch_once(struct mm *mm, vaddr_t va, bool write, u64 *val, bool *present)
{
	unsigned long flags = arch_irq_save();
	struct fake_tlb_hit hit;
	unsigned prot = 0;
	paddr_t pa = 0;
	u64 size = 0;
	bool done = false;

	if (mm_current() != mm)
		mm_switch(mm);
	if (fake_tlb_lookup(arch_cpu_id(), va, &hit)) {
		pa = hit.pa;
		prot = hit.prot;
		*present = true;
	} else {
		*present = !pt_lookup(mm->root, va, &pa, &prot, &size);
		if (*present)
			fake_tlb_fill(arch_cpu_id(), va, pa, size, prot);
	}
	if (*present && (!write || (prot & PROT_WRITE))) {
		u64 *p = phys_to_virt(pa);

		if (write)
			torture_user_store(p, *val);
		else
			*val = torture_user_load(p);
		done = true;
	}
	arch_irq_restore(flags);
	return done;
}

int torture_env_touch(struct mm *mm, vaddr_t va, bool write, u64 *val)
{
	u64 give_up = torture_env_now_ms() + TORTURE_TOUCH_RETRY_MS;

	while (torture_env_now_ms() < give_up) {
		bool present = false;
		int err;

		if (touch_once(mm, va, write, val, &present))
			return 0;
		fake_tlb_fault(arch_cpu_id(), va);
		err = fault_handle_mm(mm, va,
				      (write ? FAULT_WRITE : 0) | (present ? FAULT_PRESENT : 0));
		if (err && err != -EAGAIN)
			return err;
		torture_env_service();
	}
	return -EAGAIN;
}
