/*
 * The kernel command line: space-separated key=value words, parsed strictly
 * (docs/design.md, "Kernel command line"). Every key is one entry of the
 * cmdline_opts linker set: the kernel's own options (struct options) from
 * kernel/cmdline.c, each module's knobs from the module (OPTION_UINT,
 * OPTION_ENUM, OPTION_NAMES, OPTION_UINT_LIST, OPTION_IDENT).
 * Contracts are at the definitions in kernel/cmdline.c.
 */
#ifndef MMLAB_KERNEL_CMDLINE_H
#define MMLAB_KERNEL_CMDLINE_H

#include "types.h"

/* Most CPUs the kernel supports; a -D override from the Makefile wins. */
#ifndef MAX_CPUS
#define MAX_CPUS 256
#endif

#define OPT_NAMES_MAX 16 /* names in one OPTION_NAMES list */
#define OPT_LIST_MAX 32	 /* numbers in one OPTION_UINT_LIST list */

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

/* An OPTION_NAMES value: which of the owner's names were listed, in command-line order. */
struct opt_names {
	unsigned n;			  /* 0: absent or "all" */
	const char *name[OPT_NAMES_MAX]; /* entries of the owner's names list */
};

/* An OPTION_UINT_LIST value: strictly increasing numbers. */
struct opt_uint_list {
	unsigned n;		 /* 0: absent or "all" */
	u32 value[OPT_LIST_MAX]; /* strictly increasing, in the key's range */
};

/*
 * The options kernel/ itself uses; every other knob lives in the module
 * that uses it (OPTION_* below).
 */
struct options {
	const char *mode;	/* mode=: a registered run mode's word (kernel/run.c) */
	enum opt_format format; /* format=json|lava */
	enum opt_crash crash;	/* crash=none|ud|de|pf|gp|panic|hang */
	u64 given;		/* bit i: option i of the set was on the line */
};

enum opt_type {
	OPT_ENUM,      /* one word of ->words; stored as its index, an int */
	OPT_UINT,      /* decimal or 0x number in ->min..->max, a u32 */
	OPT_UINT_LIST, /* "all" or increasing numbers in ->min..->max, struct opt_uint_list */
	OPT_NAMES,     /* "all" or distinct names from ->names(), struct opt_names */
	OPT_IDENT,     /* [A-Za-z0-9_] items, comma-separated, 1..->max characters, a char array */
	OPT_WORD,      /* one word ->word_at() gives; stored as that pointer, a const char * */
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
	const char *noun;	  /* OPT_NAMES, OPT_UINT_LIST: what an item is, for messages */
	const char *const *(*names)(void); /* OPT_NAMES: NULL-terminated names accepted */
	/* OPT_WORD: the i-th accepted word (NULL past the last); i = -1: the default or NULL. */
	const char *(*word_at)(int i);
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
		__aligned(8) = { .key = #k, __VA_ARGS__ }
#define OPTION_UINT(k, var, lo, hi, d)                                                             \
	_Static_assert(sizeof(var) == sizeof(u32), #k ": a u32");                                  \
	OPTION_DEFINE(k, .type = OPT_UINT, .value = &(var), .min = lo, .max = hi, .def = d)
#define OPTION_ENUM(k, var, w, d)                                                                  \
	_Static_assert(sizeof(var) == sizeof(int), #k ": an int-sized enum");                      \
	OPTION_DEFINE(k, .type = OPT_ENUM, .value = &(var), .words = w, .def = d)
/*
 * OPTION_NAMES(key, var, names_fn, noun): key=all or key=a,b with each
 * item one of names_fn()'s NULL-terminated names, listed once; var is a
 * struct opt_names. @noun ("benchmark") is what the messages call an item.
 */
#define OPTION_NAMES(k, var, names_fn, n)                                                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(var), struct opt_names), #k);       \
	OPTION_DEFINE(k, .type = OPT_NAMES, .value = &(var), .names = names_fn, .noun = n)
/*
 * OPTION_UINT_LIST(key, var, lo, hi, noun): key=all or key=1,2,4, strictly
 * increasing numbers in lo..hi, at most OPT_LIST_MAX; var is a struct
 * opt_uint_list. @noun ("cpu count") is what the messages call an item.
 */
#define OPTION_UINT_LIST(k, var, lo, hi, n)                                                        \
	_Static_assert(__builtin_types_compatible_p(__typeof__(var), struct opt_uint_list), #k);   \
	OPTION_DEFINE(k, .type = OPT_UINT_LIST, .value = &(var), .min = lo, .max = hi, .noun = n)
/* OPTION_IDENT(key, var, max): comma-separated [A-Za-z0-9_] names into char var[max + 1]. */
#define OPTION_IDENT(k, var, len)                                                                  \
	_Static_assert(sizeof(var) == (len) + 1, #k ": a char[max + 1]");                          \
	OPTION_DEFINE(k, .type = OPT_IDENT, .value = (var), .min = 1, .max = len)
#define OPTION_CONSTRAINT(lesser, greater, why)                                                    \
	static const struct opt_constraint opt_constraint_##lesser##_##greater __used              \
		__section("cmdline_constraints") __aligned(8) = { #lesser, #greater, why }

void options_set_defaults(struct options *opt);
int cmdline_parse(const char *line, struct options *opt, char *err, size_t errlen);
bool options_given(const struct options *opt, const char *key);
const char *options_word(const char *key, int value);
bool options_name_listed(const struct opt_names *names, const char *name);
bool options_value(const char *key, u32 *value);
/*
 * How many CPUs the run mode @opt selects will use (its cpus_wanted: bench/'s
 * cpus=), MAX_CPUS when it does not say: the limit of SMP bring-up, so arch
 * reads it without knowing the mode. In kernel/run_modes.c. Boot CPU, after
 * the parse.
 */
unsigned options_cpus_wanted(const struct options *opt);
bool options_save(void);
void options_restore(void);

#endif
