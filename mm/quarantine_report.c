/*
 * The end-of-run line on what the quarantine holds (mm/quarantine.h):
 * flushes that never completed leave their frames and page tables out of
 * reuse for good, and the run says how many. Kernel only (it prints);
 * registered with RUN_REPORT, so kernel/run.c needs no mm knowledge.
 */
#include "kernel/printk.h"
#include "kernel/run.h"
#include "mm/quarantine.h"

/* Prints the line when anything is held; never fails the run by itself. */
static bool quarantine_report(void)
{
	struct quarantine_stats q;

	quarantine_stats_get(&q);
	if (q.flushes)
		printk("mmlab: %lu flushes did not complete: %lu frames and %lu page tables quarantined (never reused)\n",
		       (unsigned long)q.flushes, (unsigned long)q.frames, (unsigned long)q.tables);
	return true;
}

RUN_REPORT(quarantine, quarantine_report);
