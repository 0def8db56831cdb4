/*
 * The registered run modes (RUN_MODE, kernel/run.h) as the command line and
 * the bring-up see them: the words mode= accepts, the mode a parsed line
 * selects, how many CPUs it wants. No other dependency, so host tests of
 * the parser link it too.
 */
#include "kernel/run.h"
#include "kernel/cmdline.h"
#include "lib/string.h"

/*
 * Bounds of the run_modes section: from the host linker or linker.ld.
 * Weak, so a host program that registers no mode links: an empty set.
 */
extern const struct run_mode __start_run_modes[] __attribute__((weak));
extern const struct run_mode __stop_run_modes[] __attribute__((weak));

const char *run_mode_word(int i)
{
	const struct run_mode *m;

	if (i >= 0)
		return i < __stop_run_modes - __start_run_modes ? __start_run_modes[i].name : NULL;
	for (m = __start_run_modes; m < __stop_run_modes; m++) {
		if (m->is_default)
			return m->name;
	}
	return NULL;
}

const struct run_mode *run_mode_find(const struct options *opt)
{
	const struct run_mode *m;

	for (m = __start_run_modes; opt->mode && m < __stop_run_modes; m++) {
		if (strcmp(m->name, opt->mode) == 0)
			return m;
	}
	return NULL;
}

unsigned options_cpus_wanted(const struct options *opt)
{
	const struct run_mode *m = run_mode_find(opt);

	return m && m->cpus_wanted ? m->cpus_wanted() : MAX_CPUS;
}
