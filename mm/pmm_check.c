/*
 * The frame allocator's guards (see mm/pmm_ranges.h): the checks that
 * refuse a bad free and their report, and fault injection for tests.
 * The counters are atomics; the injection state has its own lock, taken
 * with interrupts off, so page_alloc() may consult it in any context.
 */
#include "mm/pmm_check.h"
#include "mm/page.h"
#include "mm/pmm_ranges.h"
#include "errno.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"

/* Bad frees past this many are counted but no longer printed. */
#define PMM_REPORT_MAX 32

static spinlock_t pmm_inject_lock = SPINLOCK_INIT("pmm_inject");
static u64 pmm_errors, pmm_reports;
static u32 pmm_inject_skip, pmm_inject_count;

bool pmm_in_memmap(const struct page *p)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)mm_memmap;

	return mm_memmap && (uintptr_t)p >= (uintptr_t)mm_memmap &&
	       off / sizeof(struct page) < mm_memmap_end_pfn - mm_memmap_start_pfn &&
	       off % sizeof(struct page) == 0;
}

static int pmm_check_unused(const struct page *p, unsigned order, const char **why)
{
	u64 i;

	if (page_pinned(p)) {
		*why = "still pinned";
		return -EBUSY;
	}
	for (i = 0; i < (1ull << order); i++) {
		if (page_mapcount(&p[i]) > 0) {
			*why = "still mapped";
			return -EBUSY;
		}
	}
	return 0;
}

int pmm_check_free(const struct page *p, unsigned order, const char **why)
{
	u32 f;

	*why = "not a frame of the memmap";
	if (!pmm_in_memmap(p))
		return -EINVAL;
	*why = "order above PMM_MAX_ORDER";
	if (order > PMM_MAX_ORDER)
		return -EINVAL;
	f = atomic_load_relaxed(&p->flags);
	if (f & PG_RESERVED)
		*why = "reserved frame, never allocated";
	else if (f & PG_TAIL)
		*why = "not the first frame of its block";
	else if (f & (PG_FREED | PG_BUDDY | PG_PCP))
		*why = "already free (double free)";
	else if (!(f & PG_HEAD))
		*why = "never allocated";
	else if (p->order != order)
		*why = "order differs from the allocation's";
	else
		return pmm_check_unused(p, order, why);
	return -EINVAL;
}

int pmm_report(const struct page *p, unsigned order, int err, const char *why, void *caller)
{
	u64 n;

	atomic_inc(&pmm_errors);
	n = atomic_add_return(&pmm_reports, 1);
	if (n > PMM_REPORT_MAX)
		return err;
	warn_report(__FILE__, __LINE__, "page_free(pfn 0x%lx, order %u) from %p refused: %s (%s)%s",
		    pmm_in_memmap(p) ? page_to_pfn(p) : 0, order, caller, why, errno_name(err),
		    n == PMM_REPORT_MAX ? "; further errors are only counted" : "");
	return err;
}

u64 pmm_check_errors(void)
{
	return atomic_load_relaxed(&pmm_errors);
}

void pmm_check_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&pmm_inject_lock);

	pmm_errors = pmm_reports = 0;
	pmm_inject_skip = 0;
	atomic_store_relaxed(&pmm_inject_count, 0);
	spin_unlock_irqrestore(&pmm_inject_lock, flags);
}

bool pmm_inject_now(void)
{
	unsigned long flags;
	bool fail = false;

	if (likely(!atomic_load_relaxed(&pmm_inject_count)))
		return false;
	flags = spin_lock_irqsave(&pmm_inject_lock);
	if (pmm_inject_skip > 0) {
		pmm_inject_skip--;
	} else if (pmm_inject_count > 0) {
		pmm_inject_count--;
		fail = true;
	}
	spin_unlock_irqrestore(&pmm_inject_lock, flags);
	return fail;
}

void pmm_inject_fail(u32 skip, u32 count)
{
	unsigned long flags = spin_lock_irqsave(&pmm_inject_lock);

	pmm_inject_skip = skip;
	atomic_store_relaxed(&pmm_inject_count, count);
	spin_unlock_irqrestore(&pmm_inject_lock, flags);
}
