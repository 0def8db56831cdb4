/*
 * printk: format into a per-call stack buffer, then write the whole message
 * under the console lock. The lock is a plain test-and-set flag rather than
 * a spinlock_t so that the lock code itself can printk when it panics.
 */
#include "kernel/printk.h"
#include "lib/atomic.h"
#include <arch/arch.h>

static u32 console_lock;
static bool panic_mode;

static void console_acquire(void)
{
	while (atomic_xchg(&console_lock, 1)) {
		while (READ_ONCE(console_lock)) {
			if (READ_ONCE(panic_mode))
				return;
			arch_cpu_relax();
		}
	}
}

static void console_release(void)
{
	atomic_store_release(&console_lock, 0);
}

void vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < 0 ? 0 : MIN((size_t)n, sizeof(buf) - 1);
	unsigned long flags = arch_irq_save();

	console_acquire();
	arch_console_write(buf, len);
	if ((size_t)n >= sizeof(buf))
		arch_console_write("...\n", 4);
	console_release();
	arch_irq_restore(flags);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void printk_panic_mode(void)
{
	WRITE_ONCE(panic_mode, true);
}
