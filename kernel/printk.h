/*
 * Kernel console output. printk() formats one message (lib/format.h
 * conversions) and writes it to the console in one piece, so lines from
 * different CPUs never interleave. Safe in any context, exceptions and
 * panics included.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "compiler.h"
#include "lib/format.h"
#include <stdarg.h>

#define PRINTK_MAX 2048

/* Formats and writes; output longer than PRINTK_MAX bytes is cut with "...\n". */
__printf(1, 2) void printk(const char *fmt, ...);
void vprintk(const char *fmt, va_list ap);

/*
 * Writes the @n bytes at @s as they are, in one piece like printk() but
 * with no length limit: a BENCH line carrying its samples is longer than
 * PRINTK_MAX. Same contexts as printk().
 */
void printk_write(const char *s, size_t n);

/*
 * Writes @first (the MMLAB header line), then every message held since boot,
 * and from then on writes messages straight to the console.
 */
void printk_release(const char *first, size_t n);

/* True until printk_release(). */
bool printk_holding(void);

/*
 * Called by panic once it owns the machine: from then on printk no longer
 * waits for the console lock, which a stopped CPU may hold.
 */
void printk_panic_mode(void);

#endif
