/*
 * TSC frequency, from the best source there is: CPUID leaf 0x15 (exact),
 * the hypervisor leaf 0x40000010, the HPET, or the PIT's channel 2. A
 * stated frequency is checked against the HPET or PIT, since an emulator may
 * state one and count at another; tsc_calibrate= can force PIT or HPET.
 * Boot CPU, before any AP; the results are read-only afterwards.
 */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/init.h"
#include "compiler.h"
#include "errno.h"
#include "kernel/printk.h"
#include "lib/math.h"
#include <arch/cpu.h>
#include <arch/layout.h>

#define PIT_HZ 1193182u
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61 /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 output */
#define PIT_OUT2 0x20
#define CALIBRATE_MS 25
/*
 * Rounds per reference; the median is kept. On bare metal a delay (an SMI)
 * only lengthens a round, but a vCPU whose thread moves between host CPUs
 * can see the TSC jump either way, so neither the shortest nor the longest
 * round is to be trusted.
 */
#define CALIBRATE_ROUNDS 5
/*
 * Give up on a reference after this many TSC cycles: 25 ms take at most
 * 250 M cycles at 10 GHz, so 2^32 is a wide margin, and ~1-4 s at most.
 */
#define CALIBRATE_GIVE_UP_CYCLES (1ull << 32)
/*
 * A frequency a CPUID leaf states is checked against a timer: one that
 * differs from the timer's by more than this percentage is not believed.
 * Wide enough for a PIT misread on a loaded host (20% seen under TCG).
 */
#define TSC_STATED_SLACK_PERCENT 25

/* IA-PC HPET specification 1.0a, 2.3: general registers and the main counter. */
#define HPET_GCAP_ID 0x000 /* bits 63:32: counter period in femtoseconds */
#define HPET_GEN_CONF 0x010
#define HPET_MAIN_CNT 0x0f0
#define HPET_ENABLE_CNF 1u
#define HPET_PERIOD_MAX_FS 100000000u /* 100 ns: the specification's upper bound */
#define HPET_MMIO_BYTES 0x400
#define FS_PER_NS 1000000u

static u64 hz;
static const char *method = "none";
static enum tsc_calibration calibration = TSC_CAL_AUTO;

void tsc_set_calibration(enum tsc_calibration cal)
{
	calibration = cal;
}

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

/* The median of @n values (sorts @v in place). */
static u64 median(u64 *v, int n)
{
	for (int i = 1; i < n; i++) {
		u64 x = v[i];
		int k = i;

		for (; k > 0 && v[k - 1] > x; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
	return v[n / 2];
}

static u64 tsc_from_hypervisor(void)
{
	if (!cpuinfo.hypervisor_bit || cpuid(0x40000000).eax < 0x40000010)
		return 0;
	return (u64)cpuid(0x40000010).eax * 1000;
}

/* ---- PIT ---- */

/*
 * One PIT measurement: channel 2 in mode 0 counts down from @ticks; its
 * output goes low when the mode is written and high at zero. Returns the
 * TSC cycles that took, or 0 when there is no PIT: the output is already
 * high before counting starts (a missing port reads 0xff), or never rises.
 * Counting starts when the gate opens on a real 8254, but when the count is
 * written on QEMU's (which ignores the gate in mode 0): the TSC is read
 * before both, so a delay anywhere (an SMI, a descheduled vCPU) can only
 * make the count longer, never shorter.
 */
static u64 pit_measure(u16 ticks)
{
	u64 start, now;
	u8 gate = inb(PIT_GATE);

	outb(PIT_GATE, (gate & ~0x02) & ~0x01);
	outb(PIT_CMD, 0xb0); /* channel 2, lobyte/hibyte, mode 0, binary */
	outb(PIT_CH2, ticks & 0xff);
	start = rdtsc_ordered();
	outb(PIT_CH2, ticks >> 8);
	if (inb(PIT_GATE) & PIT_OUT2)
		return 0;
	outb(PIT_GATE, (gate & ~0x02) | 0x01);
	do {
		now = rdtsc_ordered();
		if (now - start > CALIBRATE_GIVE_UP_CYCLES)
			return 0;
	} while (!(inb(PIT_GATE) & PIT_OUT2));
	return now - start;
}

u64 tsc_measure_pit(void)
{
	u16 ticks = PIT_HZ * CALIBRATE_MS / 1000;
	u64 c[CALIBRATE_ROUNDS];

	for (int i = 0; i < CALIBRATE_ROUNDS; i++) {
		c[i] = pit_measure(ticks);
		if (!c[i])
			return 0;
	}
	return median(c, CALIBRATE_ROUNDS) * PIT_HZ / ticks;
}

/* ---- HPET ---- */

static volatile u64 *hpet_reg(paddr_t base, unsigned off)
{
	return (volatile u64 *)(DIRECT_MAP_BASE + base + off);
}

/* The HPET's registers through the boot direct map, or 0 when there is none to use. */
static paddr_t hpet_base(void)
{
	const struct acpi_info *acpi = arch_acpi_info();

	if (!acpi || !acpi->hpet.present)
		return 0;
	if (acpi->hpet.base >= BOOT_MAP_BYTES || BOOT_MAP_BYTES - acpi->hpet.base < HPET_MMIO_BYTES)
		return 0;
	return acpi->hpet.base;
}

/*
 * One HPET measurement of CALIBRATE_MS against the main counter, read as 32
 * bits (enough for 25 ms, and all a 32-bit counter has). Returns the TSC
 * frequency, or 0 when the counter does not advance. The TSC is read
 * before the first counter read and after the last, so on bare metal a
 * delay can only make the result higher.
 */
static u64 hpet_measure(paddr_t base, u32 period_fs)
{
	u32 want = (u32)((u64)CALIBRATE_MS * 1000000 * FS_PER_NS / period_fs);
	u64 t0 = rdtsc_ordered(), t;
	u32 c0 = (u32)*hpet_reg(base, HPET_MAIN_CNT), c;

	do {
		c = (u32)*hpet_reg(base, HPET_MAIN_CNT);
		t = rdtsc_ordered();
		if (t - t0 > CALIBRATE_GIVE_UP_CYCLES)
			return 0;
	} while (c - c0 < want);
	return mul_div_u64(t - t0, 1000000000u, (u64)(c - c0) * period_fs / FS_PER_NS);
}

/* The HPET is enabled for the rounds and left as it was found. */
u64 tsc_measure_hpet(void)
{
	paddr_t base = hpet_base();
	u64 conf, r[CALIBRATE_ROUNDS];
	u32 period;
	int n;

	if (!base)
		return 0;
	period = (u32)(*hpet_reg(base, HPET_GCAP_ID) >> 32);
	if (!period || period > HPET_PERIOD_MAX_FS)
		return 0;
	conf = *hpet_reg(base, HPET_GEN_CONF);
	*hpet_reg(base, HPET_GEN_CONF) = conf | HPET_ENABLE_CNF;
	for (n = 0; n < CALIBRATE_ROUNDS; n++) {
		r[n] = hpet_measure(base, period);
		if (!r[n])
			break;
	}
	*hpet_reg(base, HPET_GEN_CONF) = conf;
	return n == CALIBRATE_ROUNDS ? median(r, n) : 0;
}

/* ---- choosing ---- */

bool tsc_hz_plausible(u64 value)
{
	return value >= TSC_HZ_MIN && value <= TSC_HZ_MAX;
}

/* Takes @value from @name when it is a plausible TSC frequency. */
static bool tsc_accept(u64 value, const char *name)
{
	if (!value)
		return false;
	if (!tsc_hz_plausible(value)) {
		printk("# WARN tsc: %s says %lu Hz, outside 1 MHz..20 GHz: not used\n", name,
		       (unsigned long)value);
		return false;
	}
	hz = value;
	method = name;
	return true;
}

/* A reference that answered with an implausible value was named by tsc_accept(). */
static bool tsc_try_pit(void)
{
	u64 value = tsc_measure_pit();

	if (tsc_accept(value, "pit"))
		return true;
	if (!value)
		printk("# WARN tsc: no PIT answers (channel 2 output did not rise)\n");
	return false;
}

static bool tsc_try_hpet(void)
{
	u64 value;

	if (!hpet_base()) {
		printk(
		    "# WARN tsc: no HPET to calibrate against (none in ACPI, or beyond 4 GiB)\n");
		return false;
	}
	value = tsc_measure_hpet();
	if (tsc_accept(value, "hpet"))
		return true;
	if (!value)
		printk(
		    "# WARN tsc: the HPET does not count (bad period or a stuck main counter)\n");
	return false;
}

/*
 * Takes the frequency CPUID leaf @name states, unless a timer (the HPET,
 * else the PIT) measures a plausible frequency more than
 * TSC_STATED_SLACK_PERCENT away: then the leaf is wrong about this
 * machine and the measurement is used. Seen under Bochs, which copies a
 * real CPU's leaf 0x15 (Ice Lake: 1.4976 GHz) but counts the TSC at its
 * ips= setting. No timer: the leaf is taken unchecked.
 */
static bool tsc_try_stated(u64 stated, const char *name)
{
	const char *ref = hpet_base() ? "hpet" : "pit";
	u64 measured, diff;

	if (!stated || !tsc_hz_plausible(stated))
		return tsc_accept(stated, name);
	measured = hpet_base() ? tsc_measure_hpet() : tsc_measure_pit();
	if (!tsc_hz_plausible(measured))
		return tsc_accept(stated, name);
	diff = stated > measured ? stated - measured : measured - stated;
	if (diff * 100 <= measured * TSC_STATED_SLACK_PERCENT)
		return tsc_accept(stated, name);
	printk("# WARN tsc: %s says %lu Hz but the %s measures %lu Hz: using the %s\n", name,
	       (unsigned long)stated, ref, (unsigned long)measured, ref);
	return tsc_accept(measured, ref);
}

int tsc_init(void)
{
	hz = 0;
	method = "none";
	switch (calibration) {
	case TSC_CAL_PIT:
		tsc_try_pit();
		break;
	case TSC_CAL_HPET:
		tsc_try_hpet();
		break;
	default:
		/*
		 * The HPET before the PIT: it is a counter read in pairs with the
		 * TSC, so a vCPU held off the host CPU between two reads costs only
		 * that delay, while the PIT's one-shot countdown is misread by the
		 * whole time the vCPU was held between arming it and reading the
		 * TSC (20% low was seen under TCG on a busy host).
		 */
		if (!tsc_try_stated(tsc_from_cpuid15(), "cpuid-15h") &&
		    !tsc_try_stated(tsc_from_hypervisor(), "hypervisor-leaf") &&
		    !(hpet_base() && tsc_try_hpet()))
			tsc_try_pit();
		break;
	}
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
