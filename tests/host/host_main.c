/*
 * Host test runner: runs every ktest suite linked into the binary (or those
 * argv[1] selects, as ktest= does in the kernel), prints KTAP to stdout and
 * a totals line, and exits 0 when all passed, 1 on any failure or when the
 * filter selects nothing, 2 on a usage error.
 */
#include <stdio.h>

#include "kernel/design.h"
#include "kernel/printk.h"
#include "tests/ktest.h"

/**
 * ktest_emit - the host's ktest output: straight to stdout
 */
void ktest_emit(const char *s, size_t n)
{
	fwrite(s, 1, n, stdout);
}

/* Usage: test-host [SUITE]; exit status as in the header comment above. */
int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct ktest_totals tot;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [SUITE]\n", argv[0]);
		return 2;
	}
	/* Line-buffered, so the KTAP so far survives a sanitizer abort. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	design_tables_fill();
	/* No MMLAB header to wait for: mm's messages go straight out. */
	printk_release("", 0);
	ktest_run_all(filter, &tot);
	printf("# totals: %u passed, %u failed, %u skipped\n", tot.passed, tot.failed, tot.skipped);
	if (tot.suites == 0) {
		printf("# no test suite matches '%s'\n", filter ? filter : "");
		return 1;
	}
	return tot.failed ? 1 : 0;
}
