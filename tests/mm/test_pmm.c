/*
 * Tests for mm/pmm.c and mm/page.c against an independent per-frame oracle:
 * no frame handed out twice, buddies merge back, per-CPU caches stay bounded
 * and drain, bad frees are refused and counted, out-of-memory leaves the
 * allocator consistent, held-back high memory, pin accounting. On the host
 * each case gets a fresh allocator (tests/host/fake_arch.c); the kernel runs
 * only the cases that use their own allocations.
 */
#include "errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include <arch/arch.h>

#ifdef HOST_BUILD
#include <pthread.h>

#include "tests/host/fake_arch.h"

#define ARENA_FRAMES (FAKE_MEM_SIZE >> PAGE_SHIFT)
#define ARENA_PFN0 (FAKE_PHYS_BASE >> PAGE_SHIFT)
#define CONC_THREADS 4
#define CONC_STEPS 20000
#define CONC_HELD 64
#endif

static struct pmm_stats stats(void)
{
	struct pmm_stats s;

	pmm_stats_get(&s);
	return s;
}

static bool block_is_zero(const struct page *p, unsigned order)
{
	const u64 *w = page_address(p);
	u64 i, n = (PAGE_SIZE << order) / sizeof(*w);

	for (i = 0; i < n; i++)
		if (w[i])
			return false;
	return true;
}

static void test_pmm_orders_aligned(struct ktest *t)
{
	unsigned order;
	u64 i;

	for (order = 0; order <= PMM_MAX_ORDER; order++) {
		struct page *p = page_alloc(order, PMM_ZERO);

		KASSERT(t, p != NULL);
		KEXPECT(t, IS_ALIGNED(page_to_pfn(p), 1ull << order));
		KEXPECT(t, block_is_zero(p, order));
		KEXPECT_EQ(t, p->flags, PG_HEAD);
		KEXPECT_EQ(t, p->order, order);
		KEXPECT_EQ(t, page_ref_count(p), 1);
		for (i = 1; i < (1ull << order); i++)
			KEXPECT_EQ(t, p[i].flags, PG_TAIL);
		memset(page_address(p), 0xa5, PAGE_SIZE << order);
		KEXPECT_EQ(t, page_free(p, order), 0);
	}
	KEXPECT_EQ(t, page_alloc(PMM_MAX_ORDER + 1, 0), NULL);
}

static void test_pmm_zero(struct ktest *t)
{
	struct page *p = page_alloc(0, 0);

	KASSERT(t, p != NULL);
	memset(page_address(p), 0xff, PAGE_SIZE);
	KEXPECT_EQ(t, page_free(p, 0), 0);
	p = page_alloc(0, PMM_ZERO);
	KASSERT(t, p != NULL);
	KEXPECT(t, block_is_zero(p, 0));
	KEXPECT_EQ(t, page_free(p, 0), 0);
}

static void test_pmm_conversions(struct ktest *t)
{
	struct page *p = page_alloc(0, 0);
	u64 pfn;

	KASSERT(t, p != NULL);
	pfn = page_to_pfn(p);
	KEXPECT(t, pfn_valid(pfn));
	KEXPECT(t, !pfn_valid(mm_memmap_end_pfn));
	KEXPECT_EQ(t, pfn_to_page(pfn), p);
	KEXPECT_EQ(t, page_to_phys(p), pfn << PAGE_SHIFT);
	KEXPECT_EQ(t, phys_to_page(page_to_phys(p) + 123), p);
	KEXPECT_EQ(t, virt_to_phys(page_address(p)), page_to_phys(p));
	KEXPECT_EQ(t, phys_to_virt(page_to_phys(p)), page_address(p));
	*(volatile u64 *)page_address(p) = 42;
	KEXPECT_EQ(t, page_free(p, 0), 0);
}

static void test_pmm_double_free(struct ktest *t)
{
	struct pmm_stats before, after;
	struct page *p = page_alloc(0, 0), *q = page_alloc(3, 0);

	KASSERT(t, p && q);
	KEXPECT_EQ(t, page_free(p, 0), 0);
	KEXPECT_EQ(t, page_free(q, 3), 0);
	before = stats();
	KEXPECT_EQ(t, page_free(p, 0), -EINVAL);
	KEXPECT_EQ(t, page_free(q, 3), -EINVAL);
	KEXPECT_EQ(t, page_free(q + 5, 0), -EINVAL);
	after = stats();
	KEXPECT_EQ(t, after.errors - before.errors, 3);
	KEXPECT_EQ(t, after.free, before.free);
}

/* Frees that name something other than an allocated block's head, at the right order. */
static void test_pmm_free_not_owned(struct ktest *t)
{
	struct page local = { 0 };
	struct page *q = page_alloc(2, 0);
	struct page *memmap_frame = phys_to_page(virt_to_phys(mm_memmap));
	struct pmm_stats before, after;

	KASSERT(t, q != NULL);
	before = stats();
	KEXPECT_EQ(t, page_free(NULL, 0), -EINVAL);
	KEXPECT_EQ(t, page_free(&local, 0), -EINVAL);
	KEXPECT_EQ(t, page_free((struct page *)((char *)q + 8), 0), -EINVAL);
	KEXPECT_EQ(t, page_free(memmap_frame, 0), -EINVAL);
	KEXPECT_EQ(t, page_free(q + 1, 0), -EINVAL);
	KEXPECT_EQ(t, page_free(q, 1), -EINVAL);
	KEXPECT_EQ(t, page_free(q, PMM_MAX_ORDER + 1), -EINVAL);
	after = stats();
	KEXPECT_EQ(t, after.errors - before.errors, 7);
	KEXPECT_EQ(t, after.allocated, before.allocated);
	KEXPECT_EQ(t, page_free(q, 2), 0);
}

static void test_pmm_free_busy(struct ktest *t)
{
	struct page *p = page_alloc(0, 0), *q = page_alloc(2, 0);
	struct pmm_stats before;

	KASSERT(t, p && q);
	before = stats();
	page_map_inc(p);
	KEXPECT_EQ(t, page_free(p, 0), -EBUSY);
	KEXPECT_EQ(t, page_map_dec(p), 0);
	page_map_inc(&q[3]);
	KEXPECT_EQ(t, page_free(q, 2), -EBUSY);
	page_map_dec(&q[3]);
	KEXPECT_EQ(t, page_pin(p), 0);
	KEXPECT_EQ(t, page_free(p, 0), -EBUSY);
	KEXPECT_EQ(t, page_pin(q), 0);
	KEXPECT_EQ(t, page_free(q, 2), -EBUSY);
	KEXPECT_EQ(t, stats().errors - before.errors, 4);
	KEXPECT_EQ(t, stats().allocated, before.allocated);
	KEXPECT_EQ(t, page_unpin(p), 0);
	KEXPECT_EQ(t, page_unpin(q), 0);
	KEXPECT_EQ(t, page_free(p, 0), 0);
	KEXPECT_EQ(t, page_free(q, 2), 0);
}

/*
 * page_free_dropped(): a batch of frames whose last reference went comes
 * back at once (the cache stays under its high mark, the excess goes on to
 * the buddy lists); a frame still referenced or still mapped in the batch
 * is refused, counted and left as it was, and the rest still go.
 */
static void test_pmm_free_dropped(struct ktest *t)
{
	enum { N = 200 };
	static struct page *batch[N + 2];
	struct page *ref = NULL, *mapped = NULL;
	struct pmm_stats before, after;

	for (unsigned i = 0; i < N; i++) {
		KASSERT(t, (batch[i] = page_alloc(0, 0)) != NULL);
		KEXPECT(t, page_ref_dec_and_test(batch[i]));
	}
	KASSERT(t, (ref = page_alloc(0, 0)) && (mapped = page_alloc(0, 0)));
	page_map_inc(mapped);
	KEXPECT(t, page_ref_dec_and_test(mapped));
	batch[N] = ref;
	batch[N + 1] = mapped;
	before = stats();
	KEXPECT_EQ(t, page_free_dropped(batch, N + 2), N);
	after = stats();
	KEXPECT_EQ(t, after.errors - before.errors, 2);
	KEXPECT_EQ(t, after.free - before.free, N);
	KEXPECT_LE(t, after.pcp, PMM_PCP_HIGH);
	for (unsigned i = 0; i < N; i++)
		KEXPECT(t, page_test_flags(batch[i], PG_FREED) &&
			       !page_test_flags(batch[i], PG_HEAD));
	KEXPECT(t, page_test_flags(ref, PG_HEAD) && page_ref_count(ref) == 1);
	KEXPECT(t, page_test_flags(mapped, PG_HEAD) && page_mapcount(mapped) == 1);
	KEXPECT_EQ(t, page_free(ref, 0), 0);
	KEXPECT_EQ(t, page_map_dec(mapped), 0);
	KEXPECT_EQ(t, page_free(mapped, 0), 0);
	KEXPECT_EQ(t, page_free_dropped(batch, 0), 0);
}

static void test_pmm_pin_accounting(struct ktest *t)
{
	struct page *p = page_alloc(0, 0), *q = page_alloc(3, 0);

	KASSERT(t, p && q);
	KEXPECT(t, !page_pinned(p));
	KEXPECT_EQ(t, page_pin(p), 0);
	KEXPECT_EQ(t, page_pin(p), 0);
	KEXPECT_EQ(t, page_ref_count(p), 1 + 2 * PIN_BIAS);
	KEXPECT_EQ(t, page_pin_count(p), 2);
	KEXPECT(t, page_pinned(p));
	KEXPECT_EQ(t, page_pin(q), 0);
	KEXPECT_EQ(t, q->pincount, 1);
	KEXPECT_EQ(t, page_ref_count(q), 2);
	KEXPECT_EQ(t, page_pin_count(q), 1);
	KEXPECT_EQ(t, page_pin(q + 1), -EINVAL);
	KEXPECT_EQ(t, page_unpin(q), 0);
	KEXPECT_EQ(t, page_unpin(q), -EINVAL);
	KEXPECT_EQ(t, page_ref_count(q), 1);
	KEXPECT_EQ(t, page_unpin(p), 0);
	KEXPECT_EQ(t, page_unpin(p), 0);
	KEXPECT_EQ(t, page_unpin(p), -EINVAL);
	KEXPECT(t, !page_pinned(p));
	/* The documented limit: no pin may take the refcount past PAGE_REF_MAX. */
	p->refcount = PAGE_REF_MAX - PIN_BIAS;
	KEXPECT_EQ(t, page_pin(p), 0);
	KEXPECT_EQ(t, page_pin(p), -EOVERFLOW);
	KEXPECT_EQ(t, page_ref_count(p), PAGE_REF_MAX);
	p->refcount = 1;
	KEXPECT_EQ(t, page_free(p, 0), 0);
	KEXPECT_EQ(t, page_free(q, 3), 0);
	KEXPECT_EQ(t, page_pin(p), -EINVAL);
}

/* A pin that outlives every other reference frees the block when it is dropped. */
static void test_pmm_unpin_frees_last_ref(struct ktest *t)
{
	u64 free0 = stats().free, errors0 = stats().errors;
	struct page *p = page_alloc(0, 0), *q = page_alloc(3, 0);

	KASSERT(t, p && q);
	KEXPECT_EQ(t, page_pin(p), 0);
	KEXPECT_EQ(t, page_pin(q), 0);
	/* The owner lets go (an unmap): only the pins keep the frames. */
	KEXPECT(t, !page_ref_dec_and_test(p));
	KEXPECT(t, !page_ref_dec_and_test(q));
	KEXPECT_EQ(t, stats().free, free0 - 1 - 8);
	KEXPECT_EQ(t, page_unpin(p), 0);
	KEXPECT_EQ(t, page_unpin(q), 0);
	KEXPECT(t, page_test_flags(p, PG_FREED));
	KEXPECT(t, page_test_flags(q, PG_FREED));
	KEXPECT_EQ(t, stats().free, free0);
	KEXPECT_EQ(t, stats().errors, errors0);
}

static void test_pmm_inject(struct ktest *t)
{
	struct page *a, *b, *c, *d;

	pmm_inject_fail(2, 1);
	a = page_alloc(0, 0);
	b = page_alloc(1, 0);
	c = page_alloc(0, 0);
	d = page_alloc(0, 0);
	pmm_inject_fail(0, 0);
	KEXPECT(t, a && b && d);
	KEXPECT_EQ(t, c, NULL);
	KEXPECT_EQ(t, page_free(a, 0), 0);
	KEXPECT_EQ(t, page_free(b, 1), 0);
	KEXPECT_EQ(t, page_free(d, 0), 0);
}

/*
 * pmm_sort_free_lists(): the next allocations depend on which frames are
 * free, not on the order they were freed in (the harness's start of every
 * exact-mode run). Odd frames freed ascending, then descending, around a
 * kept even one each: both times the same frames come back in order.
 */
static void test_pmm_sorted_lists_repeat(struct ktest *t)
{
	static struct page *frames[64], *seq[2][32];
	unsigned i, pass;

	for (i = 0; i < 64; i++)
		KASSERT(t, (frames[i] = page_alloc(0, 0)) != NULL);
	for (i = 1; i < 64; i += 2)
		KEXPECT_EQ(t, page_free(frames[i], 0), 0);
	for (pass = 0; pass < 2; pass++) {
		pmm_drain_all();
		pmm_sort_free_lists();
		for (i = 0; i < 32; i++)
			KASSERT(t, (seq[pass][i] = page_alloc(0, 0)) != NULL);
		for (i = 0; i < 32; i++) /* the reverse of the order they came in */
			KEXPECT_EQ(t, page_free(seq[pass][31 - i], 0), 0);
	}
	for (i = 0; i < 32; i++)
		KEXPECT(t, seq[0][i] == seq[1][i]);
	for (i = 0; i < 64; i += 2)
		KEXPECT_EQ(t, page_free(frames[i], 0), 0);
	pmm_drain_all();
}

#ifdef HOST_BUILD

static u64 rng_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static struct page *held[ARENA_FRAMES];
static u8 owner[ARENA_FRAMES];

static bool in_ranges(const struct pmm_range *r, unsigned n, paddr_t lo, paddr_t hi)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (r[i].start <= lo && hi <= r[i].end)
			return true;
	return false;
}

static bool overlaps(const struct pmm_range *r, unsigned n, paddr_t lo, paddr_t hi)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (r[i].start < hi && lo < r[i].end)
			return true;
	return false;
}

/* The oracle: is the frame at @pfn one the allocator should manage (memmap aside)? */
static bool frame_managed(u64 pfn)
{
	paddr_t lo = pfn << PAGE_SHIFT, hi = lo + PAGE_SIZE;
	paddr_t mm_lo = virt_to_phys(mm_memmap);
	paddr_t mm_hi = mm_lo + stats().memmap_frames * PAGE_SIZE;

	if (lo >= mm_lo && lo < mm_hi)
		return false;
	return in_ranges(fake_usable, fake_nusable, lo, hi) &&
	       !overlaps(fake_reserved, fake_nreserved, lo, hi);
}

static u64 oracle_count(u64 lo_pfn, u64 hi_pfn)
{
	u64 pfn, n = 0;

	for (pfn = lo_pfn; pfn < hi_pfn; pfn++)
		n += frame_managed(pfn);
	return n;
}

static bool layout_equal(const struct pmm_stats *a, const struct pmm_stats *b)
{
	return memcmp(a->blocks, b->blocks, sizeof(a->blocks)) == 0;
}

/* Allocates order-0 frames until none is left; returns how many. */
static u64 alloc_all(void)
{
	u64 n = 0;
	struct page *p;

	while ((p = page_alloc(0, 0)))
		held[n++] = p;
	return n;
}

static void free_all(struct ktest *t, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		KEXPECT_EQ(t, page_free(held[i], 0), 0);
}

static void test_pmm_init_layout(struct ktest *t)
{
	struct pmm_stats s = stats();
	u64 span = s.end_pfn - s.start_pfn, pfn, sum = 0, wrong = 0;
	unsigned o;

	KEXPECT_EQ(t, s.start_pfn, ARENA_PFN0);
	KEXPECT_EQ(t, s.end_pfn, ARENA_PFN0 + ARENA_FRAMES);
	KEXPECT_EQ(t, s.memmap_frames, ALIGN_UP(span * sizeof(struct page), PAGE_SIZE) / PAGE_SIZE);
	KEXPECT_EQ(t, s.managed, oracle_count(s.start_pfn, s.end_pfn));
	KEXPECT_EQ(t, s.free, s.managed);
	KEXPECT_EQ(t, s.allocated, 0);
	KEXPECT_EQ(t, s.pcp + s.errors + s.held_back, 0);
	for (o = 0; o <= PMM_MAX_ORDER; o++)
		sum += s.blocks[o] << o;
	KEXPECT_EQ(t, sum, s.free);
	KEXPECT_GT(t, s.blocks[PMM_MAX_ORDER], 0);
	for (pfn = s.start_pfn; pfn < s.end_pfn; pfn++)
		wrong += page_test_flags(pfn_to_page(pfn), PG_RESERVED) == frame_managed(pfn);
	KEXPECT_EQ(t, wrong, 0);
	ktest_log(t, "%lu frames managed, %lu holding the memmap", s.managed, s.memmap_frames);
}

static void test_pmm_init_rejects(struct ktest *t)
{
	struct pmm_range all = { FAKE_PHYS_BASE, FAKE_PHYS_BASE + FAKE_MEM_SIZE };
	struct pmm_config cfg = { .usable = fake_usable, .reserved = fake_reserved,
				  .nreserved = fake_nreserved };

	KEXPECT_EQ(t, pmm_init(&cfg), -EINVAL);
	cfg = (struct pmm_config){ .usable = fake_usable, .nusable = fake_nusable,
				   .reserved = &all, .nreserved = 1 };
	KEXPECT_EQ(t, pmm_init(&cfg), -EINVAL);
	cfg = (struct pmm_config){ .usable = fake_usable, .nusable = PMM_MAX_USABLE + 1,
				   .reserved = fake_reserved, .nreserved = 1 };
	KEXPECT_EQ(t, pmm_init(&cfg), -EINVAL);
	cfg = (struct pmm_config){ .usable = fake_usable, .nusable = fake_nusable,
				   .nnode_ranges = PMM_MAX_NODE_RANGES + 1 };
	KEXPECT_EQ(t, pmm_init(&cfg), -EINVAL);
	/* The memmap (192 frames) cannot fit below a 64 KiB direct map. */
	cfg = (struct pmm_config){ .usable = fake_usable, .nusable = fake_nusable,
				   .reserved = fake_reserved, .nreserved = fake_nreserved,
				   .direct_limit = FAKE_PHYS_BASE + 0x10000 };
	KEXPECT_EQ(t, pmm_init(&cfg), -ENOMEM);
	KEXPECT_EQ(t, page_alloc(0, 0), NULL);
	KEXPECT_EQ(t, fake_pmm_init(0), 0);
	KEXPECT(t, page_alloc(0, 0) != NULL);
}

static void test_pmm_alloc_all_unique(struct ktest *t)
{
	struct pmm_stats s0 = stats(), s1;
	u64 n, i, dup = 0, bad = 0;

	memset(owner, 0, sizeof(owner));
	n = alloc_all();
	for (i = 0; i < n; i++) {
		u64 pfn = page_to_pfn(held[i]);

		bad += !frame_managed(pfn);
		dup += owner[pfn - ARENA_PFN0]++ != 0;
	}
	KEXPECT_EQ(t, n, s0.managed);
	KEXPECT_EQ(t, dup, 0);
	KEXPECT_EQ(t, bad, 0);
	s1 = stats();
	KEXPECT_EQ(t, s1.free, 0);
	KEXPECT_EQ(t, s1.allocated, s0.managed);
	KEXPECT_EQ(t, page_alloc(0, 0), NULL);
	KEXPECT_EQ(t, page_alloc(3, 0), NULL);
	KEXPECT_EQ(t, stats().failed - s1.failed, 2);
	free_all(t, n);
	pmm_drain_all();
	s1 = stats();
	KEXPECT_EQ(t, s1.free, s0.managed);
	KEXPECT(t, layout_equal(&s0, &s1));
}

static void test_pmm_buddies_merge(struct ktest *t)
{
	static unsigned orders[256];
	struct pmm_stats s0 = stats(), s1;
	u64 seed = 5, i, n = 0;

	for (i = 0; i < 4000; i++) {
		u64 r = rng_next(&seed);

		if (n < ARRAY_SIZE(orders) && (r & 1)) {
			unsigned order = (r >> 8) % 7;
			struct page *p = page_alloc(order, 0);

			KASSERT(t, p != NULL);
			held[n] = p;
			orders[n++] = order;
		} else if (n > 0) {
			u64 k = (r >> 16) % n;

			KEXPECT_EQ(t, page_free(held[k], orders[k]), 0);
			held[k] = held[--n];
			orders[k] = orders[n];
		}
	}
	while (n-- > 0)
		KEXPECT_EQ(t, page_free(held[n], orders[n]), 0);
	pmm_drain_all();
	s1 = stats();
	KEXPECT_EQ(t, s1.free, s0.managed);
	KEXPECT_EQ(t, s1.errors, 0);
	KEXPECT(t, layout_equal(&s0, &s1));
}

static void test_pmm_pcp(struct ktest *t)
{
	struct pmm_stats s0 = stats(), s1;
	struct page *p = page_alloc(0, 0);
	u64 i;

	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, stats().pcp, PMM_PCP_BATCH - 1);
	KEXPECT_EQ(t, page_free(p, 0), 0);
	KEXPECT_EQ(t, stats().pcp, PMM_PCP_BATCH);
	for (i = 0; i < 200; i++)
		KASSERT(t, (held[i] = page_alloc(0, 0)) != NULL);
	free_all(t, 200);
	KEXPECT_LE(t, stats().pcp, PMM_PCP_HIGH);
	fake_arch_set_cpu(3);
	KASSERT(t, (p = page_alloc(0, 0)) != NULL);
	KEXPECT_EQ(t, page_free(p, 0), 0);
	fake_arch_set_cpu(0);
	pmm_drain_cpu(0);
	KEXPECT_EQ(t, stats().pcp, PMM_PCP_BATCH);
	pmm_drain_all();
	s1 = stats();
	KEXPECT_EQ(t, s1.pcp, 0);
	KEXPECT_EQ(t, s1.free, s0.managed);
	KEXPECT(t, layout_equal(&s0, &s1));
}

static void test_pmm_free_never_allocated(struct ktest *t)
{
	struct pmm_stats s = stats();
	u64 pfn = s.end_pfn - 1, warns = fake_warn_calls;

	while (!frame_managed(pfn))
		pfn--;
	KEXPECT_EQ(t, page_free(pfn_to_page(pfn), 0), -EINVAL);
	KEXPECT_EQ(t, page_free(pfn_to_page(s.start_pfn + 400), 0), -EINVAL);
	KEXPECT_EQ(t, stats().errors, 2);
	KEXPECT_EQ(t, fake_warn_calls - warns, 2);
	KEXPECT_EQ(t, stats().free, s.free);
}

static void test_pmm_oom(struct ktest *t)
{
	struct pmm_stats s0 = stats(), s1;
	struct page *p;
	u64 n = alloc_all();

	KEXPECT_EQ(t, n, s0.managed);
	KEXPECT_EQ(t, page_alloc(0, PMM_ZERO), NULL);
	KEXPECT_EQ(t, page_alloc(PMM_MAX_ORDER, 0), NULL);
	KEXPECT_EQ(t, stats().failed, 3); /* alloc_all's last call too */
	KEXPECT_EQ(t, page_free(held[--n], 0), 0);
	p = page_alloc(0, 0);
	KEXPECT(t, p != NULL);
	KEXPECT_EQ(t, page_alloc(0, 0), NULL);
	if (p)
		held[n++] = p;
	free_all(t, n);
	pmm_drain_all();
	s1 = stats();
	KEXPECT_EQ(t, s1.free, s0.managed);
	KEXPECT(t, layout_equal(&s0, &s1));
}

/* A high-order request must drain other CPUs' caches before it gives up. */
static void test_pmm_oom_drains_caches(struct ktest *t)
{
	struct pmm_stats s0 = stats();
	u64 n = alloc_all(), k = 0;
	struct page *p;

	fake_arch_set_cpu(1);
	free_all(t, n);
	fake_arch_set_cpu(0);
	KEXPECT_GT(t, stats().pcp, 0);
	while ((p = page_alloc(PMM_MAX_ORDER, 0)))
		held[k++] = p;
	KEXPECT_EQ(t, k, s0.blocks[PMM_MAX_ORDER]);
	KEXPECT_EQ(t, stats().pcp, 0);
	while (k-- > 0)
		KEXPECT_EQ(t, page_free(held[k], PMM_MAX_ORDER), 0);
}

static void test_pmm_held_back(struct ktest *t)
{
	paddr_t limit = FAKE_PHYS_BASE + 32 * (1ull << 20);
	u64 lim_pfn = limit >> PAGE_SHIFT, n, i, high = 0;
	struct pmm_stats s;

	KASSERT_EQ(t, fake_pmm_init(limit), 0);
	s = stats();
	KEXPECT_LT(t, virt_to_phys(mm_memmap), limit);
	KEXPECT_EQ(t, s.managed, oracle_count(s.start_pfn, lim_pfn));
	KEXPECT_EQ(t, s.held_back, oracle_count(lim_pfn, s.end_pfn));
	n = alloc_all();
	KEXPECT_EQ(t, n, s.managed);
	for (i = 0; i < n; i++)
		high += page_to_pfn(held[i]) >= lim_pfn;
	KEXPECT_EQ(t, high, 0);
	free_all(t, n);
	KEXPECT_EQ(t, pmm_release_high(), s.held_back);
	KEXPECT_EQ(t, pmm_release_high(), 0);
	KEXPECT_EQ(t, stats().managed, s.managed + s.held_back);
	KEXPECT_EQ(t, stats().held_back, 0);
	n = alloc_all();
	KEXPECT_EQ(t, n, s.managed + s.held_back);
	free_all(t, n);
}

struct conc_arg {
	unsigned cpu;
	u64 clashes, failures;
};

static void conc_claim(struct conc_arg *a, struct page *p, unsigned order, u8 v)
{
	u64 i, pfn = page_to_pfn(p) - ARENA_PFN0;

	for (i = 0; i < (1ull << order); i++)
		if (atomic_xchg(&owner[pfn + i], v) == v)
			a->clashes++;
}

static void *conc_thread(void *p)
{
	struct conc_arg *a = p;
	struct page *mine[CONC_HELD];
	unsigned orders[CONC_HELD], n = 0, i;
	u64 seed = a->cpu + 1;

	fake_arch_set_cpu(a->cpu);
	for (i = 0; i < CONC_STEPS; i++) {
		u64 r = rng_next(&seed);
		unsigned k = n ? (unsigned)((r >> 20) % n) : 0;

		if (n < CONC_HELD && (r & 3)) {
			orders[n] = (r >> 8) % 4;
			mine[n] = page_alloc(orders[n], 0);
			if (mine[n])
				conc_claim(a, mine[n], orders[n], 1);
			n += mine[n] != NULL;
			continue;
		}
		if (!n)
			continue;
		conc_claim(a, mine[k], orders[k], 0);
		a->failures += page_free(mine[k], orders[k]) != 0;
		mine[k] = mine[--n];
		orders[k] = orders[n];
	}
	while (n-- > 0) {
		conc_claim(a, mine[n], orders[n], 0);
		a->failures += page_free(mine[n], orders[n]) != 0;
	}
	return NULL;
}

static void test_pmm_concurrent(struct ktest *t)
{
	struct conc_arg args[CONC_THREADS];
	pthread_t th[CONC_THREADS];
	struct pmm_stats s0 = stats(), s1;
	unsigned i;

	memset(owner, 0, sizeof(owner));
	for (i = 0; i < CONC_THREADS; i++) {
		args[i] = (struct conc_arg){ .cpu = i };
		KASSERT_EQ(t, pthread_create(&th[i], NULL, conc_thread, &args[i]), 0);
	}
	for (i = 0; i < CONC_THREADS; i++) {
		pthread_join(th[i], NULL);
		KEXPECT_EQ(t, args[i].clashes, 0);
		KEXPECT_EQ(t, args[i].failures, 0);
	}
	pmm_drain_all();
	s1 = stats();
	KEXPECT_EQ(t, s1.free, s0.managed);
	KEXPECT_EQ(t, s1.errors, 0);
	KEXPECT(t, layout_equal(&s0, &s1));
}

#else /* kernel: the live allocator cannot be reset */

#define HOST_ONLY(fn)                                                                              \
	static void fn(struct ktest *t)                                                            \
	{                                                                                          \
		ktest_skip(t, "needs a fresh allocator over the fake arena (host only)");          \
	}
HOST_ONLY(test_pmm_init_layout)
HOST_ONLY(test_pmm_init_rejects)
HOST_ONLY(test_pmm_alloc_all_unique)
HOST_ONLY(test_pmm_buddies_merge)
HOST_ONLY(test_pmm_pcp)
HOST_ONLY(test_pmm_free_never_allocated)
HOST_ONLY(test_pmm_oom)
HOST_ONLY(test_pmm_oom_drains_caches)
HOST_ONLY(test_pmm_held_back)
HOST_ONLY(test_pmm_concurrent)

#endif

static const struct ktest_case pmm_cases[] = {
	KTEST_CASE(test_pmm_init_layout),
	KTEST_CASE(test_pmm_init_rejects),
	KTEST_CASE(test_pmm_orders_aligned),
	KTEST_CASE(test_pmm_zero),
	KTEST_CASE(test_pmm_conversions),
	KTEST_CASE(test_pmm_alloc_all_unique),
	KTEST_CASE(test_pmm_buddies_merge),
	KTEST_CASE(test_pmm_pcp),
	KTEST_CASE(test_pmm_sorted_lists_repeat),
	KTEST_CASE(test_pmm_double_free),
	KTEST_CASE(test_pmm_free_never_allocated),
	KTEST_CASE(test_pmm_free_not_owned),
	KTEST_CASE(test_pmm_free_busy),
	KTEST_CASE(test_pmm_free_dropped),
	KTEST_CASE(test_pmm_pin_accounting),
	KTEST_CASE(test_pmm_unpin_frees_last_ref),
	KTEST_CASE(test_pmm_oom),
	KTEST_CASE(test_pmm_oom_drains_caches),
	KTEST_CASE(test_pmm_inject),
	KTEST_CASE(test_pmm_held_back),
	KTEST_CASE(test_pmm_concurrent),
};
KTEST_SUITE_EXT(pmm, pmm_cases, mm_test_fresh_pmm, NULL, NULL);
