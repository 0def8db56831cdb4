/*
 * Races replayed deterministically: each case stops one mm operation at a
 * named hook point (mm/mm_hook.h) and runs the other side of the race
 * there, on the same CPU, then checks what the interleaving must leave:
 *   - a pin whose page is freed and allocated again around its refcount
 *     step (the new owner's count must stay 1).
 * Host and kernel: nothing here needs a second CPU.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mapping.h"
#include "mm/mm.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/swap.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#include "tests/test_swap.h"

#define KB4 PT_PAGE_4K
#define RW (MM_READ | MM_WRITE)
/* 1 GiB aligned: the shareable region and the private one after it share one PD. */
#define SHARE_REG 0x40000000ul
#define PRIV_REG (SHARE_REG + MAPPING_SHARE_ALIGN)
#define REG 0x40000000ul

/* What the hook of the running case does, and what it saw. */
static struct {
	unsigned points; /* bit (1 << point) for each point the case stops at */
	void (*fn)(enum mm_hook_point at, void *arg);
	unsigned calls;
	struct ktest *t;
	struct mm *mm;
	struct mm_mapping *m;
	struct page *page, *pinned;
	paddr_t pa;
	int err, level;
} race;

static void race_hook(enum mm_hook_point at, void *arg)
{
	if (!(race.points & (1u << at)))
		return;
	race.points &= ~(1u << at);
	race.calls++;
	race.fn(at, arg);
}

/* Runs @fn once at each point of @points (a mask of 1 << point) from now on (until race_stop()). */
static void race_arm(struct ktest *t, unsigned points, void (*fn)(enum mm_hook_point, void *))
{
	race.t = t;
	race.points = points;
	race.fn = fn;
	race.calls = 0;
	atomic_store_release(&mm_hook, race_hook);
}

static void race_stop(void)
{
	atomic_store_release(&mm_hook, NULL);
}

static int race_suite_init(struct ktest *t)
{
	return emul_suite_init(t);
}

static void race_suite_exit(struct ktest *t)
{
	race_stop();
	swapt_exit(t);
}

/* ---- a pin against a free and a new allocation of its page ---- */

/*
 * Between the pin's check of the page and its refcount step, a COW fault
 * drops the last reference (the frame is freed); right after that step,
 * the allocator hands the frame to a new owner.
 */
static void race_realloc_at_pin(enum mm_hook_point at, void *arg)
{
	struct page *got[64];
	unsigned n = 0;

	if (arg != race.page)
		return;
	if (at == MM_HOOK_PIN_CHECKED) {
		race.err = page_free(race.page, 0);
		return;
	}
	while (n < ARRAY_SIZE(got) && (got[n] = page_alloc(0, 0)) && got[n] != race.page)
		n++;
	race.level = n < ARRAY_SIZE(got) && got[n] == race.page ? 0 : -ENOENT;
	while (n-- > 0)
		page_free(got[n], 0);
}

/*
 * A locked pin found the page mapped, but a COW fault freed it before the
 * pin's refcount step, and the allocator handed it to a new owner around
 * that step. The pin must fail and leave the new owner's count at 1.
 */
static void test_race_pin_ref_realloc(struct ktest *t)
{
	struct page *p = page_alloc(0, 0);
	int err;

	KASSERT(t, p != NULL);
	race.page = p;
	race.err = race.level = 1;
	race_arm(t, (1u << MM_HOOK_PIN_CHECKED) | (1u << MM_HOOK_PIN_REF), race_realloc_at_pin);
	err = page_pin(p);
	race_stop();
	KASSERT_EQ(t, race.points, 0);
	KASSERT_EQ(t, race.err, 0);   /* freed ... */
	KASSERT_EQ(t, race.level, 0); /* ... and this very frame handed out again */
	KEXPECT_EQ(t, err, -EINVAL);
	KEXPECT_EQ(t, page_ref_count(p), 1);
	KEXPECT_EQ(t, page_pin_count(p), 0);
	if (page_ref_count(p) == 1)
		KEXPECT_EQ(t, page_free(p, 0), 0);
}

static const struct ktest_case race_mm_cases[] = {
	KTEST_CASE(test_race_pin_ref_realloc),
};
KTEST_SUITE_EXT(race_mm, race_mm_cases, race_suite_init, race_suite_exit, NULL);
