/*
 * The end of a run that went wrong. The first CPU to panic owns the machine:
 * it stops the others, prints its report and the trailer, and exits; any
 * other CPU that panics meanwhile just halts.
 */
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "lib/atomic.h"
#include <arch/arch.h>

static u32 panic_owner_taken;

bool panic_in_progress(void)
{
	return READ_ONCE(panic_owner_taken) != 0;
}

void panic_begin(void)
{
	arch_irq_save();
	if (atomic_xchg(&panic_owner_taken, 1))
		arch_halt();
	printk_panic_mode();
	arch_stop_other_cpus();
	if (printk_holding())
		report_header();
}

void panic_end(const char *why)
{
	report_count(0, 1, 0);
	report_trailer("panic", why);
	arch_exit(EXIT_PANIC);
}

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	panic_begin();
	va_start(ap, fmt);
	fmt_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("mmlab: PANIC on CPU %u: %s\n", arch_cpu_id(), msg);
	arch_backtrace();
	panic_end(msg);
}

void warn_report(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("# WARN %s:%d: %s\n", file, line, msg);
}
