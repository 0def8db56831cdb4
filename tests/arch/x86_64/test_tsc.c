/*
 * Self-tests of the TSC calibration references (arch/x86_64/tsc.c): the PIT
 * and the HPET, measured one after the other, must each agree with the
 * frequency bring-up chose. A reference the machine lacks (QEMU
 * -machine hpet=off, a board without a PIT) is a skip. Kernel only;
 * runs on the boot CPU.
 */
/* build: kernel only */
#include "arch/x86_64/tsc.h"
#include "lib/string.h"
#include "tests/ktest.h"

/* Percent two measurements may differ: catches unit slips, tolerates a loaded host. */
#define TSC_AGREE_PERCENT 10
#define TSC_ATTEMPTS 5

static bool close_enough(u64 a, u64 b)
{
	u64 diff = a > b ? a - b : b - a;

	return diff * 100 <= MAX(a, b) * TSC_AGREE_PERCENT;
}

static void test_tsc_method_known(struct ktest *t)
{
	static const char *const known[] = { "cpuid-15h", "hypervisor-leaf", "pit", "hpet" };
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		found |= strcmp(tsc_method(), known[i]) == 0;
	KEXPECT(t, found);
	KEXPECT_GE(t, tsc_hz(), TSC_HZ_MIN);
	KEXPECT_LE(t, tsc_hz(), TSC_HZ_MAX);
	KEXPECT(t, tsc_hz_plausible(tsc_hz()));
}

/*
 * Measures with @measure until a result agrees with the frequency in use,
 * at most TSC_ATTEMPTS times: under TCG on a busy host one measurement can
 * be far off (the vCPU's TSC jumps when its thread changes host CPU), which
 * says nothing about the code. A reference that is missing is a skip.
 */
static void expect_agreement(struct ktest *t, const char *name, u64 (*measure)(void))
{
	bool agrees = false;

	for (int i = 0; i < TSC_ATTEMPTS && !agrees; i++) {
		u64 hz = measure();

		if (!hz) {
			ktest_skip(t, i ? "reference stopped answering" : "no such timer");
			return;
		}
		ktest_log(t, "%s %lu Hz, in use %lu Hz (%s)", name, (unsigned long)hz,
			  (unsigned long)tsc_hz(), tsc_method());
		agrees = close_enough(hz, tsc_hz());
	}
	KEXPECT(t, agrees);
}

static void test_tsc_pit_matches(struct ktest *t)
{
	expect_agreement(t, "pit", tsc_measure_pit);
}

static void test_tsc_hpet_matches(struct ktest *t)
{
	expect_agreement(t, "hpet", tsc_measure_hpet);
}

static const struct ktest_case tsc_cases[] = {
	KTEST_CASE(test_tsc_method_known),
	KTEST_CASE(test_tsc_pit_matches),
	KTEST_CASE(test_tsc_hpet_matches),
};
KTEST_SUITE(tsc, tsc_cases);
