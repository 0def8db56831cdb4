/*
 * Per-CPU kernel stacks in the stack area (ARCH_KSTACK_AREA_BASE, <arch/mmu.h>).
 * Slot layout, from the bottom: guard page, main stack, then for each IST
 * stack a guard page and the stack. Frames come from the buddy allocator;
 * only the boot CPU allocates, during bring-up, so no lock is needed.
 */
#include "mm/kstack.h"
#include "compiler.h"
#include "errno.h"
#include "kernel/cpumask.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/mmu.h>

BUILD_ASSERT(KSTACK_GUARD_SIZE + KSTACK_SIZE +
		     MACHINE_MAX_IRQ_STACKS * (KSTACK_GUARD_SIZE + KSTACK_IST_SIZE) <=
	     KSTACK_SLOT_SIZE);

static paddr_t kstack_root;
static unsigned kstack_nirq;
static cpumask_t kstack_allocated;

int kstack_init(paddr_t kernel_root, unsigned irq_stacks)
{
	if (irq_stacks > MACHINE_MAX_IRQ_STACKS)
		return -EINVAL;
	kstack_root = kernel_root;
	kstack_nirq = irq_stacks;
	return 0;
}

static vaddr_t slot_base(unsigned cpu)
{
	return ARCH_KSTACK_AREA_BASE + (vaddr_t)cpu * KSTACK_SLOT_SIZE;
}

static vaddr_t ist_base(unsigned cpu, unsigned i)
{
	return slot_base(cpu) + KSTACK_GUARD_SIZE + KSTACK_SIZE + KSTACK_GUARD_SIZE +
	       i * (KSTACK_IST_SIZE + KSTACK_GUARD_SIZE);
}

vaddr_t kstack_guard(unsigned cpu)
{
	return slot_base(cpu);
}

vaddr_t kstack_top(unsigned cpu)
{
	return slot_base(cpu) + KSTACK_GUARD_SIZE + KSTACK_SIZE;
}

void kstack_tops(unsigned cpu, struct machine_stacks *out)
{
	*out = (struct machine_stacks){ .top = kstack_top(cpu) };
	for (unsigned i = 0; i < kstack_nirq; i++)
		out->irq_top[i] = ist_base(cpu, i) + KSTACK_IST_SIZE;
}

static unsigned order_of(u64 bytes)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

/* Backs [va, va + bytes) with one zeroed block of frames. */
static int map_stack(vaddr_t va, u64 bytes)
{
	unsigned order = order_of(bytes);
	struct page *p = page_alloc(order, PMM_ZERO);
	int err;

	if (!p)
		return -ENOMEM;
	err = pt_map(kstack_root, va, page_to_phys(p), bytes, PROT_READ | PROT_WRITE | PROT_GLOBAL,
		     PT_PAGE_4K);
	if (err)
		page_free(p, order);
	return err;
}

int kstack_alloc_cpu(unsigned cpu)
{
	int err;

	if (cpu >= MAX_CPUS)
		return -EINVAL;
	if (cpumask_test_cpu(cpu, &kstack_allocated))
		return 0;
	err = map_stack(slot_base(cpu) + KSTACK_GUARD_SIZE, KSTACK_SIZE);
	for (unsigned i = 0; !err && i < kstack_nirq; i++)
		err = map_stack(ist_base(cpu, i), KSTACK_IST_SIZE);
	if (err)
		return err; /* the few frames mapped so far stay with the slot for a retry */
	cpumask_set_cpu(cpu, &kstack_allocated);
	return 0;
}
