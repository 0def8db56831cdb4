/*
 * The designs of freeing swap slots (struct swap_free_ops, mm/swap/swap.h),
 * each case run once per design: round trips, the exact lock round trips of
 * a folio, the fallbacks, double frees and bad entries, the same final state
 * as naive after one script, and several CPUs freeing their own runs at once
 * (idle CPUs in the kernel, threads as fake CPUs on the host).
 */
#include "errno.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "tests/test_swap.h"

#define RUN SWAP_FOLIO_SLOTS
#define CONC_CLUSTERS 16
#define CONC_SLOTS (CONC_CLUSTERS * SWAP_CLUSTER_SLOTS)
/*
 * Rounds per CPU: fewer in the kernel, where TCG with more vCPUs than host
 * cores makes every lock handover slow; the host runs 8 threads.
 */
#ifdef HOST_BUILD
#define CONC_ROUNDS 200
#else
#define CONC_ROUNDS 50
#endif
#define CONC_RUNS 8    /* folios each CPU holds per round */
#define CONC_SINGLES 4 /* and single slots */

struct swap_free_param {
	const struct swap_free_ops *ops;
	bool batches; /* frees a qualifying run under one lock of each kind */
	bool relist_only; /* a batched free takes the device lock only to relist (cluster) */
};

/* The design under test; it batches when its lock promise counts per folio. */
static const struct swap_free_param *param(struct ktest *t)
{
	static struct swap_free_param p;

	p.ops = swap_free_of(ktest_design(t));
	p.batches = strcmp(p.ops->d.unit, "folio") == 0;
	p.relist_only = design_promise(&p.ops->d, PCPU_SWAP_DEVICE_LOCKS) != NULL;
	return &p;
}

/* Counter values around one operation. */
struct lock_snap {
	u64 cluster, device, freed, fallbacks;
};

static struct lock_snap lock_snap(void)
{
	struct lock_snap s = {
		swapt_counter(PCPU_SWAP_CLUSTER_LOCKS),
		swapt_counter(PCPU_SWAP_DEVICE_LOCKS),
		swapt_counter(PCPU_SWAP_SLOTS_FREED),
		swapt_counter(PCPU_SWAP_BATCH_FALLBACKS),
	};
	return s;
}

/* KEXPECTs the lock round trips, slots freed and fallbacks since @before. */
static bool expect_locks(struct ktest *t, struct lock_snap before, u64 cluster, u64 device,
			 u64 freed, u64 fallbacks)
{
	struct lock_snap now = lock_snap();
	bool ok = now.cluster - before.cluster == cluster && now.device - before.device == device &&
		  now.freed - before.freed == freed &&
		  now.fallbacks - before.fallbacks == fallbacks;

	if (!KEXPECT(t, ok))
		ktest_log(t, "cluster %lu device %lu freed %lu fallbacks %lu; want %lu %lu %lu %lu",
			  (unsigned long)(now.cluster - before.cluster),
			  (unsigned long)(now.device - before.device),
			  (unsigned long)(now.freed - before.freed),
			  (unsigned long)(now.fallbacks - before.fallbacks), (unsigned long)cluster,
			  (unsigned long)device, (unsigned long)freed, (unsigned long)fallbacks);
	return ok;
}

static u64 inuse(unsigned type)
{
	struct swap_stats s = { 0 };

	swap_stats_get(type, &s);
	return s.inuse;
}

/* KEXPECTs that every slot of @type is free and the device is consistent. */
static void expect_all_free(struct ktest *t, unsigned type)
{
	struct swap_stats s = { 0 };

	swap_stats_get(type, &s);
	KEXPECT_EQ(t, s.inuse, 0);
	KEXPECT_EQ(t, s.free_clusters, s.nclusters);
	swapt_expect_consistent(t, type);
}

static void test_swap_free_roundtrip(struct ktest *t)
{
	static swp_entry_t runs[4 * SWAP_CLUSTER_SLOTS / RUN];
	const struct swap_free_ops *ops = param(t)->ops;
	struct lock_snap before;
	unsigned type, i;

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		KASSERT_EQ(t, swap_slot_alloc(type, RUN, &runs[i]), 0);
	before = lock_snap();
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		KEXPECT_EQ(t, ops->free(runs[i], RUN), 0);
	KEXPECT_EQ(t, lock_snap().freed - before.freed, 4 * SWAP_CLUSTER_SLOTS);
	for (i = 0; i < 4 * SWAP_CLUSTER_SLOTS; i++)
		KASSERT_EQ(t, swap_map_read(swap_entry_make(type, i)), 0);
	expect_all_free(t, type);
}

/* The numbers the benchmark reports: lock round trips per 16-slot folio. */
static void test_swap_free_lock_counts(struct ktest *t)
{
	const struct swap_free_param *p = param(t);
	unsigned type, locks = p->batches ? 1 : RUN;
	struct lock_snap before;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	before = lock_snap();
	KEXPECT_EQ(t, p->ops->free(e, RUN), 0);
	expect_locks(t, before, locks, locks, RUN, 0);
	KASSERT_EQ(t, swap_slot_alloc(type, 1, &e), 0);
	before = lock_snap();
	KEXPECT_EQ(t, p->ops->free(e, 1), 0);
	expect_locks(t, before, 1, 1, 1, 0);
	expect_all_free(t, type);
}

/*
 * A slot with a second reference: every slot loses one, that one stays.
 * batched spends one cluster lock finding out, unless the first slot shows it.
 */
static void test_swap_free_fallback_count(struct ktest *t)
{
	const struct swap_free_param *p = param(t);
	unsigned type, which[] = { 5, 0 }, i;
	struct lock_snap before;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	for (i = 0; i < ARRAY_SIZE(which); i++) {
		swp_entry_t dup;

		KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
		dup = swap_entry_next(e, which[i]);
		KASSERT_EQ(t, swap_dup(dup, 1), 0);
		before = lock_snap();
		KEXPECT_EQ(t, p->ops->free(e, RUN), 0);
		expect_locks(t, before, RUN + (p->batches && which[i] != 0), RUN - 1, RUN - 1,
			     p->batches);
		KEXPECT_EQ(t, swap_map_read(dup), 1);
		KEXPECT_EQ(t, inuse(type), 1);
		KEXPECT_EQ(t, p->ops->free(dup, 1), 0);
	}
	expect_all_free(t, type);
}

/* A slot with the has-cache flag keeps the slot, with the flag alone, until swap_cache_del. */
static void test_swap_free_fallback_cache(struct ktest *t)
{
	const struct swap_free_param *p = param(t);
	struct lock_snap before;
	swp_entry_t e, cached;
	unsigned type;

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	cached = swap_entry_next(e, 7);
	KASSERT_EQ(t, swap_cache_add(cached, 1), 0);
	before = lock_snap();
	KEXPECT_EQ(t, p->ops->free(e, RUN), 0);
	expect_locks(t, before, RUN + p->batches, RUN - 1, RUN - 1, p->batches);
	KEXPECT_EQ(t, swap_map_read(cached), SWAP_HAS_CACHE);
	KEXPECT_EQ(t, inuse(type), 1);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, swap_cache_del(cached, 1), 0);
	expect_all_free(t, type);
}

/* A range across a cluster boundary is never batched: no lock is wasted on trying. */
static void test_swap_free_straddle(struct ktest *t)
{
	static swp_entry_t runs[2 * SWAP_CLUSTER_SLOTS / RUN];
	const struct swap_free_param *p = param(t);
	unsigned type, i, last = SWAP_CLUSTER_SLOTS / RUN - 1, halves = p->batches ? 1 : RUN / 2;
	struct lock_snap before;

	KASSERT(t, swapt_dev_new(t, 2 * SWAP_CLUSTER_SLOTS, &type));
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		KASSERT_EQ(t, swap_slot_alloc(type, RUN, &runs[i]), 0);
	KASSERT_EQ(t, swap_entry_offset(runs[last + 1]), SWAP_CLUSTER_SLOTS);
	before = lock_snap();
	KEXPECT_EQ(t, p->ops->free(swap_entry_next(runs[last], RUN / 2), RUN), 0);
	expect_locks(t, before, RUN, RUN, RUN, p->batches);
	before = lock_snap();
	KEXPECT_EQ(t, p->ops->free(runs[last], RUN / 2), 0);
	KEXPECT_EQ(t, p->ops->free(swap_entry_next(runs[last + 1], RUN / 2), RUN / 2), 0);
	/* The straddling free left both clusters non-full: relist_only relists neither. */
	expect_locks(t, before, 2 * halves, p->relist_only ? 0 : 2 * halves, RUN, 0);
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		if (i != last && i != last + 1)
			KEXPECT_EQ(t, p->ops->free(runs[i], RUN), 0);
	expect_all_free(t, type);
}

/* Freeing a free slot is refused and counted; the map is not touched. */
static void test_swap_free_double_free(struct ktest *t)
{
	const struct swap_free_ops *ops = param(t)->ops;
	u64 errors = swap_errors();
	unsigned type, i;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KEXPECT_EQ(t, ops->free(e, RUN), 0);
	KEXPECT_EQ(t, ops->free(e, RUN), -ENOENT);
	KEXPECT_EQ(t, swap_errors(), errors + RUN);
	expect_all_free(t, type);
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KEXPECT_EQ(t, ops->free(swap_entry_next(e, 3), 1), 0);
	KEXPECT_EQ(t, ops->free(e, RUN), -ENOENT); /* slot 3 refused, the rest freed */
	KEXPECT_EQ(t, swap_errors(), errors + RUN + 1);
	for (i = 0; i < RUN; i++)
		KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, i)), 0);
	expect_all_free(t, type);
}

/* Bad entries: -EINVAL, counted, no lock taken, nothing changed. */
static void test_swap_free_bad_entry(struct ktest *t)
{
	const struct swap_free_ops *ops = param(t)->ops;
	u64 errors = swap_errors();
	struct lock_snap before;
	unsigned type, gone, i;
	swp_entry_t e, bad[5];

	KASSERT(t, swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KASSERT_EQ(t, swap_on_ram(SWAP_CLUSTER_SLOTS, &gone), 0);
	KASSERT_EQ(t, swap_off(gone), 0);
	bad[0] = swap_entry_make(SWAP_MAX_DEVS, 0);
	bad[1] = swap_entry_make(gone, 0);
	bad[2] = swap_entry_make(type, 4 * SWAP_CLUSTER_SLOTS);
	bad[3] = swap_entry_make(type, 4 * SWAP_CLUSTER_SLOTS - RUN / 2);
	bad[4].val = 0;
	before = lock_snap();
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KEXPECT_EQ(t, ops->free(bad[i], RUN), -EINVAL);
	KEXPECT_EQ(t, ops->free(e, 0), -EINVAL);
	expect_locks(t, before, 0, 0, 0, 0);
	KEXPECT_EQ(t, swap_errors(), errors + ARRAY_SIZE(bad) + 1);
	KEXPECT_EQ(t, inuse(type), RUN);
	KEXPECT_EQ(t, ops->free(e, RUN), 0);
	expect_all_free(t, type);
}

/* One script of allocations, references, flags and frees, some of them bad. */
static void run_script(unsigned type, const struct swap_free_ops *ops)
{
	swp_entry_t runs[40], quads[10], e;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(runs); i++)
		swap_slot_alloc(type, RUN, &runs[i]);
	for (i = 0; i < ARRAY_SIZE(quads); i++)
		swap_slot_alloc(type, 4, &quads[i]);
	swap_dup(runs[3], RUN);
	swap_dup(swap_entry_next(runs[5], 2), 1);
	swap_cache_add(swap_entry_next(runs[7], 9), 1);
	swap_cache_add(quads[2], 4);
	for (i = 0; i < ARRAY_SIZE(runs); i += 2)
		ops->free(runs[i], RUN);
	ops->free(swap_entry_next(runs[31], RUN / 2), RUN); /* across clusters 0 and 1 */
	ops->free(runs[3], RUN);
	ops->free(runs[4], RUN); /* a double free */
	for (i = 0; i < ARRAY_SIZE(quads); i += 3)
		ops->free(quads[i], 4);
	ops->free(swap_entry_next(runs[9], 4), 8);
	swap_slot_alloc(type, 1, &e);
	swap_slot_alloc(type, RUN, &e);
}

/* naive and this design leave the same map and lists after the same script. */
static void test_swap_free_same_state(struct ktest *t)
{
	unsigned mine, ref, nslots = 4 * SWAP_CLUSTER_SLOTS, off, diffs = 0;
	struct swap_stats a = { 0 }, b = { 0 };

	KASSERT(t, swapt_dev_new(t, nslots, &mine));
	KASSERT(t, swapt_dev_new(t, nslots, &ref));
	run_script(mine, param(t)->ops);
	run_script(ref, swap_free_of(swap_free_designs[0])); /* the baseline */
	for (off = 0; off < nslots; off++)
		diffs += swap_map_read(swap_entry_make(mine, off)) !=
			 swap_map_read(swap_entry_make(ref, off));
	KEXPECT_EQ(t, diffs, 0);
	swap_stats_get(mine, &a);
	swap_stats_get(ref, &b);
	KEXPECT_GT(t, a.inuse, 0);
	KEXPECT(t, a.inuse == b.inuse && a.free_clusters == b.free_clusters &&
		       a.nonfull_clusters == b.nonfull_clusters &&
		       a.frag_clusters == b.frag_clusters && a.full_clusters == b.full_clusters);
	swapt_expect_consistent(t, mine);
	swapt_expect_consistent(t, ref);
}

/* ---- concurrency ---- */

struct conc_result {
	u64 freed, frees, errors;
	u64 cluster_locks, device_locks; /* taken inside free() calls */
	void *buf;
} __cacheline_aligned;

struct conc {
	const struct swap_free_ops *ops;
	unsigned type;
	u8 owner[CONC_SLOTS]; /* CPU index + 1 holding each slot: catches a slot handed out twice */
	struct conc_result res[SWAPT_MAX_CPUS];
};

static struct conc conc;

/* Marks or unmarks @nr slots from @e as @idx's; false if another CPU held one. */
static bool conc_own(swp_entry_t e, unsigned nr, unsigned idx, bool take)
{
	u64 off = swap_entry_offset(e);
	unsigned i;
	bool ok = true;

	for (i = 0; i < nr; i++) {
		u8 from = take ? 0 : (u8)(idx + 1), to = take ? (u8)(idx + 1) : 0;

		ok &= atomic_cmpxchg(&conc.owner[off + i], from, to) == from;
	}
	return ok;
}

/* Writes a pattern to @e's slot and reads it back; false if it did not survive. */
static bool conc_io(struct conc_result *r, swp_entry_t e, u64 seed)
{
	u64 sum;

	swapt_fill(r->buf, seed);
	sum = swapt_checksum(r->buf);
	if (swap_write_page(e, r->buf))
		return false;
	if (swap_read_page(e, r->buf))
		return false;
	return swapt_checksum(r->buf) == sum;
}

static void conc_free(struct conc_result *r, swp_entry_t e, unsigned nr, unsigned idx)
{
	struct lock_snap before;

	r->errors += !conc_own(e, nr, idx, false);
	before = lock_snap();
	r->errors += conc.ops->free(e, nr) != 0;
	r->cluster_locks += swapt_counter(PCPU_SWAP_CLUSTER_LOCKS) - before.cluster;
	r->device_locks += swapt_counter(PCPU_SWAP_DEVICE_LOCKS) - before.device;
	r->freed += nr;
	r->frees++;
}

/* Takes @n runs of @nr slots into @out, checking ownership; returns how many it got. */
static unsigned conc_take(struct conc_result *r, swp_entry_t *out, unsigned n, unsigned nr,
			  unsigned idx)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (swap_slot_alloc(conc.type, nr, &out[i])) {
			r->errors++;
			break;
		}
		r->errors += !conc_own(out[i], nr, idx, true);
	}
	return i;
}

static void conc_round(struct conc_result *r, unsigned idx, unsigned round)
{
	swp_entry_t runs[CONC_RUNS], singles[CONC_SINGLES];
	unsigned i, nruns, nsingles;

	nruns = conc_take(r, runs, CONC_RUNS, RUN, idx);
	nsingles = conc_take(r, singles, CONC_SINGLES, 1, idx);
	for (i = 0; i < nruns; i++)
		r->errors += !conc_io(r, runs[i], (u64)idx << 32 | round << 8 | i);
	for (i = 0; i < nruns; i++)
		conc_free(r, runs[i], RUN, idx);
	for (i = 0; i < nsingles; i++)
		conc_free(r, singles[i], 1, idx);
}

static void conc_worker(void *arg, unsigned idx)
{
	struct conc_result *r = &conc.res[idx];
	unsigned round;

	(void)arg;
	for (round = 0; round < CONC_ROUNDS && !r->errors && !swapt_stopping(); round++)
		conc_round(r, idx, round);
}

/* K CPUs allocate, write, read back and free their own runs at once. */
static void test_swap_free_concurrent(struct ktest *t)
{
	const struct swap_free_param *p = param(t);
	unsigned k = MIN(swapt_cpus_available(), (unsigned)SWAPT_MAX_CPUS), i, ran;
	u64 per_run = p->batches ? 1 : RUN, runs = (u64)CONC_ROUNDS * CONC_RUNS;
	u64 singles = (u64)CONC_ROUNDS * CONC_SINGLES;

	if (k < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	memset(&conc, 0, sizeof(conc));
	conc.ops = p->ops;
	KASSERT(t, swapt_dev_new(t, CONC_SLOTS, &conc.type));
	for (i = 0; i < k; i++) {
		conc.res[i].buf = swapt_page_alloc();
		KASSERT(t, conc.res[i].buf != NULL);
	}
	ran = swapt_run_cpus(k, conc_worker, NULL);
	for (i = 0; i < k; i++)
		swapt_page_free(conc.res[i].buf);
	KASSERT_EQ(t, ran, k);
	for (i = 0; i < k; i++) {
		struct conc_result *r = &conc.res[i];

		KEXPECT_EQ(t, r->errors, 0);
		KEXPECT_EQ(t, r->freed, runs * RUN + singles);
		KEXPECT_EQ(t, r->cluster_locks, runs * per_run + singles);
		if (!p->relist_only) {
			KEXPECT_EQ(t, r->device_locks, runs * per_run + singles);
			continue;
		}
		/* Singles always lock the device; a folio only when its cluster relists. */
		KEXPECT_GE(t, r->device_locks, singles);
		KEXPECT_LE(t, r->device_locks, runs * per_run + singles);
	}
	ktest_log(t, "%u CPUs, %lu folios each", k, (unsigned long)runs);
	expect_all_free(t, conc.type);
}

static const struct ktest_case swap_free_cases[] = {
	KTEST_CASE(test_swap_free_roundtrip),
	KTEST_CASE(test_swap_free_lock_counts),
	KTEST_CASE(test_swap_free_fallback_count),
	KTEST_CASE(test_swap_free_fallback_cache),
	KTEST_CASE(test_swap_free_straddle),
	KTEST_CASE(test_swap_free_double_free),
	KTEST_CASE(test_swap_free_bad_entry),
	KTEST_CASE(test_swap_free_same_state),
	KTEST_CASE(test_swap_free_concurrent),
};
KTEST_SUITE_DESIGNS(swap_free, swap_free_cases, swapt_init, swapt_exit, swap_free_designs);
