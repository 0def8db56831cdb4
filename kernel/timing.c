/*
 * timing=time|exact (kernel/timing.h). Exact mode's contract: under
 * icount one host thread runs the vCPUs in turn, and a vCPU keeps its turn
 * until it halts or executes PAUSE. So every wait and every busy loop
 * yields each turn (waits through arch_cpu_relax(), work loops through
 * timing_yield()), and the CPU waited for runs next: what the clock then
 * counts is the instructions of the operation, the same on every boot.
 */
#include "kernel/timing.h"
#include "compiler.h"
#include "kernel/cmdline.h"

static const char *const timing_words[] = {
	[TIMING_TIME] = "time",
	[TIMING_EXACT] = "exact",
	[TIMING_COUNT] = NULL,
};

enum timing_mode timing_mode;
OPTION_ENUM(timing, timing_mode, timing_words, TIMING_TIME);

const char *timing_name(void)
{
	return timing_words[timing_mode];
}
