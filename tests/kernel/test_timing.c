/*
 * Self-tests of exact mode's clock (kernel/timing.h): under QEMU's icount
 * with shift=0 the TSC must count one per instruction executed, so a loop
 * of a known instruction count moves it by exactly that much, every time.
 * Kernel only, boot CPU, interrupts off around each measurement; a skip
 * in time mode (./run.sh --exact --selftest -- ktest=timing runs it).
 */
/* build: kernel only */
#include "kernel/timing.h"
#include "tests/ktest.h"

#define TIMING_LOOP_N 100000

void cpu_count_loop(u64 n); /* arch/x86_64/cpu_asm.S: exactly 2n + 1 instructions */

/* TSC cycles around cpu_count_loop(@n), interrupts off. */
static u64 loop_cycles(u64 n)
{
	unsigned long flags = arch_irq_save();
	u64 t0 = arch_tsc_read(), t1;

	cpu_count_loop(n);
	t1 = arch_tsc_read();
	arch_irq_restore(flags);
	return t1 - t0;
}

/* Twice the loop is 2n more instructions, hence exactly 2n more cycles. */
static void test_timing_tsc_counts_instructions(struct ktest *t)
{
	u64 one, two;

	if (!timing_exact()) {
		ktest_skip(t, "timing=time: the TSC counts time");
		return;
	}
	loop_cycles(TIMING_LOOP_N); /* translated once, before it counts */
	one = loop_cycles(TIMING_LOOP_N);
	two = loop_cycles(2 * TIMING_LOOP_N);
	KEXPECT_EQ(t, two - one, 2 * TIMING_LOOP_N);
	KEXPECT_EQ(t, loop_cycles(TIMING_LOOP_N), one); /* and repeats to the cycle */
}

static const struct ktest_case timing_cases[] = {
	KTEST_CASE(test_timing_tsc_counts_instructions),
};
KTEST_SUITE(timing, timing_cases);
