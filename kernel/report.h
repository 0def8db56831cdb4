/*
 * The run's machine-readable frame on the console: the MMLAB header first,
 * the MMLAB-DONE trailer last, and the pass/fail/skip tallies in between.
 * Tallies are updated by the self-test and benchmark runners on the boot
 * CPU; panic reads them to print a trailer even when the run dies.
 */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H

#include "types.h"

struct report_totals {
	unsigned passed, failed, skipped;
};

/* Adds to the run's tallies. */
void report_count(unsigned passed, unsigned failed, unsigned skipped);
struct report_totals report_totals(void);

/*
 * Prints the one-line MMLAB {...} header, then everything printk held back
 * until now. Called once; panic calls it if nobody did.
 */
void report_header(void);

/*
 * Prints MMLAB-DONE {...} with @status ("pass", "fail", "usage", "panic") and
 * an optional reason.
 */
void report_trailer(const char *status, const char *reason);

#endif
