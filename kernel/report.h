/*
 * The run's machine-readable frame on the console: the MMLAB header first,
 * the MMLAB-DONE trailer last, and the pass/fail/skip tallies in between.
 * Tallies are updated by the self-test and benchmark runners on the boot
 * CPU; panic reads them to print a trailer even when the run dies.
 */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H

#include "compiler.h"
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
 * REPORT_HEADER_FIELD(name, fn) registers fn to add its keys to the header
 * (after "timing"): a module states a setting of its own (bench/ its
 * placement=) without kernel/ knowing it. Same kind of linker set as
 * RUN_MODE (report_header_fields).
 */
struct json;
struct report_header_field {
	const char *name;
	void (*describe)(struct json *j);
};
#define REPORT_HEADER_FIELD(fname, fn)                                                             \
	static const struct report_header_field report_header_field_##fname __used                 \
		__section("report_header_fields") __aligned(8) = { #fname, fn }

/*
 * Prints MMLAB-DONE {...} with @status ("pass", "fail", "usage", "panic") and
 * an optional reason.
 */
void report_trailer(const char *status, const char *reason);

#endif
