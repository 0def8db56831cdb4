/*
 * The x86-64 implementation of arch/arch.h hooks that need no state of their
 * own: interrupt flags, TLB instructions, console and exit. Each is a thin
 * layer over arch/cpu.h so mm/ and kernel/ stay free of x86 details. Also
 * the early boot-CPU set-up, which picks the console before anything prints.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/console.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/fwdump.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/traps.h"
#include "compiler.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/tsc.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/qemu_exit.h>

unsigned long arch_irq_save(void)
{
	unsigned long flags = read_rflags();

	cli();
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags & X86_RFLAGS_IF)
		sti();
}

void arch_irq_enable(void)
{
	sti();
}

void arch_idle(void)
{
	safe_halt();
}

bool arch_irqs_enabled(void)
{
	return read_rflags() & X86_RFLAGS_IF;
}

/*
 * PAUSE is a hint for spin-wait loops (SDM Vol. 2B, PAUSE): it spares the
 * loop's exit a memory-order flush and a sibling thread its cycles. Every
 * turn of every wait pauses, on hardware and emulators alike, so the code
 * measured is the code that runs. spin_pause=off drops it from the turns of
 * cross-CPU waits (kernel/smp.h), for a like-for-like row against a peer
 * whose wait loop has no PAUSE; the header and result lines then say so.
 */
enum opt_spin_pause { OPT_PAUSE_ON, OPT_PAUSE_OFF, OPT_PAUSE_COUNT };
static const char *const spin_pause_words[] = {
	[OPT_PAUSE_ON] = "on",
	[OPT_PAUSE_OFF] = "off",
	[OPT_PAUSE_COUNT] = NULL,
};
static enum opt_spin_pause spin_pause_opt;
OPTION_ENUM(spin_pause, spin_pause_opt, spin_pause_words, OPT_PAUSE_ON);

bool arch_spin_pause = true;

/*
 * spinlock=unfair: waiters take a free lock without queueing (kernel/spinlock.h),
 * for a guest with more vCPUs than host cores, where a fair hand-over to a
 * waiter whose host thread is descheduled stalls every CPU queued behind it
 * until the host runs that thread. The launcher knows the counts and asks
 * for it (run.sh); the guest never guesses it from the hypervisor's name.
 */
enum opt_spinlock { OPT_SPIN_TICKET, OPT_SPIN_UNFAIR, OPT_SPIN_COUNT };
static const char *const spinlock_words[] = {
	[OPT_SPIN_TICKET] = "ticket",
	[OPT_SPIN_UNFAIR] = "unfair",
	[OPT_SPIN_COUNT] = NULL,
};
static enum opt_spinlock spinlock_opt;
OPTION_ENUM(spinlock, spinlock_opt, spinlock_words, OPT_SPIN_TICKET);

void arch_cpu_relax(void)
{
	pause();
}

bool arch_spin_unfair_mode;

u64 arch_tsc_read(void)
{
	return rdtsc_ordered();
}

void arch_tlb_flush_one(vaddr_t va)
{
	invlpg(va);
}

void arch_tlb_flush_all(void)
{
	write_cr3(read_cr3());
}

/* Toggling CR4.PGE drops global entries too (SDM Vol. 3A 4.10.4.1). */
void arch_tlb_flush_everything(void)
{
	u64 cr4 = read_cr4();

	if (cr4 & X86_CR4_PGE) {
		write_cr4(cr4 & ~X86_CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

void arch_console_write(const char *s, size_t n)
{
	serial_write(s, n);
}

__attribute__((noreturn)) void arch_halt(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

/*
 * Under QEMU, isa-debug-exit ends the process with a status run.sh decodes.
 * On real hardware (no hypervisor) nothing listens on the port: halt so the
 * serial log stays readable.
 */
__attribute__((noreturn)) void arch_exit(enum arch_exit_status status)
{
	static const u8 codes[] = {
		[EXIT_PASS] = QEMU_EXIT_PASS,
		[EXIT_FAIL] = QEMU_EXIT_FAIL,
		[EXIT_USAGE] = QEMU_EXIT_USAGE,
		[EXIT_PANIC] = QEMU_EXIT_PANIC,
	};

	if (cpuinfo.hypervisor_bit)
		outl(QEMU_EXIT_PORT, codes[status]);
	arch_halt();
}

struct percpu *this_cpu(void)
{
	return gs_read_self();
}

unsigned arch_cpu_id(void)
{
	return this_cpu()->cpu_id;
}

void arch_percpu_add(size_t offset, u64 v)
{
	gs_add_u64(offset, v);
}

/* Zero means "not calibrated": the header then reports tsc_hz as null. */
u64 arch_tsc_hz(void)
{
	return tsc_hz();
}

/*
 * The console: console= if given, else the UART of the ACPI SPCR table, else
 * COM1 (arch/x86_64/console.c). ACPI is parsed here already, through the
 * boot direct map, because the console must be chosen before the first
 * byte goes out; arch_init() parses again for everything else. Returns
 * false when the UART console= names does not answer (COM1 is used).
 */
static bool early_console(const struct options *opt)
{
	static struct acpi_info early_acpi; /* large: never on the stack */
	bool given = opt && options_given(opt, "console");
	struct console_choice c;
	bool ok;

	acpi_init(&early_acpi);
	console_choose(&early_acpi.spcr, given ? (int)console_opt : CONSOLE_NOT_GIVEN, &c);
	ok = serial_uart_init(&c.uart);
	if (!ok) {
		console_fall_back(&c);
		serial_uart_init(&c.uart);
	}
	serial_set_console(&c.uart);
	console_record(&c);
	console_report(); /* held by printk until the header is out */
	return ok || !given;
}

/* tsc_calibrate=: auto tries CPUID, the hypervisor leaf, the PIT, then the HPET. */
enum opt_tsc_calibrate { OPT_TSC_AUTO, OPT_TSC_PIT, OPT_TSC_HPET, OPT_TSC_COUNT };
static const char *const tsc_calibrate_words[] = {
	[OPT_TSC_AUTO] = "auto",
	[OPT_TSC_PIT] = "pit",
	[OPT_TSC_HPET] = "hpet",
	[OPT_TSC_COUNT] = NULL,
};
static enum opt_tsc_calibrate tsc_calibrate;
static u32 ap_nostart; /* test hook: the last N APs get no INIT/SIPI */
static u32 fwdump;     /* hex-dump firmware tables and boot info (fuzz seeds) */
OPTION_ENUM(tsc_calibrate, tsc_calibrate, tsc_calibrate_words, OPT_TSC_AUTO);
OPTION_UINT(ap_nostart, ap_nostart, 0, MAX_CPUS - 1, 0);
OPTION_UINT(fwdump, fwdump, 0, 1, 0);

/*
 * The test and calibration hooks the command line sets for later bring-up
 * steps (a line that did not parse left them at their defaults).
 */
static void early_options(void)
{
	enum tsc_calibration cal = TSC_CAL_AUTO;

	if (tsc_calibrate == OPT_TSC_PIT)
		cal = TSC_CAL_PIT;
	else if (tsc_calibrate == OPT_TSC_HPET)
		cal = TSC_CAL_HPET;
	tsc_set_calibration(cal);
	smpboot_set_nostart(ap_nostart);
}

bool arch_early_init(const struct options *opt)
{
	vaddr_t ist[IST_COUNT];
	bool ok;

	smpboot_init_bsp(0); /* GS base first: exception reports read this_cpu() */
	cpuinfo_init();
	arch_spin_unfair_mode = spinlock_opt == OPT_SPIN_UNFAIR;
	arch_spin_pause = spin_pause_opt == OPT_PAUSE_ON;
	gdt_boot_ist(ist);
	gdt_init_cpu(0, ist);
	idt_init();
	early_options();
	ok = early_console(opt);
	if (fwdump)
		fwdump_write(); /* before anything reuses the loader's memory */
	return ok;
}
