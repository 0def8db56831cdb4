/*
 * Tests for mm/swap/swap_mm.c: folios swapped out and back in through
 * faults, every byte checked; the slots an unmap frees; failures that leave
 * the mapping as it was; fork sharing slots; the freeing designs ending in
 * the same state; several CPUs swapping at once (kernel). Host and kernel,
 * through the software MMU of tests/mm_emul.h.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "lib/string.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/swap/swap.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"
#include "tests/test_swap.h"

#define REG 0x40000000ul
#define FOLIO SWAP_FOLIO_SLOTS
#define FOLIO_ORDER 4
#define FOLIO_BYTES ((u64)FOLIO * KB4)
#define NFOLIOS 8
#define NPAGES (NFOLIOS * FOLIO)
#define RW (MM_READ | MM_WRITE)

BUILD_ASSERT(FOLIO == 1u << FOLIO_ORDER);

static int swapmm_init(struct ktest *t)
{
	return emul_suite_init(t);
}

static void swapmm_exit(struct ktest *t)
{
	swapt_exit(t);
}

static vaddr_t page_va(unsigned i)
{
	return REG + (vaddr_t)i * KB4;
}

/* A private region of @npages pages filled with folios, each page with its own pattern. */
static struct mm *swapmm_mm_new(struct ktest *t, unsigned npages, u64 seed)
{
	struct mm *mm = NULL;
	unsigned i;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(mm, REG, (u64)npages * KB4, RW), 0);
	KEXPECT_EQ(t, mm_populate_folios(mm, REG, (u64)npages * KB4, FOLIO_ORDER), 0);
	for (i = 0; i < npages; i++) {
		struct page *p = emul_page_at(mm, page_va(i), NULL);

		if (KEXPECT(t, p != NULL))
			swapt_fill(page_address(p), seed + i);
	}
	return mm;
}

/* Checksums of the pages now mapped (0 for a page that is not present). */
static void swapmm_sums(struct mm *mm, unsigned npages, u64 *sums)
{
	for (unsigned i = 0; i < npages; i++) {
		struct page *p = emul_page_at(mm, page_va(i), NULL);

		sums[i] = p ? swapt_checksum(page_address(p)) : 0;
	}
}

/* Every page reads back through a fault and holds what swapt_fill(seed + i) wrote. */
static void swapmm_expect_contents(struct ktest *t, struct mm *mm, unsigned npages, u64 seed)
{
	static u64 page[KB4 / sizeof(u64)];
	unsigned i, bad = 0;

	for (i = 0; i < npages; i++) {
		struct page *p;

		(void)emul_read(t, mm, page_va(i));
		p = emul_page_at(mm, page_va(i), NULL);
		swapt_fill(page, seed + i);
		bad += !p || swapt_checksum(page_address(p)) != swapt_checksum(page);
	}
	KEXPECT_EQ(t, bad, 0);
}

static unsigned swapmm_present(struct mm *mm, unsigned npages)
{
	unsigned n = 0;

	for (unsigned i = 0; i < npages; i++)
		n += emul_page_at(mm, page_va(i), NULL) != NULL;
	return n;
}

static u64 swapmm_inuse(unsigned type)
{
	struct swap_stats s = { 0 };

	swap_stats_get(type, &s);
	return s.inuse;
}

static int swapmm_out_all(struct mm *mm, unsigned nfolios, unsigned type)
{
	int err = 0;

	for (unsigned f = 0; f < nfolios && !err; f++)
		err = swap_out_folio(mm, REG + f * FOLIO_BYTES, FOLIO, type);
	return err;
}

/* Out and back in: every page comes back byte for byte, every slot is freed. */
static void test_swap_mm_roundtrip(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	u64 outs = swapt_counter(PCPU_SWAP_OUT_PAGES), ins = fault_event_count(FAULT_EV_SWAPIN);
	unsigned type;
	struct mm *mm;

	KASSERT(t, swapt_dev_new(t, 4 * NPAGES, &type));
	mm = swapmm_mm_new(t, NPAGES, 1000);
	KASSERT(t, mm != NULL);
	KEXPECT_EQ(t, swapmm_out_all(mm, NFOLIOS, type), 0);
	KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_OUT_PAGES) - outs, NPAGES);
	KEXPECT_EQ(t, swapmm_present(mm, NPAGES), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), NPAGES);
	swapt_expect_consistent(t, type);
	swapmm_expect_contents(t, mm, NPAGES, 1000);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_SWAPIN) - ins, NPAGES);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	swapt_expect_consistent(t, type);
	/* Swapped in, out again, in again: the pages are ordinary pages once more. */
	KEXPECT_EQ(t, swapmm_out_all(mm, NFOLIOS, type), 0);
	swapmm_expect_contents(t, mm, NPAGES, 1000);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	KEXPECT_EQ(t, swapt_dev_drain(type), 0);
	emul_snap_expect(t, before);
}

/* Unmapping swapped-out folios frees every slot, with each design's exact lock round trips. */
static void test_swap_mm_unmap_locks(struct ktest *t)
{
	unsigned d, type;

	KASSERT(t, swapt_dev_new(t, 4 * NPAGES, &type));
	for (d = 0; swap_free_designs[d]; d++) {
		const struct swap_free_ops *ops = swap_free_of(swap_free_designs[d]);
		struct mm *mm = swapmm_mm_new(t, NPAGES, 2000);
		/* The promise counts per slot, or per folio (its FOLIO slots). */
		u64 per_unit = design_promise(&ops->d, PCPU_SWAP_CLUSTER_LOCKS)->count;
		u64 cl, dl, freed;
		u64 per_folio = strcmp(ops->d.unit, "folio") == 0 ? per_unit : FOLIO * per_unit;

		KASSERT(t, mm != NULL);
		KEXPECT_EQ(t, swapmm_out_all(mm, NFOLIOS, type), 0);
		swap_mm_set_free(mm, ops);
		cl = swapt_counter(PCPU_SWAP_CLUSTER_LOCKS);
		dl = swapt_counter(PCPU_SWAP_DEVICE_LOCKS);
		freed = swapt_counter(PCPU_SWAP_SLOTS_FREED);
		KEXPECT_EQ(t, mm_unmap_region(mm, REG, (u64)NPAGES * KB4), 0);
		ktest_log(t, "%s: %lu cluster and %lu device locks for %u folios", ops->d.name,
			  (unsigned long)(swapt_counter(PCPU_SWAP_CLUSTER_LOCKS) - cl),
			  (unsigned long)(swapt_counter(PCPU_SWAP_DEVICE_LOCKS) - dl), NFOLIOS);
		KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_CLUSTER_LOCKS) - cl, NFOLIOS * per_folio);
		/*
		 * A design promising its own device locks (cluster) takes one
		 * only to relist: the NPAGES slots share one cluster that is
		 * never full, so only the free that empties it does.
		 */
		KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_DEVICE_LOCKS) - dl,
			   design_promise(&ops->d, PCPU_SWAP_DEVICE_LOCKS) ? 1 :
			   NFOLIOS * per_folio);
		KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_SLOTS_FREED) - freed, NPAGES);
		KEXPECT_EQ(t, swapmm_inuse(type), 0);
		swapt_expect_consistent(t, type);
		KEXPECT_EQ(t, mm_destroy(mm), 0);
	}
}

/*
 * Pages swapped out one by one get single slots, consecutive here, in a
 * cluster claimed for single slots: unmap frees them one at a time even
 * with batched, since a run is never longer than what its cluster hands out.
 */
static void test_swap_mm_unmap_singles(struct ktest *t)
{
	unsigned i, type;
	struct mm *mm;
	u64 cl;

	KASSERT(t, swapt_dev_new(t, 4 * FOLIO, &type));
	mm = swapmm_mm_new(t, FOLIO, 2500);
	KASSERT(t, mm != NULL);
	for (i = 0; i < FOLIO; i++)
		KEXPECT_EQ(t, swap_out_folio(mm, page_va(i), 1, type), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), FOLIO);
	/* Consecutive slots, so only the cluster's order keeps them from one run. */
	for (i = 0; i < FOLIO; i++) {
		u64 swp = 0;
		swp_entry_t e = { 0 };

		KEXPECT_EQ(t, pt_swap_lookup(mm->root, page_va(i), &swp), 0);
		KEXPECT(t, swap_entry_from_word(swp, &e));
		KEXPECT_EQ(t, swap_entry_offset(e), i);
	}
	swap_mm_set_free(mm, &swap_free_ops_batched);
	cl = swapt_counter(PCPU_SWAP_CLUSTER_LOCKS);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, FOLIO_BYTES), 0);
	KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_CLUSTER_LOCKS) - cl, FOLIO);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * tlb_unmap_pages() of swapped-out pages frees their slots, through every
 * shootdown design of the table (the control too: slots do not depend on
 * the flush): its gather is mm_gather_init()'s, swap hook included.
 */
static void test_swap_mm_tlb_unmap_frees_slots(struct ktest *t)
{
	unsigned d, type;

	KASSERT(t, swapt_dev_new(t, 4 * NPAGES, &type));
	for (d = 0; tlb_designs[d]; d++) {
		struct mm *mm = swapmm_mm_new(t, NPAGES, 2700 + d);
		u64 freed = swapt_counter(PCPU_SWAP_SLOTS_FREED);

		KASSERT(t, mm != NULL);
		KEXPECT_EQ(t, swapmm_out_all(mm, NFOLIOS, type), 0);
		KEXPECT_EQ(t, swapmm_inuse(type), NPAGES);
		KEXPECT_EQ(t, tlb_unmap_pages(mm, REG, NPAGES, tlb_ops_of(tlb_designs[d])), 0);
		KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_SLOTS_FREED) - freed, NPAGES);
		KEXPECT_EQ(t, swapmm_inuse(type), 0);
		swapt_expect_consistent(t, type);
		KEXPECT_EQ(t, mm_destroy(mm), 0);
	}
}

/* No run of slots left: the swap-out fails and the folio stays mapped as it was. */
static void test_swap_mm_out_of_swap(struct ktest *t)
{
	u64 sums[NPAGES], after[NPAGES];
	unsigned type;
	struct mm *mm;

	KASSERT(t, swapt_dev_new(t, FOLIO + FOLIO / 2, &type));
	mm = swapmm_mm_new(t, 2 * FOLIO, 3000);
	KASSERT(t, mm != NULL);
	swapmm_sums(mm, 2 * FOLIO, sums);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, FOLIO, type), 0);
	KEXPECT_EQ(t, swap_out_folio(mm, REG + FOLIO_BYTES, FOLIO, type), -ENOSPC);
	KEXPECT_EQ(t, swapmm_present(mm, 2 * FOLIO), FOLIO);
	swapmm_sums(mm, 2 * FOLIO, after);
	for (unsigned i = FOLIO; i < 2 * FOLIO; i++)
		KEXPECT_EQ(t, after[i], sums[i]);
	KEXPECT_EQ(t, swapmm_inuse(type), FOLIO);
	swapt_expect_consistent(t, type);
	swapmm_expect_contents(t, mm, 2 * FOLIO, 3000);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
}

/* The device cannot store a page: the leaves come back, the slots are freed. */
static void test_swap_mm_device_full(struct ktest *t)
{
	unsigned type;
	struct mm *mm;
	u64 outs;

	KASSERT(t, swapt_dev_new(t, 4 * FOLIO, &type));
	mm = swapmm_mm_new(t, FOLIO, 4000);
	KASSERT(t, mm != NULL);
	outs = swapt_counter(PCPU_SWAP_OUT_PAGES);
	/* The RAM device's first write takes a frame (a chunk of its table): make it fail. */
	pmm_inject_fail(0, 1);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, FOLIO, type), -ENOMEM);
	pmm_inject_fail(0, 0);
	KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_OUT_PAGES) - outs, 0);
	KEXPECT_EQ(t, swapmm_present(mm, FOLIO), FOLIO);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	swapt_expect_consistent(t, type);
	swapmm_expect_contents(t, mm, FOLIO, 4000);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Pages that may not go, and bad arguments: refused, nothing changes. */
static void test_swap_mm_refused(struct ktest *t)
{
	struct page *extra = NULL;
	unsigned type;
	struct mm *mm;

	KASSERT(t, swapt_dev_new(t, 4 * FOLIO, &type));
	mm = swapmm_mm_new(t, 2 * FOLIO, 5000);
	KASSERT(t, mm != NULL);
	KEXPECT_EQ(t, swap_out_folio(mm, REG + KB4, FOLIO, type), -EINVAL);   /* misaligned */
	/* not a power of 2 */
	KEXPECT_EQ(t, swap_out_folio(mm, REG, 3, type), -EINVAL);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, 2 * SWAP_OUT_MAX_PAGES, type), -EINVAL);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, 4 * FOLIO, type), -EFAULT);     /* past the region */
	KEXPECT_EQ(t, swap_out_folio(mm, REG, FOLIO, SWAP_MAX_DEVS), -EINVAL); /* no device */
	/* A page with a second reference (a pin would be one) cannot go. */
	extra = emul_page_at(mm, page_va(FOLIO + 3), NULL);
	KASSERT(t, extra != NULL);
	page_ref_inc(extra);
	KEXPECT_EQ(t, swap_out_folio(mm, REG + FOLIO_BYTES, FOLIO, type), -EBUSY);
	KEXPECT(t, !page_ref_dec_and_test(extra));
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	KEXPECT_EQ(t, swapmm_present(mm, 2 * FOLIO), 2 * FOLIO);
	KEXPECT_EQ(t, swap_out_folio(mm, REG + FOLIO_BYTES, FOLIO, type), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	/* A folio with a page never touched. */
	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, FOLIO_BYTES, RW), 0);
	KEXPECT_EQ(t, mm_populate(mm, REG, 5 * KB4), 0);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, FOLIO, type), -ENOENT);
	KEXPECT_EQ(t, swapmm_present(mm, FOLIO), 5);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	/* Shared regions are not swapped (their pages need a swap cache). */
	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, FOLIO_BYTES, RW | MM_SHARED), 0);
	KEXPECT_EQ(t, mm_populate(mm, REG, FOLIO_BYTES), 0);
	KEXPECT_EQ(t, swap_out_folio(mm, REG, FOLIO, type), -EINVAL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
}

/*
 * After fork parent and child map the same slots (count 2): unmapping the
 * child's copy takes the fallback, the parent's pages still come back,
 * and the slots go with the last mapping.
 */
static void test_swap_mm_fork(struct ktest *t)
{
	u64 fallbacks;
	struct mm *child = NULL, *mm;
	unsigned type;

	KASSERT(t, swapt_dev_new(t, 4 * FOLIO, &type));
	mm = swapmm_mm_new(t, 2 * FOLIO, 6000);
	KASSERT(t, mm != NULL);
	KEXPECT_EQ(t, swapmm_out_all(mm, 2, type), 0);
	KASSERT_EQ(t, mm_fork(mm, &child), 0);
	KEXPECT_EQ(t, swap_count(swap_entry_make(type, 0)), 2);
	/* The child brings one folio in for itself: the parent's slots lose one count each. */
	swapmm_expect_contents(t, child, FOLIO, 6000);
	KEXPECT_EQ(t, swapmm_inuse(type), 2 * FOLIO);
	fallbacks = swapt_counter(PCPU_SWAP_BATCH_FALLBACKS);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_BATCH_FALLBACKS) - fallbacks, 1);
	KEXPECT_EQ(t, swapmm_inuse(type), 2 * FOLIO);
	swapt_expect_consistent(t, type);
	swapmm_expect_contents(t, mm, 2 * FOLIO, 6000);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* What one design leaves after a mixed sequence: swapped in partly, forked, unmapped. */
struct swapmm_final {
	u64 inuse, freed, nfree_clusters;
	int consistent;
};

static struct swapmm_final swapmm_mixed(struct ktest *t, const struct swap_free_ops *ops,
					unsigned type)
{
	struct swapmm_final f = { 0 };
	struct mm *child = NULL, *mm = swapmm_mm_new(t, NPAGES, 7000);
	struct swap_stats s = { 0 };
	const char *why;
	u64 freed = swapt_counter(PCPU_SWAP_SLOTS_FREED);

	if (!KEXPECT(t, mm != NULL))
		return f;
	swap_mm_set_free(mm, ops);
	KEXPECT_EQ(t, swapmm_out_all(mm, NFOLIOS, type), 0);
	for (unsigned i = 0; i < NPAGES; i += 5) /* holes in the runs */
		(void)emul_read(t, mm, page_va(i));
	KEXPECT_EQ(t, mm_fork(mm, &child), 0);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + FOLIO_BYTES, 3 * FOLIO_BYTES), 0);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	swap_stats_get(type, &s);
	f.inuse = s.inuse;
	f.nfree_clusters = s.free_clusters;
	f.consistent = swap_check_consistency(type, &why);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	f.freed = swapt_counter(PCPU_SWAP_SLOTS_FREED) - freed;
	return f;
}

static void test_swap_mm_same_state(struct ktest *t)
{
	struct swapmm_final f[2];
	unsigned type;

	KASSERT(t, swapt_dev_new(t, 4 * NPAGES, &type));
	f[0] = swapmm_mixed(t, &swap_free_ops_naive, type);
	f[1] = swapmm_mixed(t, &swap_free_ops_batched, type);
	KEXPECT_EQ(t, f[0].consistent, 0);
	KEXPECT_EQ(t, f[1].consistent, 0);
	KEXPECT_EQ(t, f[0].inuse, f[1].inuse);
	KEXPECT_EQ(t, f[0].nfree_clusters, f[1].nfree_clusters);
	KEXPECT_EQ(t, f[0].freed, f[1].freed);
	/* Every page was swapped out once and every slot is freed once. */
	KEXPECT_EQ(t, f[0].freed, NPAGES);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
}

#ifndef HOST_BUILD
/*
 * K CPUs at once on one address space: all read one shared swapped-out
 * folio (racing to bring the same pages in), then each swaps its own
 * folios out and back in for several rounds. Every page is filled whole
 * with its own pattern and checked whole by checksum.
 */
#define CONC_FOLIOS 4 /* per CPU */
#define CONC_ROUNDS 4

static struct {
	struct mm *mm;
	unsigned type;
	u64 errors[SWAPT_MAX_CPUS];
	u64 expect[SWAPT_MAX_CPUS][KB4 / sizeof(u64)]; /* each CPU's scratch page */
} conc;

static u64 conc_seed(unsigned page, unsigned round)
{
	return (u64)page << 20 | round;
}

/*
 * Brings the page at @va in (waiting out another CPU's swap-in of it) and
 * compares all of it with swapt_fill(@seed). True when it matches.
 */
static bool conc_check(unsigned idx, unsigned page, u64 seed)
{
	struct page *p = NULL;
	u64 v;
	int err = -EAGAIN;

	for (unsigned tries = 0; tries < 1000000 && err == -EAGAIN; tries++)
		err = emul_touch(conc.mm, page_va(page), false, &v);
	/* Nobody swaps this page out again while we look: its folio is ours or only read. */
	if (!err)
		p = emul_page_at(conc.mm, page_va(page), NULL);
	if (!p)
		return false;
	swapt_fill(conc.expect[idx], seed);
	return swapt_checksum(page_address(p)) == swapt_checksum(conc.expect[idx]);
}

/* Faults the page in writable and fills all of it with swapt_fill(@seed). */
static bool conc_fill(unsigned page, u64 seed)
{
	struct page *p;
	u64 v = 0;

	if (emul_touch(conc.mm, page_va(page), true, &v))
		return false;
	p = emul_page_at(conc.mm, page_va(page), NULL);
	if (p)
		swapt_fill(page_address(p), seed);
	return p != NULL;
}

static void conc_worker(void *arg, unsigned idx)
{
	unsigned first = (1 + idx * CONC_FOLIOS) * FOLIO, n = CONC_FOLIOS * FOLIO, i, round;
	u64 *errors = &conc.errors[idx];

	(void)arg;
	for (i = 0; i < FOLIO; i++)
		*errors += !conc_check(idx, i, conc_seed(i, 0));
	for (round = 0; round < CONC_ROUNDS && !*errors && !swapt_stopping(); round++) {
		for (i = first; i < first + n; i++)
			*errors += !conc_fill(i, conc_seed(i, round));
		for (i = first; i < first + n; i += FOLIO)
			*errors += swap_out_folio(conc.mm, page_va(i), FOLIO, conc.type) != 0;
		for (i = first; i < first + n; i++)
			*errors += !conc_check(idx, i, conc_seed(i, round));
	}
}

static void test_swap_mm_concurrent(struct ktest *t)
{
	unsigned k = MIN(swapt_cpus_available(), (unsigned)SWAPT_MAX_CPUS), i;
	unsigned npages = (1 + k * CONC_FOLIOS) * FOLIO;
	u64 ins = fault_event_count(FAULT_EV_SWAPIN);

	if (k < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	memset(&conc, 0, sizeof(conc));
	KASSERT(t, swapt_dev_new(t, 2 * npages, &conc.type));
	KASSERT_EQ(t, mm_create(&conc.mm), 0);
	KEXPECT_EQ(t, mm_map_region(conc.mm, REG, (u64)npages * KB4, RW), 0);
	KEXPECT_EQ(t, mm_populate_folios(conc.mm, REG, (u64)npages * KB4, FOLIO_ORDER), 0);
	for (i = 0; i < FOLIO; i++)
		KEXPECT(t, conc_fill(i, conc_seed(i, 0)));
	KEXPECT_EQ(t, swap_out_folio(conc.mm, REG, FOLIO, conc.type), 0);
	KEXPECT_EQ(t, swapt_run_cpus(k, conc_worker, NULL), k);
	for (i = 0; i < k; i++)
		KEXPECT_EQ(t, conc.errors[i], 0);
	/* Each page came in exactly once per swap-out, whoever won the race. */
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_SWAPIN) - ins,
		   FOLIO + (u64)k * CONC_FOLIOS * FOLIO * CONC_ROUNDS);
	KEXPECT_EQ(t, swapmm_inuse(conc.type), 0);
	swapt_expect_consistent(t, conc.type);
	KEXPECT_EQ(t, mm_destroy(conc.mm), 0);
	ktest_log(t, "%u CPUs, %u rounds of %u folios each", k, CONC_ROUNDS, CONC_FOLIOS);
}
#endif

/*
 * swap_out_gather() of a reclaim batch (2 folios) through a TLB design's
 * gather: the design's per-leaf hook decides the rounds, naive one per
 * page, batched one for the batch, and the pages still come back intact.
 */
static void swapmm_gather_rounds(struct ktest *t, const struct tlb_ops *ops, u64 want)
{
	struct tlb_batch b;
	unsigned type;
	struct mm *mm;

	KASSERT(t, swapt_dev_new(t, 4 * FOLIO, &type));
	mm = swapmm_mm_new(t, 2 * FOLIO, 2700);
	KASSERT(t, mm != NULL);
	tlb_batch_begin(&b, mm, ops);
	KEXPECT_EQ(t, swap_out_gather(mm, REG, 2 * FOLIO, type, &b.g), 0);
	KEXPECT_EQ(t, b.err, 0);
	KEXPECT_EQ(t, b.g.flushes, want);
	KEXPECT_EQ(t, swapmm_present(mm, 2 * FOLIO), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), 2 * FOLIO);
	swapmm_expect_contents(t, mm, 2 * FOLIO, 2700);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, 2 * FOLIO_BYTES), 0);
	KEXPECT_EQ(t, swapmm_inuse(type), 0);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

static void test_swap_mm_gather_naive(struct ktest *t)
{
	swapmm_gather_rounds(t, &tlb_ops_naive, 2 * FOLIO);
}

static void test_swap_mm_gather_batched(struct ktest *t)
{
	swapmm_gather_rounds(t, &tlb_ops_batched, 1);
}

static const struct ktest_case swap_mm_cases[] = {
	KTEST_CASE(test_swap_mm_gather_naive),
	KTEST_CASE(test_swap_mm_gather_batched),
	KTEST_CASE(test_swap_mm_roundtrip),
	KTEST_CASE(test_swap_mm_unmap_locks),
	KTEST_CASE(test_swap_mm_unmap_singles),
	KTEST_CASE(test_swap_mm_tlb_unmap_frees_slots),
	KTEST_CASE(test_swap_mm_out_of_swap),
	KTEST_CASE(test_swap_mm_device_full),
	KTEST_CASE(test_swap_mm_refused),
	KTEST_CASE(test_swap_mm_fork),
	KTEST_CASE(test_swap_mm_same_state),
#ifndef HOST_BUILD
	KTEST_CASE(test_swap_mm_concurrent),
#endif
};
KTEST_SUITE_EXT(swap_mm, swap_mm_cases, swapmm_init, swapmm_exit, NULL);
