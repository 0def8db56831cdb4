/*
 * libFuzzer target for the kernel command-line parser (kernel/cmdline.c).
 * Input: one byte choosing the error buffer's size (0..255 bytes, allocated
 * exactly, so ASan sees a write past it), then the command line (cut at the
 * first NUL, as the boot loader's string is). Checks what cmdline.c
 * promises: 0 with every value in its range, or -EINVAL with the defaults
 * back and a message.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <stdlib.h>
#include <string.h>

#include "errno.h"
#include "arch/x86_64/console.h"
#include "kernel/cmdline.h"

/* The kernel's benchmark names (bench/bench.c's bench_names()). */
static const char *const fuzz_bench_names[] = { "tlb",	     "pin", "pagemap", "swapfree",
						"faultlock", "ipi", NULL };

static void fuzz_cmdline_check_ok(const struct options *o)
{
	u32 v;

	FUZZ_CHECK(o->mode < OPT_MODE_COUNT && o->format < OPT_FORMAT_COUNT);
	FUZZ_CHECK(o->crash < OPT_CRASH_COUNT && o->iters <= OPT_ITERS_MAX);
	FUZZ_CHECK(options_value("console", &v) && v < OPT_CONSOLE_COUNT);
	FUZZ_CHECK(o->cpus.n <= OPT_CPUS_MAX && o->bench.n <= OPT_BENCH_MAX);
	for (unsigned i = 0; i < o->cpus.n; i++)
		FUZZ_CHECK(o->cpus.count[i] >= 1 && o->cpus.count[i] <= MAX_CPUS &&
			   (i == 0 || o->cpus.count[i] > o->cpus.count[i - 1]));
	for (unsigned i = 0; i < o->bench.n; i++) {
		FUZZ_CHECK(options_bench_selected(o, o->bench.name[i]));
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(o->bench.name[i] != o->bench.name[j]);
	}
	FUZZ_CHECK(memchr(o->ktest, '\0', sizeof(o->ktest)) != NULL);
	FUZZ_CHECK(options_word("mode", o->mode) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o, defaults;
	size_t errlen;
	char *line, *err;
	int rc;

	if (size < 1)
		return 0;
	errlen = data[0];
	line = malloc(size);
	err = malloc(errlen ? errlen : 1);
	if (!line || !err)
		fuzz_fail("malloc");
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';
	rc = cmdline_parse(line, fuzz_bench_names, &o, errlen ? err : NULL, errlen);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		fuzz_cmdline_check_ok(&o);
	} else {
		options_set_defaults(&defaults);
		FUZZ_CHECK(memcmp(&o, &defaults, sizeof(o)) == 0);
		FUZZ_CHECK(errlen == 0 || memchr(err, '\0', errlen));
		FUZZ_CHECK(errlen <= 1 || err[0] != '\0'); /* one byte holds only the NUL */
	}
	free(line);
	free(err);
	return 0;
}
