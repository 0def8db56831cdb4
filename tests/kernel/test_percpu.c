/*
 * Tests for the per-CPU counter registry (kernel/percpu.h): every counter a
 * file defines (PCPU_COUNTER) is registered once, with a name of its own, an
 * index that is its place, and a slot in every CPU's counters[]. This file
 * defines a counter the way any file adds one. Then per-CPU data
 * (__pcpu_data): a private copy for every CPU that can run, none past them.
 */
#include "kernel/percpu.h"
#include "lib/string.h"
#include "mm/counters.h"
#include "mm/tlb/designs/gen.h" /* a design's own counter, defined in its file */
#include "tests/ktest.h"

PCPU_COUNTER(PCPU_TEST_PERCPU_PROBE, "test_percpu_probe");

static u64 test_pcpu_probe[3] __pcpu_data;

static void test_percpu_counters_named_once(struct ktest *t)
{
	unsigned n = pcpu_counter_count();

	KASSERT(t, n > 0);
	for (unsigned i = 0; i < n; i++) {
		const char *name = percpu_counter_name(pcpu_counter_at(i));

		if (!KEXPECT(t, name && name[0]))
			continue;
		for (unsigned j = 0; j < i; j++) {
			if (!KEXPECT(t, strcmp(percpu_counter_name(pcpu_counter_at(j)), name) != 0))
				ktest_log(t, "counters %u and %u are both '%s'", j, i, name);
		}
	}
}

/* Every registered counter fits the per-CPU slots (what the boot check holds). */
static void test_percpu_counters_fit(struct ktest *t)
{
	KEXPECT(t, pcpu_counter_count() <= PCPU_COUNTER_SLOTS);
	KEXPECT_EQ(t, percpu_counters_check(), 0);
}

/* A few names the baseline's BENCH lines carry, at the handles their owners define. */
static void test_percpu_counter_names(struct ktest *t)
{
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_IPI_SENT), "ipi_sent");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_CALLS_RUN), "calls_run");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_TLB_FLUSH_ONE), "tlb_flush_one");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_SWAP_SLOTS_FREED), "swap_slots_freed");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_PIN_RETRIES), "pin_retries");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_SWAP_OUT_PAGES), "swap_out_pages");
}

/* A handle's index is its place in the section, and its name finds it again. */
static void test_percpu_counter_index(struct ktest *t)
{
	const struct pcpu_counter *const k[] = { PCPU_IPI_SENT, PCPU_TLB_SHOOTDOWNS,
						 PCPU_TLB_GEN_IPI_SKIPPED, PCPU_TEST_PERCPU_PROBE };

	for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		unsigned idx = pcpu_counter_index(k[i]);

		KEXPECT(t, idx < pcpu_counter_count());
		KEXPECT(t, pcpu_counter_at(idx) == k[i]);
		KEXPECT(t, percpu_counter_find(percpu_counter_name(k[i])) == k[i]);
	}
	KEXPECT(t, percpu_counter_find("no_such_counter") == NULL);
}

/* this_cpu_inc() adds to this CPU's slot of the counter and no other. */
static void test_percpu_counter_inc(struct ktest *t)
{
	unsigned cpu = this_cpu()->cpu_id, idx = pcpu_counter_index(PCPU_TEST_PERCPU_PROBE);
	u64 before = percpu_counter_read(cpu, PCPU_TEST_PERCPU_PROBE);
	u64 sum = percpu_counter_sum(PCPU_TEST_PERCPU_PROBE);

	this_cpu_inc(PCPU_TEST_PERCPU_PROBE);
	this_cpu_add(PCPU_TEST_PERCPU_PROBE, 2);
	KEXPECT_EQ(t, percpu_counter_read(cpu, PCPU_TEST_PERCPU_PROBE) - before, 3);
	KEXPECT_EQ(t, this_cpu()->counters[idx] - before, 3);
	/* The host runs its tests on a fake CPU that may not be online. */
	if (cpumask_test_cpu(cpu, &cpu_online_mask))
		KEXPECT_EQ(t, percpu_counter_sum(PCPU_TEST_PERCPU_PROBE) - sum, 3);
}

/* Every CPU id below the bound has a copy of its own: CPU 0's is the variable itself. */
static void test_percpu_data_copies(struct ktest *t)
{
	unsigned bound = percpu_data_bound();

	KASSERT(t, bound >= 1 && bound <= MAX_CPUS);
	KEXPECT_EQ(t, (uintptr_t)per_cpu_ptr(test_pcpu_probe, 0), (uintptr_t)&test_pcpu_probe);
	KEXPECT_EQ(t, (uintptr_t)&test_pcpu_probe % CACHE_LINE, 0);
	KEXPECT_EQ(t, percpu_data_size() % CACHE_LINE, 0);
	for (unsigned cpu = 0; cpu < bound; cpu++) {
		KASSERT(t, percpu_data_placed(cpu));
		(*per_cpu_ptr(test_pcpu_probe, cpu))[2] = 1000 + cpu;
	}
	/* Written all, read all: two ids sharing a copy would read the later one's value. */
	for (unsigned cpu = 0; cpu < bound; cpu++)
		KEXPECT_EQ(t, (*per_cpu_ptr(test_pcpu_probe, cpu))[2], 1000 + cpu);
	for (unsigned cpu = 0; cpu < bound; cpu++)
		(*per_cpu_ptr(test_pcpu_probe, cpu))[2] = 0;
}

/* Bits 63:47 all equal (SDM Vol. 1, 3.3.7.1). */
static bool canonical(uintptr_t va)
{
	u64 top = (u64)va >> 47;

	return top == 0 || top == 0x1ffff;
}

/*
 * The kernel places copies for the CPUs bring-up may start and no more; the
 * host for every fake id. An id past them reaches no memory: its address
 * is not canonical, so a stray use faults instead of sharing CPU 0's copy.
 */
static void test_percpu_data_bound(struct ktest *t)
{
	unsigned bound = percpu_data_bound(), cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		KEXPECT(t, cpu < bound && percpu_data_placed(cpu));
#ifdef HOST_BUILD
	KEXPECT_EQ(t, bound, MAX_CPUS);
#else
	KEXPECT(t, bound >= ncpus_online);
	if (bound < MAX_CPUS) { /* short of a machine with MAX_CPUS CPUs */
		KEXPECT(t, !percpu_data_placed(bound));
		KEXPECT(t, !canonical((uintptr_t)per_cpu_ptr(test_pcpu_probe, bound)));
		KEXPECT(t, !canonical((uintptr_t)per_cpu_ptr(test_pcpu_probe, MAX_CPUS - 1)));
	}
#endif
	KEXPECT(t, canonical((uintptr_t)per_cpu_ptr(test_pcpu_probe, bound - 1)));
}

static const struct ktest_case percpu_cases[] = {
	KTEST_CASE(test_percpu_counters_named_once), KTEST_CASE(test_percpu_counters_fit),
	KTEST_CASE(test_percpu_counter_names),	     KTEST_CASE(test_percpu_counter_index),
	KTEST_CASE(test_percpu_counter_inc),	     KTEST_CASE(test_percpu_data_copies),
	KTEST_CASE(test_percpu_data_bound),
};

KTEST_SUITE(percpu, percpu_cases);
