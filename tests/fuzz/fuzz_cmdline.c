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
#include "tests/host/host_owners.h"
#include "tests/ktest.h"

static void fuzz_cmdline_check_ok(const struct options *o)
{
	u32 v;

	FUZZ_CHECK(o->format < OPT_FORMAT_COUNT && o->crash < OPT_CRASH_COUNT);
	FUZZ_CHECK(bench_iters <= HOST_ITERS_MAX);
	FUZZ_CHECK(options_value("console", &v) && v < OPT_CONSOLE_COUNT);
	FUZZ_CHECK(bench_cpus.n <= OPT_LIST_MAX && bench_selected.n <= OPT_NAMES_MAX);
	for (unsigned i = 0; i < bench_cpus.n; i++)
		FUZZ_CHECK(bench_cpus.value[i] >= 1 && bench_cpus.value[i] <= MAX_CPUS &&
			   (i == 0 || bench_cpus.value[i] > bench_cpus.value[i - 1]));
	for (unsigned i = 0; i < bench_selected.n; i++) {
		FUZZ_CHECK(options_name_listed(&bench_selected, bench_selected.name[i]));
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(bench_selected.name[i] != bench_selected.name[j]);
	}
	FUZZ_CHECK(memchr(ktest_filter, '\0', sizeof(ktest_filter)) != NULL);
	/* mode= is one of the registered modes' words (tests/host/host_owners.c). */
	FUZZ_CHECK(o->mode && (strcmp(o->mode, "bench") == 0 || strcmp(o->mode, "selftest") == 0));
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
	rc = cmdline_parse(line, &o, errlen ? err : NULL, errlen);
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
