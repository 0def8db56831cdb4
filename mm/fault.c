/*
 * Page faults (see mm/fault.h): demand-zero, copy-on-write, swap entries
 * (through the swap hook) and spurious faults from stale TLB entries. All
 * under the address space's read side, changing single leaves by
 * compare-and-exchange, so a CPU that loses a race returns 0 and retries.
 * Lock order: mm->lock, then the region's mapping lock (mm/mapping/mapping.h).
 * Each CPU's fault_cpu copy is written only by that CPU.
 */
#include "mm/fault.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "torture_hook.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_PAGE_FAULTS, "page_faults");

struct fault_cpu {
	u64 events[FAULT_NR_EVENTS];
} __cacheline_aligned;

static struct fault_cpu fault_cpu __pcpu_data;

/* Only this CPU writes its counters: a plain add, atomic only so readers see no tearing. */
static void fault_count(enum fault_event ev)
{
	u64 *c = &this_cpu_ptr(fault_cpu)->events[ev];

	atomic_store_relaxed(c, atomic_load_relaxed(c) + 1);
}

u64 fault_event_count(enum fault_event ev)
{
	u64 sum = 0;

	for (unsigned cpu = 0; cpu < percpu_data_bound(); cpu++)
		sum += atomic_load_relaxed(&per_cpu_ptr(fault_cpu, cpu)->events[ev]);
	return sum;
}

const char *fault_strerror(int err)
{
	switch (err) {
	case -EFAULT:
		return "no region maps the address, or its region does not allow the access";
	case -ENOMEM:
		return "out of memory";
	case -ENOSYS:
		return "a swap entry, and no swap subsystem to bring it back";
	default:
		return "the swap-in hook failed (see the error code)";
	}
}

/* The arch hook's question, interrupts off: only with an address space loaded. */
static bool fault_wants(vaddr_t addr)
{
	(void)addr;
	return mm_current() != NULL;
}

static const struct arch_fault_hook fault_hook = {
	.wants = fault_wants,
	.handle = fault_handle,
	.strerror = fault_strerror,
};

void fault_init(void)
{
	arch_set_fault_hook(&fault_hook);
}

/* The region must allow the access (reads it always does). */
static int fault_check_access(const struct mm_region *r, unsigned flags)
{
	if ((flags & FAULT_WRITE) && !(r->flags & MM_WRITE))
		return -EFAULT;
	if ((flags & FAULT_EXEC) && !(r->flags & MM_EXEC))
		return -EFAULT;
	return 0;
}

/* The entry allows the access already: this CPU used a stale TLB entry, or lost a race. */
static int fault_spurious(vaddr_t va)
{
	arch_tlb_flush_one(va);
	fault_count(FAULT_EV_SPURIOUS);
	return 0;
}

static int fault_zero(struct mm *mm, const struct mm_region *r, struct pt_slot *s)
{
	int err = mm_zero_page_slot(mm, r, s);

	if (err == -EEXIST)
		return fault_spurious(s->va); /* another CPU mapped it first */
	if (!err)
		fault_count(FAULT_EV_ZERO);
	return err;
}

static int fault_swap(struct mm *mm, const struct mm_region *r, const struct pt_slot *s,
		      u64 swp, unsigned flags)
{
	int err;

	if (!mm_swap || !mm_swap->swapin)
		return -ENOSYS;
	err = mm_swap->swapin(mm, r, s, swp, flags);
	if (err == -EAGAIN)
		return fault_spurious(s->va); /* another CPU is bringing it in */
	if (!err)
		fault_count(FAULT_EV_SWAPIN);
	return err;
}

/*
 * Nobody but this mapping uses @p: one map count, and no reference beyond
 * the mapping's and pins (a pinned page is never shared: mm_fork() copies it).
 */
static bool fault_page_exclusive(const struct page *p)
{
	return page_mapcount(p) == 1 &&
	       page_ref_count(p) == 1 + (s32)page_pin_count(p) * PIN_BIAS;
}

/* Copies shared page @old for this mapping; its translation is flushed before @old is dropped. */
static int fault_cow_copy(struct mm *mm, const struct pt_slot *s, struct page *old,
			  unsigned prot)
{
	vaddr_t va = s->va;
	struct page *new = torture_hook_fail(TORTURE_FAIL_FRAME) ? NULL : mm_page_alloc(mm, 0, 0);
	int err;

	if (!new)
		return -ENOMEM;
	memcpy(page_address(new), page_address(old), PAGE_SIZE);
	page_map_inc(new);
	err = pt_slot_replace(s, page_to_phys(old), page_to_phys(new), prot);
	if (err) {
		mm_page_drop(new); /* another CPU resolved it first */
		return fault_spurious(va);
	}
	/* A CPU out of the run may still write through its old entry: keep @old then. */
	if (mm_flush_range(mm, va, va + PAGE_SIZE - 1))
		quarantine_frame(old);
	else
		mm_page_drop(old);
	fault_count(FAULT_EV_COW_COPY);
	return 0;
}

/* A write to a present, write-protected page of a writable region. */
static int fault_write_protected(struct mm *mm, const struct mm_region *r,
				 const struct pt_slot *s, paddr_t pa)
{
	unsigned prot = mm_region_prot(r);
	struct page *p;

	if (!pfn_valid(pa >> PAGE_SHIFT))
		return -EFAULT;
	p = phys_to_page(pa);
	if (mm_region_cow(r) && !fault_page_exclusive(p))
		return fault_cow_copy(mm, s, p, prot);
	/* Raising the permission needs no flush: a stale entry only faults again. */
	if (pt_slot_replace(s, pa, pa, prot))
		return fault_spurious(s->va);
	fault_count(FAULT_EV_COW_REUSE);
	return 0;
}

/* One walk to the entry for @va; what it holds picks the work, which uses the slot found. */
static int fault_resolve(struct mm *mm, const struct mm_region *r, vaddr_t va, unsigned flags)
{
	struct pt_slot s;
	unsigned prot;
	paddr_t pa;
	u64 swp;
	int err = pt_slot_find(mm->root, va, &s);

	if (err)
		return err;
	if (pt_slot_swap(&s, &swp))
		return fault_swap(mm, r, &s, swp, flags);
	if (!pt_slot_mapped(&s, &pa, &prot))
		return fault_zero(mm, r, &s);
	if ((flags & FAULT_WRITE) && !(prot & PROT_WRITE))
		return fault_write_protected(mm, r, &s, pa);
	return fault_spurious(va);
}

int fault_handle_mm(struct mm *mm, vaddr_t addr, unsigned flags)
{
	vaddr_t va = ALIGN_DOWN(addr, PAGE_SIZE);
	const struct mm_region *r;
	int err;

	trace_event(TRACE_FAULT_BEGIN, 0, (u32)(va >> PAGE_SHIFT));
	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, va);
	err = r ? fault_check_access(r, flags) : -EFAULT;
	if (!err) {
		rwlock_t *held = mapping_fault_lock(r);

		err = fault_resolve(mm, r, va, flags);
		mapping_fault_done(r, held);
	}
	read_unlock(&mm->lock);
	if (err)
		fault_count(FAULT_EV_FAILED);
	else
		this_cpu_inc(PCPU_PAGE_FAULTS);
	trace_event(TRACE_FAULT_END, 0, (u32)-err);
	return err;
}

int fault_handle(vaddr_t addr, unsigned flags)
{
	struct mm *mm = mm_current();

	if (!mm || addr >= MM_USER_TOP) {
		fault_count(FAULT_EV_FAILED);
		return -EFAULT;
	}
	return fault_handle_mm(mm, addr, flags);
}
