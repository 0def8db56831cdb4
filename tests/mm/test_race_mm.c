/*
 * Races replayed deterministically: each case stops one mm operation at a
 * named hook point (mm/mm_hook.h) and runs the other side of the race there,
 * on the same CPU, then checks what the interleaving must leave (a zap racing
 * a fault's walk, a lockless pin racing swap-out, a pin racing a free and
 * reallocation). Host and kernel: nothing here needs a second CPU.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pin/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"
#include "tests/test_swap.h"

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

/* ---- a shareable zap against a fault stopped at the PD ---- */

static void race_zap_at_populate(enum mm_hook_point at, void *arg)
{
	const struct pt_slot *s = arg;

	(void)at;
	race.level = s->level;
	race.err = mapping_zap(race.m, race.mm);
}

/*
 * The private region has no level-1 table yet, so the fault's walk stops
 * at the PD both regions share; the shareable zap, under the same read
 * side, empties the shareable region's tables. The fault then resumes
 * from that PD: it must still be the mm's, so the page the fault mapped
 * is what a lookup finds, and teardown gives every table back.
 */
static void test_race_zap_fault_shared_pd(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	/* Static: a mapping's attachment table and locks are too large for a kernel stack. */
	static struct mm_mapping m;
	struct mm *mm;
	int err;

	mapping_init(&m, "race_zap", &fault_lock_ops_fixed);
	KASSERT_EQ(t, mm_create(&mm), 0);
	KASSERT_EQ(t, mm_map_region(mm, SHARE_REG, MAPPING_SHARE_ALIGN, RW | MM_PT_SHAREABLE), 0);
	KASSERT_EQ(t, mm_map_region(mm, PRIV_REG, MAPPING_SHARE_ALIGN, RW), 0);
	KASSERT_EQ(t, mapping_attach(&m, mm, SHARE_REG), 0);
	emul_write(t, mm, SHARE_REG, 1);
	race.mm = mm;
	race.m = &m;
	race.err = 1;
	race_arm(t, 1u << MM_HOOK_FAULT_POPULATE, race_zap_at_populate);
	err = fault_handle_mm(mm, PRIV_REG, FAULT_WRITE);
	race_stop();
	KEXPECT_EQ(t, err, 0);
	KEXPECT_EQ(t, race.calls, 1);
	KEXPECT_EQ(t, race.level, 2); /* the walk stopped at the PD */
	KEXPECT_EQ(t, race.err, 0);
	KEXPECT_EQ(t, pt_lookup(mm->root, PRIV_REG, NULL, NULL, NULL), 0);
	KEXPECT_EQ(t, pt_lookup(mm->root, SHARE_REG, NULL, NULL, NULL), -ENOENT);
	emul_write(t, mm, PRIV_REG + KB4, 2);
	KEXPECT_EQ(t, emul_read(t, mm, PRIV_REG + KB4), 2);
	KEXPECT_EQ(t, mapping_detach(&m, mm, SHARE_REG), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

/* ---- a lockless pin against swap-out ---- */

/* The pin a DMA user takes with the mm loaded here: the lockless walk only. */
static void race_pin_fast(enum mm_hook_point at, void *arg)
{
	(void)at;
	(void)arg;
	race.err = pin_pages_fast(race.mm, REG, 1, PIN_WRITE | PIN_FAST_ONLY, &race.pinned,
				  &pin_policy_default);
}

/*
 * The lockless walk's steps split around the clear: its lookup before
 * (at the check), its refcount step and its re-check of the entry after
 * (at the clear), where it finds the entry changed and backs out, as
 * pin_walk_step() does.
 */
static void race_pin_split(enum mm_hook_point at, void *arg)
{
	struct page *p;

	(void)arg;
	if (at == MM_HOOK_SWAP_OUT_CHECKED) {
		race.err = pt_lookup(race.mm->root, REG, &race.pa, NULL, NULL);
		return;
	}
	p = phys_to_page(race.pa);
	if (race.err || page_pin(p))
		return;
	if (pt_lookup(race.mm->root, REG, NULL, NULL, NULL) == 0) {
		race.pinned = p;
		race.err = 1;
		return;
	}
	KEXPECT_EQ(race.t, page_unpin(p), 0); /* the entry changed: not ours to pin */
	race.err = -EAGAIN;
}

/*
 * Swap-out of one page, with a lockless pinner run by @fn at @points; if
 * it got its pin, it writes 222 through it and lets go. Returns
 * swap-out's result; *@read is what the mm reads at REG afterwards (111
 * before the pinner wrote), *@pinned whether the pin held.
 */
static int race_swap_out_pinned(struct ktest *t, unsigned points,
				void (*fn)(enum mm_hook_point, void *), u64 *read, bool *pinned)
{
	unsigned type;
	struct mm *mm;
	int err;

	struct emul_snap before = emul_snap_take();

	*pinned = false;
	if (!swapt_dev_new(t, 16, &type) || !KEXPECT_EQ(t, mm_create(&mm), 0))
		return -ENOMEM;
	KEXPECT_EQ(t, mm_map_region(mm, REG, 16 * KB4, RW), 0);
	emul_write(t, mm, REG, 111);
	mm_switch(mm); /* the lockless walk pins only where the mm is loaded */
	race.mm = mm;
	race.pinned = NULL;
	race.err = 0;
	race_arm(t, points, fn);
	err = swap_out_folio(mm, REG, 1, type);
	race_stop();
	KEXPECT_EQ(t, race.points, 0);
	if (race.err == 1) {
		*pinned = true;
		*(u64 *)page_address(race.pinned) = 222; /* the device writes through its pin */
		KEXPECT_EQ(t, unpin_pages(&race.pinned, 1), 0);
	}
	*read = emul_read(t, mm, REG);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, swapt_dev_drain(type), 0);
	emul_snap_expect(t, before);
	return err;
}

/* Pinned after the check, before the clear: swap-out must back out, and the write stay. */
static void test_race_swap_out_pin_after_check(struct ktest *t)
{
	bool pinned;
	u64 read = 0;
	int err = race_swap_out_pinned(t, 1u << MM_HOOK_SWAP_OUT_CHECKED, race_pin_fast, &read,
				       &pinned);

	KEXPECT(t, pinned);
	KEXPECT_EQ(t, err, -EBUSY);
	KEXPECT_EQ(t, read, 222);
}

/*
 * Looked up before the clear, pinned after it: the pinner's re-check finds
 * the swap entry and drops the pin before the flush can complete, so
 * swap-out goes on and nothing was written through a pin.
 */
static void test_race_swap_out_pin_after_clear(struct ktest *t)
{
	unsigned points = (1u << MM_HOOK_SWAP_OUT_CHECKED) | (1u << MM_HOOK_SWAP_OUT_CLEARED);
	bool pinned;
	u64 read = 0;
	int err = race_swap_out_pinned(t, points, race_pin_split, &read, &pinned);

	KEXPECT(t, !pinned);
	KEXPECT_EQ(t, race.err, -EAGAIN);
	KEXPECT_EQ(t, err, 0);
	KEXPECT_EQ(t, read, 111);
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
	KTEST_CASE(test_race_zap_fault_shared_pd),
	KTEST_CASE(test_race_swap_out_pin_after_check),
	KTEST_CASE(test_race_swap_out_pin_after_clear),
	KTEST_CASE(test_race_pin_ref_realloc),
};
KTEST_SUITE_EXT(race_mm, race_mm_cases, race_suite_init, race_suite_exit, NULL);
