/*
 * Tests for kernel/cpumask.h: single bits at word edges and at the top of
 * the mask, iteration order, weight, the set operations, and the atomic
 * forms (on the host also from concurrent threads), across every word of
 * the mask. Pure data structure: the same cases run on the host and in
 * the kernel.
 */
#include "kernel/cpumask.h"
#include "tests/ktest.h"

#ifdef HOST_BUILD
#include <pthread.h>

#define MASK_THREADS 8
#endif

static const unsigned edge_cpus[] = { 0, 1, 63, 64, 65, 127, 128, 511, 512, MAX_CPUS - 1 };

static void test_cpumask_size(struct ktest *t)
{
	KEXPECT_GE(t, MAX_CPUS, 1024);
	KEXPECT_GE(t, sizeof(cpumask_t) * 8, MAX_CPUS);
}

static void test_cpumask_set_clear_test(struct ktest *t)
{
	cpumask_t m;
	unsigned i;

	cpumask_clear(&m);
	KEXPECT(t, cpumask_empty(&m));
	for (i = 0; i < ARRAY_SIZE(edge_cpus); i++) {
		cpumask_set_cpu(edge_cpus[i], &m);
		KEXPECT(t, cpumask_test_cpu(edge_cpus[i], &m));
		KEXPECT_EQ(t, cpumask_weight(&m), i + 1);
	}
	KEXPECT(t, !cpumask_test_cpu(2, &m));
	KEXPECT(t, !cpumask_test_cpu(MAX_CPUS - 2, &m));
	for (i = 0; i < ARRAY_SIZE(edge_cpus); i++) {
		cpumask_clear_cpu(edge_cpus[i], &m);
		KEXPECT(t, !cpumask_test_cpu(edge_cpus[i], &m));
	}
	KEXPECT(t, cpumask_empty(&m));
}

static void test_cpumask_iterate(struct ktest *t)
{
	cpumask_t m;
	unsigned cpu, n = 0;

	cpumask_clear(&m);
	KEXPECT_EQ(t, cpumask_first(&m), MAX_CPUS);
	for_each_cpu (cpu, &m)
		n++;
	KEXPECT_EQ(t, n, 0);
	for (cpu = 0; cpu < ARRAY_SIZE(edge_cpus); cpu++)
		cpumask_set_cpu(edge_cpus[cpu], &m);
	KEXPECT_EQ(t, cpumask_first(&m), 0);
	KEXPECT_EQ(t, cpumask_next(1, &m), 63);
	KEXPECT_EQ(t, cpumask_next(65, &m), 127);
	KEXPECT_EQ(t, cpumask_next(MAX_CPUS - 1, &m), MAX_CPUS);
	for_each_cpu (cpu, &m) {
		KEXPECT_EQ(t, cpu, edge_cpus[n]);
		n++;
	}
	KEXPECT_EQ(t, n, ARRAY_SIZE(edge_cpus));
}

static void test_cpumask_set_first_n(struct ktest *t)
{
	static const unsigned ns[] = { 0, 1, 63, 64, 65, 200, MAX_CPUS };
	cpumask_t m;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		cpumask_set_first_n(&m, ns[i]);
		KEXPECT_EQ(t, cpumask_weight(&m), ns[i]);
		if (ns[i] > 0)
			KEXPECT(t, cpumask_test_cpu(ns[i] - 1, &m));
		if (ns[i] < MAX_CPUS)
			KEXPECT(t, !cpumask_test_cpu(ns[i], &m));
	}
}

static void test_cpumask_set_ops(struct ktest *t)
{
	cpumask_t a, b, r;

	cpumask_set_first_n(&a, 100); /* 0..99 */
	cpumask_clear(&b);
	cpumask_set_cpu(50, &b);
	cpumask_set_cpu(99, &b);
	cpumask_set_cpu(700, &b);
	cpumask_and(&r, &a, &b);
	KEXPECT_EQ(t, cpumask_weight(&r), 2);
	KEXPECT(t, cpumask_test_cpu(50, &r) && cpumask_test_cpu(99, &r));
	cpumask_or(&r, &a, &b);
	KEXPECT_EQ(t, cpumask_weight(&r), 101);
	KEXPECT(t, cpumask_test_cpu(700, &r));
	cpumask_andnot(&r, &a, &b);
	KEXPECT_EQ(t, cpumask_weight(&r), 98);
	KEXPECT(t, !cpumask_test_cpu(50, &r));
	KEXPECT(t, cpumask_intersects(&a, &b));
	KEXPECT(t, !cpumask_intersects(&r, &b));
	cpumask_copy(&r, &b);
	KEXPECT(t, cpumask_equal(&r, &b));
	KEXPECT(t, !cpumask_equal(&a, &b));
	cpumask_and(&a, &a, &b); /* aliasing the destination */
	KEXPECT_EQ(t, cpumask_weight(&a), 2);
}

static void test_cpumask_atomic(struct ktest *t)
{
	cpumask_t m;

	cpumask_clear(&m);
	KEXPECT(t, !cpumask_test_and_set_cpu_atomic(130, &m));
	KEXPECT(t, cpumask_test_and_set_cpu_atomic(130, &m));
	KEXPECT(t, cpumask_test_cpu_acquire(130, &m));
	cpumask_set_cpu_atomic(MAX_CPUS - 1, &m);
	KEXPECT_EQ(t, cpumask_weight(&m), 2);
	KEXPECT(t, cpumask_test_and_clear_cpu_atomic(130, &m));
	KEXPECT(t, !cpumask_test_and_clear_cpu_atomic(130, &m));
	cpumask_clear_cpu_atomic(MAX_CPUS - 1, &m);
	KEXPECT(t, cpumask_empty(&m));
}

/* The CPUs at the edges of the words a 256- and a 1024-CPU machine fill. */
static const unsigned wide_cpus[] = { 0, 63, 64, 255, 256, MAX_CPUS - 1 };

/* Each edge CPU alone: seen by test, first, next, for_each and weight, no other bit set. */
static void test_cpumask_wide_single(struct ktest *t)
{
	cpumask_t m;
	unsigned i, cpu, seen;

	for (i = 0; i < ARRAY_SIZE(wide_cpus); i++) {
		unsigned c = wide_cpus[i];

		cpumask_clear(&m);
		cpumask_set_cpu(c, &m);
		KEXPECT_EQ(t, cpumask_weight(&m), 1);
		KEXPECT_EQ(t, cpumask_first(&m), c);
		KEXPECT_EQ(t, cpumask_next(c, &m), MAX_CPUS);
		KEXPECT(t, c == 0 || !cpumask_test_cpu(c - 1, &m));
		KEXPECT(t, c == MAX_CPUS - 1 || !cpumask_test_cpu(c + 1, &m));
		seen = 0;
		for_each_cpu (cpu, &m)
			seen += cpu == c ? 1 : 100;
		KEXPECT_EQ(t, seen, 1);
		cpumask_clear_cpu(c, &m);
		KEXPECT(t, cpumask_empty(&m));
		KEXPECT_EQ(t, cpumask_first(&m), MAX_CPUS);
	}
}

/*
 * Every CPU set, then the edge CPUs cleared: for_each visits all the others
 * once each, in order, across every word; the edge CPUs alone, in a mask of
 * their own, are visited in order with the empty words between skipped.
 */
static void test_cpumask_wide_full(struct ktest *t)
{
	cpumask_t all, edges, rest;
	unsigned i, cpu, n = 0, prev = 0, out_of_order = 0;

	cpumask_set_first_n(&all, MAX_CPUS);
	KEXPECT_EQ(t, cpumask_weight(&all), MAX_CPUS);
	for (i = 0; i < CPUMASK_WORDS; i++)
		KEXPECT_EQ(t, all.bits[i], ~0ull);
	cpumask_clear(&edges);
	for (i = 0; i < ARRAY_SIZE(wide_cpus); i++)
		cpumask_set_cpu(wide_cpus[i], &edges);
	cpumask_andnot(&rest, &all, &edges);
	KEXPECT_EQ(t, cpumask_weight(&rest), MAX_CPUS - ARRAY_SIZE(wide_cpus));
	for_each_cpu (cpu, &rest) {
		out_of_order += (n && cpu <= prev) || cpumask_test_cpu(cpu, &edges);
		prev = cpu;
		n++;
	}
	KEXPECT_EQ(t, n, MAX_CPUS - ARRAY_SIZE(wide_cpus));
	KEXPECT_EQ(t, out_of_order, 0);
	KEXPECT_EQ(t, prev, MAX_CPUS - 2);
	n = 0;
	for_each_cpu (cpu, &edges) {
		KEXPECT_EQ(t, cpu, wide_cpus[n]);
		n++;
	}
	KEXPECT_EQ(t, n, ARRAY_SIZE(wide_cpus));
	KEXPECT(t, !cpumask_intersects(&rest, &edges));
	cpumask_or(&rest, &rest, &edges);
	KEXPECT(t, cpumask_equal(&rest, &all));
}

/* set_first_n and the atomic forms at the same edges. */
static void test_cpumask_wide_edges(struct ktest *t)
{
	cpumask_t m;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(wide_cpus); i++) {
		unsigned c = wide_cpus[i];

		cpumask_set_first_n(&m, c + 1);
		KEXPECT_EQ(t, cpumask_weight(&m), c + 1);
		KEXPECT(t, cpumask_test_cpu(c, &m));
		KEXPECT_EQ(t, cpumask_next(c, &m), MAX_CPUS);
		cpumask_clear(&m);
		KEXPECT(t, !cpumask_test_and_set_cpu_atomic(c, &m));
		KEXPECT(t, cpumask_test_cpu_acquire(c, &m));
		KEXPECT_EQ(t, cpumask_weight(&m), 1);
		KEXPECT(t, cpumask_test_and_clear_cpu_atomic(c, &m));
		KEXPECT(t, cpumask_empty(&m));
	}
}

#ifdef HOST_BUILD

struct mask_arg {
	cpumask_t *m;
	unsigned first;
};

/* Each thread owns every MASK_THREADS-th CPU; all share the mask's words. */
static void *mask_thread(void *p)
{
	struct mask_arg *a = p;
	unsigned cpu, round;

	for (round = 0; round < 50; round++) {
		for (cpu = a->first; cpu < MAX_CPUS; cpu += MASK_THREADS)
			cpumask_set_cpu_atomic(cpu, a->m);
		for (cpu = a->first; cpu < MAX_CPUS; cpu += 2 * MASK_THREADS)
			cpumask_clear_cpu_atomic(cpu, a->m);
	}
	return NULL;
}

static void test_cpumask_atomic_concurrent(struct ktest *t)
{
	static cpumask_t m;
	struct mask_arg args[MASK_THREADS];
	pthread_t th[MASK_THREADS];
	unsigned i, expect = 0;

	cpumask_clear(&m);
	for (i = 0; i < MASK_THREADS; i++) {
		args[i] = (struct mask_arg){ &m, i };
		KASSERT_EQ(t, pthread_create(&th[i], NULL, mask_thread, &args[i]), 0);
	}
	for (i = 0; i < MASK_THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < MAX_CPUS; i++)
		expect += (i % (2 * MASK_THREADS)) >= MASK_THREADS;
	KEXPECT_EQ(t, cpumask_weight(&m), expect);
}

#else

static void test_cpumask_atomic_concurrent(struct ktest *t)
{
	ktest_skip(t, "host threads only");
}

#endif

static const struct ktest_case cpumask_cases[] = {
	KTEST_CASE(test_cpumask_size),
	KTEST_CASE(test_cpumask_set_clear_test),
	KTEST_CASE(test_cpumask_iterate),
	KTEST_CASE(test_cpumask_set_first_n),
	KTEST_CASE(test_cpumask_set_ops),
	KTEST_CASE(test_cpumask_atomic),
	KTEST_CASE(test_cpumask_wide_single),
	KTEST_CASE(test_cpumask_wide_full),
	KTEST_CASE(test_cpumask_wide_edges),
	KTEST_CASE(test_cpumask_atomic_concurrent),
};
KTEST_SUITE(cpumask, cpumask_cases);
