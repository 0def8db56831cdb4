/*
 * Copy-on-write (mm/fork.c and mm/fault.c) with the MMU emulated in
 * software (tests/mm_emul.h): after mm_fork() private pages are shared
 * read-only and a write copies them, the last user reuses its page, shared
 * regions stay shared, mm_cow_protect() leads to reuse faults, and a
 * pinned page is copied at fork instead of shared; reference and map
 * counts and every word a page holds are checked throughout. Host and kernel.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"

#define REG 0x10000000ul
#define RW (MM_READ | MM_WRITE)

/* A parent with 4 private pages holding 100.. and a shared page holding 7, and its fork. */
struct cow_pair {
	struct mm *parent, *child;
	struct page *pp[4], *sp;
};

static bool cow_setup(struct ktest *t, struct cow_pair *c)
{
	unsigned prot;

	if (!KEXPECT_EQ(t, mm_create(&c->parent), 0))
		return false;
	KEXPECT_EQ(t, mm_map_region(c->parent, REG, 4 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_region(c->parent, REG + GB1, KB4, RW | MM_SHARED), 0);
	for (unsigned i = 0; i < 4; i++) {
		emul_write(t, c->parent, REG + i * KB4, 100 + i);
		c->pp[i] = emul_page_at(c->parent, REG + i * KB4, &prot);
	}
	emul_write(t, c->parent, REG + GB1, 7);
	c->sp = emul_page_at(c->parent, REG + GB1, &prot);
	return KEXPECT_EQ(t, mm_fork(c->parent, &c->child), 0);
}

/* Right after the fork: every private page mapped read-only by both, counted twice. */
static void test_mm_cow_fork_shares(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct cow_pair c;
	unsigned prot = 0;

	KASSERT(t, cow_setup(t, &c));
	KEXPECT_EQ(t, c.child->nregions, 2);
	for (unsigned i = 0; i < 4; i++) {
		KEXPECT_EQ(t, page_ref_count(c.pp[i]), 2);
		KEXPECT_EQ(t, page_mapcount(c.pp[i]), 2);
		KEXPECT(t, emul_page_at(c.child, REG + i * KB4, &prot) == c.pp[i]);
		KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ));
		KEXPECT(t, emul_page_at(c.parent, REG + i * KB4, &prot) == c.pp[i]);
		KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ));
		KEXPECT_EQ(t, emul_read(t, c.child, REG + i * KB4), 100 + i);
	}
	KEXPECT(t, emul_page_at(c.child, REG + GB1, &prot) == c.sp);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, page_mapcount(c.sp), 2);
	emul_write(t, c.child, REG + GB1, 8); /* shared pages stay shared */
	KEXPECT_EQ(t, emul_read(t, c.parent, REG + GB1), 8);
	KEXPECT_EQ(t, mm_destroy(c.child), 0);
	for (unsigned i = 0; i < 4; i++) {
		KEXPECT_EQ(t, page_ref_count(c.pp[i]), 1);
		KEXPECT_EQ(t, page_mapcount(c.pp[i]), 1);
	}
	KEXPECT_EQ(t, mm_destroy(c.parent), 0);
	emul_snap_expect(t, before);
}

/* Writes copy a shared page; its last user reuses it. */
static void test_mm_cow_fork_writes(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	u64 copies = fault_event_count(FAULT_EV_COW_COPY);
	u64 reuses = fault_event_count(FAULT_EV_COW_REUSE);
	struct cow_pair c;
	struct page *np;
	unsigned prot = 0;

	KASSERT(t, cow_setup(t, &c));
	emul_write(t, c.parent, REG, 555);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_COPY) - copies, 1);
	np = emul_page_at(c.parent, REG, &prot);
	KEXPECT(t, np != c.pp[0]);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, page_ref_count(np), 1);
	KEXPECT_EQ(t, page_mapcount(np), 1);
	KEXPECT_EQ(t, page_ref_count(c.pp[0]), 1);
	KEXPECT_EQ(t, page_mapcount(c.pp[0]), 1);
	KEXPECT_EQ(t, emul_read(t, c.child, REG), 100);
	KEXPECT_EQ(t, emul_read(t, c.parent, REG), 555);
	emul_write(t, c.child, REG, 666);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_REUSE) - reuses, 1);
	KEXPECT(t, emul_page_at(c.child, REG, &prot) == c.pp[0]);
	KEXPECT_EQ(t, mm_destroy(c.child), 0);
	emul_write(t, c.parent, REG + KB4, 9);
	KEXPECT(t, emul_page_at(c.parent, REG + KB4, &prot) == c.pp[1]);
	KEXPECT_EQ(t, emul_read(t, c.parent, REG + 2 * KB4), 102);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_COPY) - copies, 1);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_REUSE) - reuses, 2);
	KEXPECT_EQ(t, mm_destroy(c.parent), 0);
	emul_snap_expect(t, before);
}
static void test_mm_cow_protect(struct ktest *t)
{
	u64 reuses = fault_event_count(FAULT_EV_COW_REUSE);
	unsigned prot = 0;
	struct page *p;
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 2 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG + 2 * KB4, KB4, RW | MM_SHARED), 0);
	for (unsigned i = 0; i < 3; i++)
		emul_write(t, mm, REG + i * KB4, i);
	p = emul_page_at(mm, REG, &prot);
	KEXPECT_EQ(t, mm_cow_protect(mm, REG, 3 * KB4), 0);
	KEXPECT(t, emul_page_at(mm, REG + KB4, &prot) != NULL);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ));
	KEXPECT(t, emul_page_at(mm, REG + 2 * KB4, &prot) != NULL);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE)); /* shared: left alone */
	/* Nobody else maps it: the write reuses the page, no copy. */
	emul_write(t, mm, REG, 42);
	KEXPECT(t, emul_page_at(mm, REG, &prot) == p);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_REUSE) - reuses, 1);
	KEXPECT_EQ(t, page_ref_count(p), 1);
	KEXPECT_EQ(t, mm_cow_protect(mm, REG + 1, KB4), -EINVAL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* A page pinned in the parent is copied for the child at fork, never shared. */
static void test_mm_fork_pinned(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	u64 copies = fault_event_count(FAULT_EV_COW_COPY);
	struct mm *parent, *child;
	unsigned prot = 0;
	struct page *p, *c;

	KASSERT_EQ(t, mm_create(&parent), 0);
	KEXPECT_EQ(t, mm_map_region(parent, REG, 2 * KB4, RW), 0);
	emul_write(t, parent, REG, 5);
	emul_write(t, parent, REG + KB4, 6);
	p = emul_page_at(parent, REG, &prot);
	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, page_pin(p), 0);
	KASSERT_EQ(t, mm_fork(parent, &child), 0);
	c = emul_page_at(child, REG, &prot);
	KEXPECT(t, c != NULL && c != p);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, emul_read(t, child, REG), 5);
	KEXPECT(t, emul_page_at(parent, REG, &prot) == p);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, page_mapcount(p), 1);
	emul_write(t, parent, REG, 50);
	KEXPECT_EQ(t, emul_read(t, child, REG), 5);
	KEXPECT(t, emul_page_at(parent, REG, &prot) == p);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_COPY) - copies, 0);
	/* unpinned: shared */
	KEXPECT_EQ(t, page_mapcount(emul_page_at(parent, REG + KB4, &prot)), 2);
	KEXPECT_EQ(t, page_unpin(p), 0);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, mm_destroy(parent), 0);
	emul_snap_expect(t, before);
}

#define WORDS (KB4 / 8)

/* Writes @base + k to every word k of the page at @va of @mm. */
static void cow_fill(struct ktest *t, struct mm *mm, vaddr_t va, u64 base)
{
	for (unsigned k = 0; k < WORDS; k++)
		emul_write(t, mm, va + 8 * k, base + k);
}

/*
 * Expects every word k of the page at @va of @mm to hold @base + k, but
 * word @odd, which holds @oddval: one failure naming the first wrong word.
 */
static void cow_expect(struct ktest *t, struct mm *mm, vaddr_t va, u64 base, unsigned odd,
		       u64 oddval)
{
	unsigned wrong = 0, first = 0;
	u64 found = 0;

	for (unsigned k = 0; k < WORDS; k++) {
		u64 v = emul_read(t, mm, va + 8 * k);

		if (v != (k == odd ? oddval : base + k) && !wrong++) {
			first = k;
			found = v;
		}
	}
	if (wrong)
		ktest_log(t, "0x%lx+0x%x holds 0x%lx, expected 0x%lx (%u words wrong)",
			  (unsigned long)va, first * 8, (unsigned long)found,
			  (unsigned long)(first == odd ? oddval : base + first), wrong);
	KEXPECT_EQ(t, wrong, 0);
}

/*
 * What pages hold after fork: parent and child both read the content from
 * before it; a write copies the whole page and stays private to its
 * writer, in the parent or the child; the last user's write keeps the
 * page's content; a page pinned at fork is copied whole for the child.
 */
static void test_mm_cow_content(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	const unsigned none = WORDS;
	struct mm *parent, *child;
	unsigned prot = 0;
	struct page *pinned;

	KASSERT_EQ(t, mm_create(&parent), 0);
	KEXPECT_EQ(t, mm_map_region(parent, REG, 3 * KB4, RW), 0);
	for (unsigned i = 0; i < 3; i++)
		cow_fill(t, parent, REG + i * KB4, (u64)(i + 1) << 32);
	pinned = emul_page_at(parent, REG + 2 * KB4, &prot);
	KASSERT(t, pinned != NULL);
	KEXPECT_EQ(t, page_pin(pinned), 0);
	KASSERT_EQ(t, mm_fork(parent, &child), 0);
	for (unsigned i = 0; i < 3; i++)
		cow_expect(t, child, REG + i * KB4, (u64)(i + 1) << 32, none, 0);
	emul_write(t, parent, REG + 5 * 8, 0x55);
	cow_expect(t, parent, REG, 1ull << 32, 5, 0x55);
	cow_expect(t, child, REG, 1ull << 32, none, 0);
	emul_write(t, child, REG + KB4 + 7 * 8, 0x77);
	cow_expect(t, child, REG + KB4, 2ull << 32, 7, 0x77);
	cow_expect(t, parent, REG + KB4, 2ull << 32, none, 0);
	emul_write(t, child, REG + 9 * 8, 0x99); /* its last user: reused */
	cow_expect(t, child, REG, 1ull << 32, 9, 0x99);
	cow_expect(t, parent, REG, 1ull << 32, 5, 0x55);
	emul_write(t, parent, REG + 2 * KB4, 0x22);
	cow_expect(t, parent, REG + 2 * KB4, 3ull << 32, 0, 0x22);
	cow_expect(t, child, REG + 2 * KB4, 3ull << 32, none, 0);
	KEXPECT_EQ(t, page_unpin(pinned), 0);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, mm_destroy(parent), 0);
	emul_snap_expect(t, before);
}

static const struct ktest_case mm_cow_cases[] = {
	KTEST_CASE(test_mm_cow_fork_shares),
	KTEST_CASE(test_mm_cow_fork_writes),
	KTEST_CASE(test_mm_cow_protect),
	KTEST_CASE(test_mm_fork_pinned),
	KTEST_CASE(test_mm_cow_content),
};
KTEST_SUITE_EXT(mm_cow, mm_cow_cases, emul_suite_init, NULL, NULL);
