/*
 * The run's timing mode (timing= word, which run.sh sets): "time" measures
 * elapsed TSC cycles; "exact" is for a run under QEMU's icount, where the
 * TSC counts the instructions of every CPU and figures repeat to the digit.
 * kernel/timing.c states the contract exact mode holds the code to. Set by
 * the command-line parse, read-only afterwards.
 */
#ifndef KERNEL_TIMING_H
#define KERNEL_TIMING_H

#include <arch/arch.h>

enum timing_mode { TIMING_TIME, TIMING_EXACT, TIMING_COUNT };
extern enum timing_mode timing_mode;

static inline bool timing_exact(void)
{
	return timing_mode == TIMING_EXACT;
}

/* "time" or "exact", for the header and the result lines. */
const char *timing_name(void);

/*
 * Once per turn of a loop that works rather than waits (a reader's chunk of
 * reads, a worker's round): in exact mode it yields the CPU (arch_cpu_relax),
 * elsewhere it does nothing, so time mode measures the work as it is.
 */
static inline void timing_yield(void)
{
	if (timing_exact())
		arch_cpu_relax();
}

#endif
