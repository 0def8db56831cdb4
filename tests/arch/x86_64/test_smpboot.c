/*
 * Self-tests of AP bring-up limits (arch/x86_64/smpboot.c) that QEMU's TCG
 * cannot show with real CPUs: in xAPIC mode a CPU whose APIC ID is above
 * 255 (an x2APIC MADT entry on a large server) cannot be sent INIT/SIPI,
 * so bring-up must count it as skipped without touching it. Kernel only,
 * boot CPU, after bring-up (the running APs are idle and are not listed).
 */
/* build: kernel only */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/smpboot.h"
#include "tests/ktest.h"

static void test_smpboot_xapic_skips_high_ids(struct ktest *t)
{
	const u32 ids[] = { apic_id(), 0x100, 0x1ff, 0xfffffffe };
	struct smpboot_result res;

	if (apic_max_id() > 0xff) {
		ktest_skip(t, "x2APIC mode: IDs above 255 are startable");
		return;
	}
	KASSERT_EQ(t, smpboot_start_aps(ids, ARRAY_SIZE(ids), MAX_CPUS, &res), 0);
	KEXPECT_EQ(t, res.skipped, 3);
	KEXPECT_EQ(t, res.started, 0);
	KEXPECT_EQ(t, res.failed, 0);
}

static const struct ktest_case smpboot_cases[] = {
	KTEST_CASE(test_smpboot_xapic_skips_high_ids),
};
KTEST_SUITE(smpboot, smpboot_cases);
