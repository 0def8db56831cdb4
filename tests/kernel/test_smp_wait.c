/*
 * Tests for the bounded spin-wait (struct smp_wait, kernel/smp.h): the
 * clock is read once every SMP_WAIT_CLOCK_TURNS turns, the first read
 * starts the deadline timeout_ms ahead, a turn reports the deadline
 * passed only on a turn that reads the clock, and every turn relaxes the
 * CPU unless spin_pause=off asked for none (the one wait policy).
 */
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

/* Turns @w @n times; how many said the deadline passed. */
static unsigned turns(struct smp_wait *w, unsigned n)
{
	unsigned passed = 0;

	while (n--)
		passed += smp_wait_turn(w);
	return passed;
}

static void test_smp_wait_clock_once_per_turns(struct ktest *t)
{
	struct smp_wait w = SMP_WAIT_INIT;

	KEXPECT_EQ(t, turns(&w, SMP_WAIT_CLOCK_TURNS - 1), 0);
	KEXPECT_EQ(t, w.deadline, 0); /* no clock read yet: a short wait never reads it */
	KEXPECT_EQ(t, turns(&w, 1), 0);
	KEXPECT_NE(t, w.deadline, 0); /* the first read starts the deadline */
}

static void test_smp_wait_deadline_from_first_read(struct ktest *t)
{
	struct smp_wait w = SMP_WAIT_INIT;
	u64 timeout = arch_tsc_hz() / 1000 * smp_deadline_ms();
	u64 before = arch_tsc_read(), after;

	turns(&w, SMP_WAIT_CLOCK_TURNS);
	after = arch_tsc_read();
	KEXPECT_GE(t, w.deadline, before + timeout);
	KEXPECT_LE(t, w.deadline, after + timeout);
}

static void test_smp_wait_passed_only_on_a_clock_turn(struct ktest *t)
{
	struct smp_wait w = SMP_WAIT_INIT;

	turns(&w, SMP_WAIT_CLOCK_TURNS);
	w.deadline = 1; /* long gone */
	KEXPECT_EQ(t, turns(&w, SMP_WAIT_CLOCK_TURNS - 1), 0);
	KEXPECT_EQ(t, turns(&w, 1), 1);
	KEXPECT_EQ(t, turns(&w, 2 * SMP_WAIT_CLOCK_TURNS), 2);
}

/*
 * One wait policy wherever the kernel runs: unless spin_pause=off was
 * asked for, the turns of a wait relax (PAUSE), emulator or not.
 */
static void test_smp_wait_pause_by_default(struct ktest *t)
{
	u32 v;

	if (options_value("spin_pause", &v) && !strcmp(options_word("spin_pause", (int)v), "off"))
		ktest_skip(t, "spin_pause=off on the command line");
	else
		KEXPECT(t, arch_spin_pause);
}

#ifdef HOST_BUILD
static unsigned long relaxes(void)
{
	return __atomic_load_n(&fake_relax_count, __ATOMIC_RELAXED);
}

/* Every turn relaxes, the first ones too; with spin_pause=off none does. */
static void test_smp_wait_every_turn_relaxes(struct ktest *t)
{
	struct smp_wait w = SMP_WAIT_INIT;
	unsigned n = 40 * SMP_WAIT_CLOCK_TURNS + 3;
	bool saved = arch_spin_pause;
	unsigned long r0;

	arch_spin_pause = true;
	r0 = relaxes();
	turns(&w, 1);
	KEXPECT_EQ(t, relaxes() - r0, 1);
	turns(&w, n);
	KEXPECT_EQ(t, relaxes() - r0, n + 1);
	arch_spin_pause = false;
	w = SMP_WAIT_INIT;
	r0 = relaxes();
	turns(&w, n);
	KEXPECT_EQ(t, relaxes() - r0, 0);
	arch_spin_pause = saved;
}
#else
static void test_smp_wait_every_turn_relaxes(struct ktest *t)
{
	ktest_skip(t, "counts relaxes through the host's fake arch");
}
#endif

static const struct ktest_case smp_wait_cases[] = {
	KTEST_CASE(test_smp_wait_clock_once_per_turns),
	KTEST_CASE(test_smp_wait_deadline_from_first_read),
	KTEST_CASE(test_smp_wait_passed_only_on_a_clock_turn),
	KTEST_CASE(test_smp_wait_pause_by_default),
	KTEST_CASE(test_smp_wait_every_turn_relaxes),
};
KTEST_SUITE(smp_wait, smp_wait_cases);
