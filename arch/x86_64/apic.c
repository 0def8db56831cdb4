/*
 * Local APIC driver (SDM Vol. 3A chapter 11). Register access goes through
 * two functions that pick MMIO or MSR by mode, so the rest of the file is
 * mode-neutral except for the ICR, whose layout differs. In xAPIC mode an
 * ICR write must wait for the previous send's delivery status to clear.
 */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/kpt.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/tsc.h"
#include "compiler.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/format.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/layout.h>
#include <arch/vectors.h>

#define APIC_BASE_BSP (1ul << 8)
#define APIC_BASE_EXTD (1ul << 10)
#define APIC_BASE_EN (1ul << 11)

/* Register offsets in xAPIC MMIO; the x2APIC MSR is 0x800 + offset / 16. */
#define APIC_ID 0x020
#define APIC_TPR 0x080
#define APIC_EOI 0x0b0
#define APIC_SVR 0x0f0
#define APIC_ESR 0x280
#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR 0x390
#define APIC_TIMER_DIV 0x3e0

#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_TIMER_PERIODIC (1u << 17) /* timer mode 01b (SDM Vol. 3A 11.5.4, figure 11-8) */
/* Divide configuration 0011b: divide by 16 (SDM Vol. 3A figure 11-10). */
#define TIMER_DIV_16 0x3
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_FIXED 0x000
#define ICR_NMI 0x400
#define ICR_INIT 0x500
#define ICR_STARTUP 0x600
#define ICR_ASSERT (1u << 14)
#define ICR_ALL_BUT_SELF (3u << 18)

/* The power-up base (SDM Vol. 3A 11.4.4), for a base register the firmware zeroed. */
#define APIC_BASE_DEFAULT 0xfee00000ul
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ul

static enum apic_mode mode;
static volatile u32 *mmio;
static u64 apic_errors;

static u32 apic_read(u32 reg)
{
	if (mode == APIC_MODE_X2APIC)
		return (u32)rdmsr(0x800 + reg / 16);
	return mmio[reg / 4];
}

static void apic_write(u32 reg, u32 v)
{
	if (mode == APIC_MODE_X2APIC)
		wrmsr(0x800 + reg / 16, v);
	else
		mmio[reg / 4] = v;
}

/*
 * The destination each CPU's ICR high half holds (plus one; 0: unknown,
 * as after the APIC's enable, apic_enable_local()). Only the owning CPU
 * writes its ICR, with interrupts off, so this is exact.
 */
static u32 icr_hi_cached[MAX_CPUS];

/* xAPIC: until this CPU's last send has left (Delivery Status idle, SDM Vol. 3A 11.6.1). */
static void apic_icr_wait_idle(void)
{
	while (apic_read(APIC_ICR_LO) & ICR_DELIVERY_PENDING)
		pause();
}

/*
 * One ICR write; the two modes differ in layout (SDM Vol. 3A 11.6.1,
 * 11.12.9). x2APIC: one WRMSR, but a WRMSR to an APIC register may
 * complete before earlier stores are globally visible (SDM Vol. 3A
 * 11.12.3), and a target must see a call posted before its IPI: MFENCE;
 * LFENCE first. xAPIC: software must not write the ICR while the previous
 * send is still pending (Delivery Status, same section). Every send here
 * waits for that after its own write rather than before the next one
 * (apic_enable_local() waits once for whatever the firmware sent last):
 * the rule holds the same, and the wait falls where the sender waits
 * anyway (a cross-CPU call then waits for its acknowledgement), not
 * between a call's acknowledgement and the next call's IPI, where a
 * back-to-back round trip pays for every access: under TCG each xAPIC
 * access is an MMIO exit through QEMU's global lock. The high half (the
 * destination) keeps its value until written (same section), so it is
 * written only when the destination changes; the low half, whose write
 * sends, once.
 */
static void apic_icr_write(u32 dest, u32 low)
{
	u32 *hi;
	u64 flags;

	if (mode == APIC_MODE_X2APIC) {
		wrmsr_fence();
		wrmsr(0x830, ((u64)dest << 32) | low);
		return;
	}
	/* Two MMIO registers: an interrupt between them must not send its own IPI. */
	flags = read_rflags();
	cli();
	hi = &icr_hi_cached[this_cpu()->cpu_id];
	if (*hi != (dest << 24) + 1) {
		apic_write(APIC_ICR_HI, dest << 24);
		*hi = (dest << 24) + 1;
	}
	apic_write(APIC_ICR_LO, low);
	apic_icr_wait_idle();
	if (flags & X86_RFLAGS_IF)
		sti();
}

static void apic_error_irq(struct trap_frame *f)
{
	(void)f;
	apic_write(APIC_ESR, 0);
	apic_errors++;
	printk("# WARN apic: error interrupt on CPU %u, ESR 0x%x\n", this_cpu()->cpu_id,
	       apic_read(APIC_ESR));
	apic_eoi();
}

static void apic_spurious_irq(struct trap_frame *f)
{
	(void)f; /* no EOI for the spurious vector (SDM Vol. 3A 11.9) */
}

/*
 * The periodic tick (arch/arch.h arch_tick_start()). The timer counts the
 * APIC's clock divided by 16; its rate is measured once against the TSC,
 * whose frequency the kernel knows, with a masked one-shot count from the
 * maximum: what it counted down in a known number of TSC cycles.
 */
#define TIMER_CALIBRATE_MS 10

static void (*tick_fn)(void);
static u64 timer_hz; /* timer counts per second at divide-by-16; 0: not measured yet */

static void apic_timer_irq(struct trap_frame *f)
{
	(void)f;
	if (tick_fn)
		tick_fn();
	apic_eoi();
}

static u64 apic_timer_calibrate(void)
{
	u64 cycles = tsc_hz() / 1000 * TIMER_CALIBRATE_MS, t0, t1;
	u32 left;

	apic_write(APIC_TIMER_DIV, TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_APIC_TIMER);
	t0 = rdtsc_ordered();
	apic_write(APIC_TIMER_INIT, 0xffffffffu);
	do {
		pause();
		t1 = rdtsc_ordered();
	} while (t1 - t0 < cycles);
	left = apic_read(APIC_TIMER_CUR);
	apic_write(APIC_TIMER_INIT, 0); /* a zero initial count stops the timer (SDM 11.5.4) */
	return (u64)(0xffffffffu - left) * tsc_hz() / (t1 - t0);
}

int arch_tick_start(unsigned hz, void (*fn)(void))
{
	u64 count;

	if (!hz || !fn)
		return -EINVAL;
	if (!timer_hz)
		timer_hz = apic_timer_calibrate();
	count = timer_hz / hz;
	if (!count || count > 0xffffffffu)
		return -ERANGE;
	tick_fn = fn;
	apic_write(APIC_TIMER_DIV, TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_PERIODIC | VEC_APIC_TIMER);
	apic_write(APIC_TIMER_INIT, (u32)count);
	return 0;
}

void arch_tick_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_APIC_TIMER);
	apic_write(APIC_TIMER_INIT, 0);
}

/* Common per-CPU set-up once the mode is on: SVR, LVTs masked, error vector. */
static void apic_enable_local(void)
{
	icr_hi_cached[this_cpu()->cpu_id] = 0; /* not known until written */
	if (mode == APIC_MODE_XAPIC)
		apic_icr_wait_idle(); /* the firmware's last send: ours wait after, not before */
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_MASKED);
	apic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_APIC_SPURIOUS);
}

/* Switches this CPU's APIC into the chosen mode via IA32_APIC_BASE. */
static void apic_set_mode_msr(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	if (mode == APIC_MODE_X2APIC) {
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
		return;
	}
	/* x2APIC -> xAPIC must pass through disabled (SDM Vol. 3A 11.12.5). */
	if (base & APIC_BASE_EXTD)
		wrmsr(MSR_APIC_BASE, base & ~(APIC_BASE_EN | APIC_BASE_EXTD));
	wrmsr(MSR_APIC_BASE, (base & ~APIC_BASE_EXTD) | APIC_BASE_EN);
}

static void apic_base_read(void *arg)
{
	*(u64 *)arg = rdmsr(MSR_APIC_BASE);
}

static void apic_base_write(void *arg)
{
	wrmsr(MSR_APIC_BASE, *(u64 *)arg);
}

/*
 * A global disable clears CPUID.1:EDX[9] too (SDM Vol. 3A 11.4.3), so a
 * clear bit means either no APIC or one the firmware turned off. Every
 * x86-64 CPU delivers interrupts over the system bus, where setting
 * IA32_APIC_BASE[11] again is allowed without a reset (same section; only
 * the 3-wire APIC bus of P6 and Pentium needed one). Interrupts are off
 * and no device can target this APIC yet, which that section requires.
 */
static bool apic_reenable(void)
{
	u64 base;

	if (trap_catch(apic_base_read, &base, NULL))
		return false; /* no such MSR: no APIC at all */
	if (!(base & APIC_BASE_ADDR_MASK))
		base |= APIC_BASE_DEFAULT;
	base |= APIC_BASE_EN;
	if (trap_catch(apic_base_write, &base, NULL))
		return false;
	cpuinfo.apic = cpuid(1).edx & (1u << 9);
	return cpuinfo.apic;
}

void apic_fw_disable(void)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) & ~(APIC_BASE_EN | APIC_BASE_EXTD));
	cpuinfo.apic = cpuid(1).edx & (1u << 9);
}

int apic_probe(char *err, size_t errlen)
{
	if (cpuinfo.apic)
		return 0;
	if (apic_reenable()) {
		printk("# WARN apic: the firmware left the local APIC disabled (IA32_APIC_BASE[11] "
		       "clear); enabled it again\n");
		return 0;
	}
	fmt_snprintf(err, errlen,
		     "this CPU has no usable local APIC (CPUID.1:EDX[9] clear, and setting "
		     "IA32_APIC_BASE[11] did not enable one): mmlab needs it for IPIs");
	return -EIO;
}

int apic_init_bsp(int want, paddr_t mmio_base, char *err, size_t errlen)
{
	if (want == 2 && !cpuinfo.x2apic) {
		fmt_snprintf(err, errlen,
			     "apic=x2apic but this CPU has no x2APIC (CPUID.1:ECX[21])");
		return -EINVAL;
	}
	mode = (want == 1 || !cpuinfo.x2apic) ? APIC_MODE_XAPIC : APIC_MODE_X2APIC;
	if (mode == APIC_MODE_XAPIC) {
		mmio = mmio_base ? kpt_map_mmio(mmio_base, 0x1000) : NULL;
		if (!mmio) {
			fmt_snprintf(err, errlen, "local APIC at 0x%lx is not reachable",
				     mmio_base);
			return -EINVAL;
		}
	}
	apic_set_mode_msr();
	irq_register(VEC_APIC_TIMER, apic_timer_irq);
	irq_register(VEC_APIC_ERROR, apic_error_irq);
	irq_register(VEC_APIC_SPURIOUS, apic_spurious_irq);
	apic_enable_local();
	return 0;
}

void apic_init_ap(void)
{
	apic_set_mode_msr();
	apic_enable_local();
}

enum apic_mode apic_mode(void)
{
	return mode;
}

const char *apic_mode_name(void)
{
	return mode == APIC_MODE_X2APIC ? "x2apic" : "xapic";
}

u32 apic_id(void)
{
	u32 id = apic_read(APIC_ID);

	return mode == APIC_MODE_X2APIC ? id : id >> 24;
}

u32 apic_max_id(void)
{
	return mode == APIC_MODE_X2APIC ? 0xfffffffeu : 0xfeu;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

void apic_send_ipi(u32 dest, u8 vector)
{
	apic_icr_write(dest, ICR_FIXED | ICR_ASSERT | vector);
}

void apic_send_nmi_allbutself(void)
{
	apic_icr_write(0, ICR_NMI | ICR_ASSERT | ICR_ALL_BUT_SELF);
}

void apic_send_init(u32 dest)
{
	apic_icr_write(dest, ICR_INIT | ICR_ASSERT);
}

void apic_send_sipi(u32 dest, u8 page)
{
	apic_icr_write(dest, ICR_STARTUP | page);
}
