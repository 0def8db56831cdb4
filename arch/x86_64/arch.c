/*
 * The x86-64 implementation of arch/arch.h hooks that need no state of their
 * own: interrupt flags, TLB instructions, console and exit. Each is a thin
 * layer over arch/cpu.h so mm/ and kernel/ stay free of x86 details.
 */
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/traps.h"
#include "compiler.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/tsc.h"
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

void arch_cpu_relax(void)
{
	pause();
}

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

void arch_load_root(paddr_t root, u16 pcid)
{
	write_cr3(root | pcid);
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


bool arch_early_init(unsigned console_index)
{
	static const u16 ports[] = { SERIAL_COM1, SERIAL_COM2 };
	vaddr_t ist[IST_COUNT];
	bool console_ok = console_index < ARRAY_SIZE(ports) && serial_init(ports[console_index]);

	if (!console_ok)
		serial_init(SERIAL_COM1);
	smpboot_init_bsp(0); /* GS base first: exception reports read this_cpu() */
	cpuinfo_init();
	gdt_boot_ist(ist);
	gdt_init_cpu(0, ist);
	idt_init();
	return console_ok;
}
