/*
 * Tests for the per-CPU counter registry (kernel/percpu.h): every index
 * kernel/ and mm/ give out is named exactly once by its owner
 * (PCPU_COUNTER), with the names the BENCH lines print, and no index past
 * them is.
 */
#include "kernel/percpu.h"
#include "lib/string.h"
#include "mm/counters.h"
#include "tests/ktest.h"

/* mm/pin.c is not in the host build: its counters are named in the kernel only. */
static bool named_elsewhere(unsigned i)
{
#ifdef HOST_BUILD
	return i == PCPU_PIN_FLAG_WRITES || i == PCPU_PIN_UNLOADED || i == PCPU_PIN_RETRIES ||
	       i == PCPU_PIN_REF_ATOMICS;
#else
	(void)i;
	return false;
#endif
}

static void test_percpu_counters_named_once(struct ktest *t)
{
	for (unsigned i = 0; i < PCPU_MM_COUNTERS_END; i++) {
		const char *name = percpu_counter_name(i);

		if (named_elsewhere(i))
			continue;
		if (!KEXPECT(t, strcmp(name, "?") != 0))
			ktest_log(t, "counter %u has no name", i);
		for (unsigned j = 0; j < i; j++) {
			if (named_elsewhere(j))
				continue;
			if (!KEXPECT(t, strcmp(percpu_counter_name(j), name) != 0))
				ktest_log(t, "counters %u and %u are both '%s'", j, i, name);
		}
	}
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_MM_COUNTERS_END), "?");
}

/* A few names the baseline's BENCH lines carry, at the indexes owners gave them. */
static void test_percpu_counter_names(struct ktest *t)
{
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_IPI_SENT), "ipi_sent");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_CALLS_RUN), "calls_run");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_TLB_FLUSH_ONE), "tlb_flush_one");
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_SWAP_SLOTS_FREED), "swap_slots_freed");
#ifndef HOST_BUILD
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_PIN_RETRIES), "pin_retries");
#endif
	KEXPECT_STREQ(t, percpu_counter_name(PCPU_SWAP_OUT_PAGES), "swap_out_pages");
}

static const struct ktest_case percpu_cases[] = {
	KTEST_CASE(test_percpu_counters_named_once),
	KTEST_CASE(test_percpu_counter_names),
};

KTEST_SUITE(percpu, percpu_cases);
