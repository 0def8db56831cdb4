/*
 * Flushes that do not complete (a CPU did not acknowledge: kernel/smp.h),
 * injected at the mm's flush hook point (mm/mm_hook.h MM_HOOK_FLUSHED): no
 * frame a dead CPU may still reach is freed or shared; swap-out keeps the
 * page mapped, fork refuses the child, write-protect, unmap and zap report
 * the error with their frames quarantined; teardown still completes.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/swap/swap.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"
#include "tests/test_swap.h"

#define RW (MM_READ | MM_WRITE)
#define REG 0x40000000ul
#define NPAGES 4

/* Flushes still to pass before the one that fails, and how many failed. */
static unsigned flush_skip, flush_failed;

static void flush_fail_hook(enum mm_hook_point at, void *arg)
{
	if (at != MM_HOOK_FLUSHED || flush_failed)
		return;
	if (flush_skip) {
		flush_skip--;
		return;
	}
	*(int *)arg = -ETIMEDOUT;
	flush_failed++;
}

/* The flush after @skip more mm flushes reports that a CPU did not acknowledge. */
static void flush_fail_arm(unsigned skip)
{
	flush_skip = skip;
	flush_failed = 0;
	atomic_store_release(&mm_hook, flush_fail_hook);
}

static void flush_fail_stop(struct ktest *t)
{
	atomic_store_release(&mm_hook, NULL);
	KEXPECT_EQ(t, flush_failed, 1);
}

static int flush_suite_init(struct ktest *t)
{
	return emul_suite_init(t);
}

static void flush_suite_exit(struct ktest *t)
{
	atomic_store_release(&mm_hook, NULL);
	swapt_exit(t);
}

/* An mm with a private region at REG whose first @n pages are written (value 100 + i). */
static struct mm *flush_mm_new(struct ktest *t, unsigned flags, unsigned n)
{
	struct mm *mm = NULL;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(mm, REG, MAPPING_SHARE_ALIGN, flags), 0);
	for (unsigned i = 0; i < n; i++)
		emul_write(t, mm, REG + i * KB4, 100 + i);
	return mm;
}

/* Swap-out: the copy is not final while a CPU may still write the page, so it stays mapped. */
static void test_race_flush_swap_out(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	unsigned type;
	struct page *p;
	struct mm *mm;
	int err;

	KASSERT(t, swapt_dev_new(t, 16, &type));
	mm = flush_mm_new(t, RW, 1);
	KASSERT(t, mm != NULL);
	p = emul_page_at(mm, REG, NULL);
	flush_fail_arm(0);
	err = swap_out_folio(mm, REG, 1, type);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, emul_page_at(mm, REG, NULL) == p);
	KEXPECT_EQ(t, page_ref_count(p), 1);
	KEXPECT_EQ(t, page_mapcount(p), 1);
	KEXPECT_EQ(t, emul_read(t, mm, REG), 100);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, swapt_dev_drain(type), 0);
	emul_snap_expect(t, before);
}

/* Fork: no child shares a page a CPU may still hold writable; the parent's page stays its own. */
static void test_race_flush_fork(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm = flush_mm_new(t, RW, 1), *child = NULL;
	struct page *p;
	int err;

	KASSERT(t, mm != NULL);
	p = emul_page_at(mm, REG, NULL);
	flush_fail_arm(0);
	err = mm_fork(mm, &child);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	if (!err)
		KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, page_ref_count(p), 1);
	KEXPECT_EQ(t, page_mapcount(p), 1);
	emul_write(t, mm, REG, 7); /* exclusive again: reused, not copied */
	KEXPECT(t, emul_page_at(mm, REG, NULL) == p);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

/* Write-protect reports the flush it could not complete. */
static void test_race_flush_cow_protect(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm = flush_mm_new(t, RW, 1);
	int err;

	KASSERT(t, mm != NULL);
	flush_fail_arm(0);
	err = mm_cow_protect(mm, REG, KB4);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

/* The frames of an unmap whose flush failed are quarantined: nothing else may reuse them. */
static void expect_quarantined(struct ktest *t, struct emul_snap before,
			       const struct quarantine_stats *q0)
{
	struct emul_snap after = emul_snap_take();
	struct quarantine_stats q1;

	quarantine_stats_get(&q1);
	KEXPECT_EQ(t, q1.frames - q0->frames, NPAGES);
	KEXPECT_EQ(t, q1.flushes - q0->flushes, 1);
	KEXPECT_EQ(t, after.free + (q1.frames - q0->frames) + (q1.tables - q0->tables),
		   before.free);
}

/* Unmap reports the failed flush; the region is gone all the same. */
static void test_race_flush_unmap(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm = flush_mm_new(t, RW, NPAGES);
	struct quarantine_stats q0;
	int err;

	KASSERT(t, mm != NULL);
	quarantine_stats_get(&q0);
	flush_fail_arm(0);
	err = mm_unmap_region(mm, REG, MAPPING_SHARE_ALIGN);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT_EQ(t, fault_handle_mm(mm, REG, FAULT_WRITE), -EFAULT);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	expect_quarantined(t, before, &q0);
}

/* The mapping's zap reports the failed flush of a region it zapped. */
static void test_race_flush_mapping_zap(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm = flush_mm_new(t, RW | MM_PT_SHAREABLE, NPAGES);
	/* Static: a mapping's attachment table and locks are too large for a kernel stack. */
	static struct mm_mapping m;
	struct quarantine_stats q0;
	int err;

	KASSERT(t, mm != NULL);
	mapping_init(&m, "race_flush", &fault_lock_ops_fixed);
	KASSERT_EQ(t, mapping_attach(&m, mm, REG), 0);
	quarantine_stats_get(&q0);
	flush_fail_arm(0);
	err = mapping_zap(&m, NULL);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, emul_page_at(mm, REG, NULL) == NULL);
	KEXPECT_EQ(t, mapping_detach(&m, mm, REG), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	expect_quarantined(t, before, &q0);
}

/* Teardown whose flush fails still completes: the mm is gone, its frames quarantined. */
static void test_race_flush_destroy(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm = flush_mm_new(t, RW, NPAGES);
	struct quarantine_stats q0;
	int err;

	KASSERT(t, mm != NULL);
	quarantine_stats_get(&q0);
	flush_fail_arm(0);
	err = mm_destroy(mm);
	flush_fail_stop(t);
	KEXPECT_EQ(t, err, 0);
	expect_quarantined(t, before, &q0);
}

static const struct ktest_case race_flush_cases[] = {
	KTEST_CASE(test_race_flush_swap_out),
	KTEST_CASE(test_race_flush_fork),
	KTEST_CASE(test_race_flush_cow_protect),
	KTEST_CASE(test_race_flush_unmap),
	KTEST_CASE(test_race_flush_mapping_zap),
	KTEST_CASE(test_race_flush_destroy),
};
KTEST_SUITE_EXT(race_flush, race_flush_cases, flush_suite_init, flush_suite_exit, NULL);
