/*
 * TSC frequency. Sources, best first: CPUID leaf 0x15 when it names the
 * crystal frequency (exact: SDM Vol. 3B 18.7.3); the hypervisor timing leaf
 * 0x40000010 (KVM and VMware report the guest TSC in kHz there); otherwise
 * the PIT: channel 2 counts a known interval while we read the TSC. Runs on
 * the boot CPU before any AP exists; the results are read-only afterwards.
 */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/cpuinfo.h"
#include "compiler.h"
#include "errno.h"
#include "lib/math.h"
#include <arch/cpu.h>

#define PIT_HZ 1193182u
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61		/* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 output */
#define PIT_CALIBRATE_MS 25
#define PIT_ROUNDS 3

static u64 hz;
static const char *method = "none";

static u64 tsc_from_cpuid15(void)
{
	struct cpuid_regs r;

	if (cpuid(0).eax < 0x15)
		return 0;
	r = cpuid(0x15);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (u64)r.ecx * r.ebx / r.eax;
}

static u64 tsc_from_hypervisor(void)
{
	if (!cpuinfo.hypervisor_bit || cpuid(0x40000000).eax < 0x40000010)
		return 0;
	return (u64)cpuid(0x40000010).eax * 1000;
}

/*
 * One PIT measurement: channel 2 in mode 0 counts down from @ticks; its
 * output goes high at zero. Returns the TSC cycles that took, or 0 if the
 * output never rose (no PIT).
 */
static u64 pit_measure(u16 ticks)
{
	u64 start, deadline_spins = 100000000;
	u8 gate = inb(PIT_GATE);

	outb(PIT_GATE, (gate & ~0x02) & ~0x01);
	outb(PIT_CMD, 0xb0); /* channel 2, lobyte/hibyte, mode 0, binary */
	outb(PIT_CH2, ticks & 0xff);
	outb(PIT_CH2, ticks >> 8);
	outb(PIT_GATE, (gate & ~0x02) | 0x01);
	start = rdtsc_ordered();
	while (!(inb(PIT_GATE) & 0x20)) {
		if (--deadline_spins == 0)
			return 0;
	}
	return rdtsc_ordered() - start;
}

/* Best (smallest) of a few rounds: an interruption only makes one longer. */
static u64 tsc_from_pit(void)
{
	u16 ticks = PIT_HZ * PIT_CALIBRATE_MS / 1000;
	u64 best = 0;

	for (int i = 0; i < PIT_ROUNDS; i++) {
		u64 c = pit_measure(ticks);

		if (c && (!best || c < best))
			best = c;
	}
	return best ? best * PIT_HZ / ticks : 0;
}

int tsc_init(void)
{
	if ((hz = tsc_from_cpuid15()))
		method = "cpuid-15h";
	else if ((hz = tsc_from_hypervisor()))
		method = "hypervisor-leaf";
	else if ((hz = tsc_from_pit()))
		method = "pit";
	return hz ? 0 : -EIO;
}

u64 tsc_hz(void)
{
	return hz;
}

const char *tsc_method(void)
{
	return method;
}

u64 tsc_cycles_to_ns(u64 cycles)
{
	if (!hz)
		return 0;
	return mul_div_u64(cycles, 1000000000u, hz);
}

u64 tsc_deadline_ms(u64 ms)
{
	return rdtsc_ordered() + ms * (hz / 1000);
}

void udelay(u64 us)
{
	u64 end;

	if (!hz) {
		/* Not calibrated yet: PIT ticks are 838 ns; round up. */
		while (us) {
			u64 chunk = MIN(us, 50000u);

			pit_measure((u16)(chunk * PIT_HZ / 1000000 + 1));
			us -= chunk;
		}
		return;
	}
	end = rdtsc_ordered() + mul_div_u64(hz, us, 1000000);
	while (rdtsc_ordered() < end)
		pause();
}
