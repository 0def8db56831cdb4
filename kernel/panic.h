/*
 * Fatal errors. panic() prints the CPU and message with a backtrace, stops
 * the other CPUs, prints the MMLAB-DONE trailer with status "panic" and ends
 * the run with the panic exit status; it never returns. ASSERT/BUG_ON stay
 * enabled in every build. WARN_ONCE reports a survivable surprise once.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "compiler.h"
#include "types.h"

__noreturn __printf(1, 2) void panic(const char *fmt, ...);

/* For fatal reports printed by their own code (exceptions): claim the machine, */
void panic_begin(void);
/* then end the run once the report is out. */
__noreturn void panic_end(const char *why);

/* True once some CPU has started to panic. */
bool panic_in_progress(void);

#define ASSERT(cond)                                                                     \
	do {                                                                             \
		if (unlikely(!(cond)))                                                   \
			panic("assertion '%s' failed at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

#define BUG_ON(cond)                                                                \
	do {                                                                        \
		if (unlikely(cond))                                                 \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__);   \
	} while (0)

void warn_report(const char *file, int line, const char *fmt, ...) __printf(3, 4);

#define WARN_ONCE(cond, fmt, ...)                                                  \
	({                                                                          \
		static bool __warned;                                               \
		bool __c = !!(cond);                                                \
		if (unlikely(__c) && !__warned) {                                   \
			__warned = true;                                            \
			warn_report(__FILE__, __LINE__, fmt, ##__VA_ARGS__);        \
		}                                                                   \
		__c;                                                                \
	})

#endif
