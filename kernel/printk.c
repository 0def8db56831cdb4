/*
 * printk: format into a per-call stack buffer, then write the whole message
 * under the console lock. The lock is a plain test-and-set flag rather than
 * a spinlock_t so that the lock code itself can printk when it panics.
 * Until the MMLAB header is out, messages are held in a buffer, so that the
 * header is always the first line whatever bring-up had to say.
 */
#include "kernel/printk.h"
#include "lib/atomic.h"
#include <arch/arch.h>

#define PRINTK_EARLY_BYTES 16384

static u32 console_lock;
static bool panic_mode;
static bool early_hold = true;
static char early_buf[PRINTK_EARLY_BYTES];
static size_t early_len;
static unsigned early_dropped;

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

static void early_append(const char *s, size_t n)
{
	if (n > sizeof(early_buf) - early_len) {
		early_dropped++;
		return;
	}
	for (size_t i = 0; i < n; i++)
		early_buf[early_len++] = s[i];
}

void printk_release(const char *first, size_t n)
{
	char note[80];
	unsigned long flags = arch_irq_save();

	console_acquire();
	arch_console_write(first, n);
	if (early_hold) {
		arch_console_write(early_buf, early_len);
		if (early_dropped) {
			int m = fmt_snprintf(note, sizeof(note), "# WARN printk: %u early messages dropped\n",
					     early_dropped);
			arch_console_write(note, (size_t)m);
		}
		early_hold = false;
	}
	console_release();
	arch_irq_restore(flags);
}

bool printk_holding(void)
{
	return READ_ONCE(early_hold);
}

void vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < 0 ? 0 : MIN((size_t)n, sizeof(buf) - 1);
	unsigned long flags = arch_irq_save();

	console_acquire();
	if (early_hold)
		early_append(buf, len);
	else
		arch_console_write(buf, len);
	if ((size_t)n >= sizeof(buf) && !early_hold)
		arch_console_write("...\n", 4);
	console_release();
	arch_irq_restore(flags);
}

void printk_write(const char *s, size_t n)
{
	unsigned long flags = arch_irq_save();

	console_acquire();
	if (early_hold)
		early_append(s, n);
	else
		arch_console_write(s, n);
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
