/*
 * The kernel command line: space-separated key=value words, parsed strictly
 * (docs/design.md, "Kernel command line"). Every key is one entry of the
 * cmdline_opts linker set: the run's own options (struct options) from
 * kernel/cmdline.c, each module's knobs from the module (OPTION_UINT).
 * Contracts are at the definitions in kernel/cmdline.c.
 */
#ifndef MMLAB_KERNEL_CMDLINE_H
#define MMLAB_KERNEL_CMDLINE_H

#include "types.h"

/* Most CPUs the kernel supports; a -D override from the Makefile wins. */
#ifndef MAX_CPUS
#define MAX_CPUS 256
#endif

#define OPT_BENCH_MAX 16 /* names in bench= */
#define OPT_CPUS_MAX 32	 /* counts in cpus= */
#define OPT_KTEST_MAX 95 /* characters in ktest= */
#define OPT_ITERS_MAX 1000 /* timed runs per result (bench/bench.h BENCH_MAX_RUNS), all on one BENCH line */

enum opt_mode { OPT_MODE_BENCH, OPT_MODE_SELFTEST, OPT_MODE_COUNT };
enum opt_format { OPT_FORMAT_JSON, OPT_FORMAT_LAVA, OPT_FORMAT_COUNT };
/* crash=: a deliberate failure after the header, to test failure paths (kernel/crash.c). */
enum opt_crash {
	OPT_CRASH_NONE,
	OPT_CRASH_UD,
	OPT_CRASH_DE,
	OPT_CRASH_PF,
	OPT_CRASH_GP,
	OPT_CRASH_PANIC,
	OPT_CRASH_HANG,
	OPT_CRASH_COUNT,
};

/* bench=a,b: which benchmarks run, in command-line order. */
struct opt_names {
	unsigned n;			 /* 0: every benchmark */
	const char *name[OPT_BENCH_MAX]; /* entries of the caller's bench_names */
};

/* cpus=1,2,4: the CPU counts each benchmark runs at. */
struct opt_cpus {
	unsigned n;		 /* 0: all (1 up to every online CPU) */
	u32 count[OPT_CPUS_MAX]; /* strictly increasing, 1..MAX_CPUS */
};

/*
 * The run's own options, which callers (the modes, tests of the harness)
 * pass around; every module-specific knob lives in its module instead
 * (OPTION_UINT/OPTION_ENUM below).
 */
struct options {
	enum opt_mode mode;	       /* mode=bench|selftest (kernel/run.c) */
	struct opt_names bench;	       /* bench=NAME,...|all */
	struct opt_cpus cpus;	       /* cpus=N,...|all */
	u32 iters;		       /* iters=1..OPT_ITERS_MAX; 0: benchmark's default */
	enum opt_format format;	       /* format=json|lava */
	char ktest[OPT_KTEST_MAX + 1]; /* ktest=SUITE,...; "": every suite */
	enum opt_crash crash;	       /* crash=none|ud|de|pf|gp|panic|hang */
	u64 given;		       /* bit i: option i of the set was on the line */
};

enum opt_type {
	OPT_ENUM,  /* one word of ->words; stored as its index, an int */
	OPT_UINT,  /* decimal or 0x number in ->min..->max, a u32 */
	OPT_CPUS,  /* "all" or increasing counts in ->min..->max, struct opt_cpus */
	OPT_NAMES, /* "all" or distinct names from bench_names, struct opt_names */
	OPT_IDENT, /* [A-Za-z0-9_] items, comma-separated, 1..->max characters, a char array */
};

/* One command-line option: its word, how to parse it, where the value lives. */
struct opt_key {
	const char *key;
	enum opt_type type;
	void *value;		  /* the owning module's variable; NULL: in struct options */
	size_t offset;		  /* of the field in struct options, when @value is NULL */
	const char *const *words; /* OPT_ENUM: NULL-terminated, index = value */
	u32 min, max;		  /* value range, or length limit for OPT_IDENT */
	u32 def;		  /* default of OPT_ENUM and OPT_UINT values */
};

/*
 * A relation between two number options, checked once the whole line is
 * read (defaults standing in): @lesser's value must not exceed @greater's.
 */
struct opt_constraint {
	const char *lesser, *greater;
	const char *why;
};

/*
 * OPTION_UINT(key, var, min, max, def) and OPTION_ENUM(key, var, words, def),
 * at file scope next to the code that uses @var, register key= in the
 * cmdline_opts section; the parse stores into @var (a u32, or an int-sized
 * enum), so an option without its consumer cannot exist. The section name
 * is a C identifier: the host linker provides __start_/__stop_cmdline_opts,
 * linker.ld defines them too. OPTION_CONSTRAINT(lesser, greater, why) does
 * the same for a relation (cmdline_constraints).
 */
#define OPTION_DEFINE(k, ...)                                                                      \
	static const struct opt_key opt_key_##k __used __section("cmdline_opts")                   \
		__aligned(8) = { #k, __VA_ARGS__ }
#define OPTION_UINT(k, var, lo, hi, d)                                                             \
	_Static_assert(sizeof(var) == sizeof(u32), #k ": a u32");                                  \
	OPTION_DEFINE(k, OPT_UINT, &(var), 0, NULL, lo, hi, d)
#define OPTION_ENUM(k, var, w, d)                                                                  \
	_Static_assert(sizeof(var) == sizeof(int), #k ": an int-sized enum");                      \
	OPTION_DEFINE(k, OPT_ENUM, &(var), 0, w, 0, 0, d)
#define OPTION_CONSTRAINT(lesser, greater, why)                                                    \
	static const struct opt_constraint opt_constraint_##lesser##_##greater __used              \
		__section("cmdline_constraints") __aligned(8) = { #lesser, #greater, why }

void options_set_defaults(struct options *opt);
int cmdline_parse(const char *line, const char *const *bench_names, struct options *opt, char *err,
		  size_t errlen);
bool options_given(const struct options *opt, const char *key);
const char *options_word(const char *key, int value);
bool options_bench_selected(const struct options *opt, const char *name);
bool options_value(const char *key, u32 *value);
void options_save(void);
void options_restore(void);

#endif
