/*
 * Strict kernel command-line parsing. The line is split on blanks into
 * key=value words; each key is looked up in opt_keys[], whose entry says
 * how to parse the value and where in struct options to store it. Nothing
 * is ignored: an unknown key, a bad or empty value, a repeated key or a
 * malformed list fails the whole parse with a message quoting the word.
 * Runs once on the boot CPU before SMP bring-up; no locks, no allocation.
 */
#include "kernel/cmdline.h"
#include "errno.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "lib/string.h"

enum opt_type {
	OPT_ENUM,  /* one word of ->words; stored as its index */
	OPT_UINT,  /* decimal or 0x number in ->min..->max, a u32 */
	OPT_CPUS,  /* "all" or increasing counts in ->min..->max, struct opt_cpus */
	OPT_NAMES, /* "all" or distinct names from bench_names, struct opt_names */
	OPT_IDENT, /* [A-Za-z0-9_] items, comma-separated, 1..->max characters, a char array */
};

struct opt_key {
	const char *key;
	enum opt_type type;
	size_t offset;		  /* of the field in struct options */
	const char *const *words; /* OPT_ENUM: NULL-terminated, index = value */
	u32 min, max;		  /* value range, or length limit for OPT_IDENT */
	u32 def;		  /* default of OPT_ENUM and OPT_UINT fields */
};

/* One word being parsed, with what error messages need to quote. */
struct cmdline_ctx {
	const struct opt_key *key;
	const char *word, *val; /* the whole key=value word, and its value */
	int wlen, vlen;		/* int for "%.*s"; a boot command line is short */
	void *field;
	const char *const *bench_names;
	char *err;
	size_t errlen;
};

static const char *const opt_mode_words[] = {
	[OPT_MODE_BENCH] = "bench",
	[OPT_MODE_SELFTEST] = "selftest",
	[OPT_MODE_COUNT] = NULL,
};
static const char *const opt_format_words[] = {
	[OPT_FORMAT_JSON] = "json",
	[OPT_FORMAT_LAVA] = "lava",
	[OPT_FORMAT_COUNT] = NULL,
};
static const char *const opt_console_words[] = {
	[OPT_CONSOLE_TTYS0] = "ttyS0",
	[OPT_CONSOLE_TTYS1] = "ttyS1",
	[OPT_CONSOLE_COUNT] = NULL,
};
static const char *const opt_apic_words[] = {
	[OPT_APIC_AUTO] = "auto",
	[OPT_APIC_XAPIC] = "xapic",
	[OPT_APIC_X2APIC] = "x2apic",
	[OPT_APIC_COUNT] = NULL,
};
static const char *const opt_tsc_calibrate_words[] = {
	[OPT_TSC_AUTO] = "auto",
	[OPT_TSC_PIT] = "pit",
	[OPT_TSC_HPET] = "hpet",
	[OPT_TSC_COUNT] = NULL,
};
static const char *const opt_crash_words[] = {
	[OPT_CRASH_NONE] = "none",
	[OPT_CRASH_UD] = "ud",
	[OPT_CRASH_DE] = "de",
	[OPT_CRASH_PF] = "pf",
	[OPT_CRASH_GP] = "gp",
	[OPT_CRASH_PANIC] = "panic",
	[OPT_CRASH_HANG] = "hang",
	[OPT_CRASH_COUNT] = NULL,
};

#define OPT_FIELD(f) offsetof(struct options, f)
#define OPT_KEY_ENUM(k, f, w, d) { k, OPT_ENUM, OPT_FIELD(f), w, 0, 0, d }
#define OPT_KEY_UINT(k, f, lo, hi, d) { k, OPT_UINT, OPT_FIELD(f), NULL, lo, hi, d }

/* One line per key. Ranges come from DESIGN.md and the benchmarks' needs. */
static const struct opt_key opt_keys[] = {
	OPT_KEY_ENUM("mode", mode, opt_mode_words, OPT_MODE_BENCH),
	{ "bench", OPT_NAMES, OPT_FIELD(bench), NULL, 0, 0, 0 },
	{ "cpus", OPT_CPUS, OPT_FIELD(cpus), NULL, 1, MAX_CPUS, 0 },
	OPT_KEY_UINT("iters", iters, 1, OPT_ITERS_MAX, 0),
	OPT_KEY_ENUM("format", format, opt_format_words, OPT_FORMAT_JSON),
	OPT_KEY_ENUM("console", console, opt_console_words, OPT_CONSOLE_TTYS0),
	OPT_KEY_ENUM("apic", apic, opt_apic_words, OPT_APIC_AUTO),
	{ "ktest", OPT_IDENT, OPT_FIELD(ktest), NULL, 1, OPT_KTEST_MAX, 0 },
	OPT_KEY_UINT("timeout_ms", timeout_ms, 1, 600000, 1000),
	OPT_KEY_UINT("tlb_ceiling", tlb_ceiling, 1, 512, 33),
	OPT_KEY_UINT("swap_mb", swap_mb, 1, 16384, 512),
	OPT_KEY_UINT("swapfree_mb", swapfree_mb, 1, 16384, 256),
	OPT_KEY_ENUM("crash", crash, opt_crash_words, OPT_CRASH_NONE),
	OPT_KEY_ENUM("tsc_calibrate", tsc_calibrate, opt_tsc_calibrate_words, OPT_TSC_AUTO),
	OPT_KEY_UINT("ap_nostart", ap_nostart, 0, MAX_CPUS - 1, 0),
	OPT_KEY_UINT("apic_fw_off", apic_fw_off, 0, 1, 0),
};

BUILD_ASSERT(ARRAY_SIZE(opt_keys) <= 64); /* one bit each in options.given */
/* Enum fields are read and written as int through the table. */
BUILD_ASSERT(sizeof(enum opt_mode) == sizeof(int) && sizeof(enum opt_format) == sizeof(int));
BUILD_ASSERT(sizeof(enum opt_console) == sizeof(int) && sizeof(enum opt_apic) == sizeof(int));
BUILD_ASSERT(sizeof(enum opt_crash) == sizeof(int));
BUILD_ASSERT(sizeof(enum opt_tsc_calibrate) == sizeof(int));
BUILD_ASSERT(sizeof(((struct options *)0)->ktest) == OPT_KTEST_MAX + 1);
BUILD_ASSERT(MAX_CPUS >= 1);

static bool cmdline_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* True when the n bytes at s are exactly the string word. */
static bool cmdline_word_is(const char *s, size_t n, const char *word)
{
	return strncmp(s, word, n) == 0 && word[n] == '\0';
}

static const struct opt_key *cmdline_find_key(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opt_keys); i++) {
		if (cmdline_word_is(s, n, opt_keys[i].key))
			return &opt_keys[i];
	}
	return NULL;
}

static __printf(2, 3) int cmdline_error(struct cmdline_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Appends to the message already in c->err, keeping it NUL-terminated. */
static __printf(2, 3) void cmdline_error_append(struct cmdline_ctx *c, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (c->errlen == 0)
		return;
	len = strnlen(c->err, c->errlen - 1);
	va_start(ap, fmt);
	fmt_vsnprintf(c->err + len, c->errlen - len, fmt, ap);
	va_end(ap);
}

static int cmdline_enum(struct cmdline_ctx *c)
{
	const char *const *w;

	for (w = c->key->words; *w; w++) {
		if (cmdline_word_is(c->val, c->vlen, *w)) {
			*(int *)c->field = (int)(w - c->key->words);
			return 0;
		}
	}
	cmdline_error(c, "bad value '%.*s' for '%s' (expected ", c->vlen, c->val, c->key->key);
	for (w = c->key->words; *w; w++)
		cmdline_error_append(c, "%s%s", w == c->key->words ? "" : "|", *w);
	cmdline_error_append(c, ")");
	return -EINVAL;
}

static int cmdline_uint(struct cmdline_ctx *c)
{
	const struct opt_key *k = c->key;
	u64 v;
	int err = parse_u64(c->val, c->vlen, &v);

	if (err == -EINVAL)
		return cmdline_error(c, "bad value '%.*s' for '%s' (expected a number %u..%u)",
				     c->vlen, c->val, k->key, k->min, k->max);
	if (err || v < k->min || v > k->max)
		return cmdline_error(c, "value '%.*s' for '%s' out of range (expected %u..%u)",
				     c->vlen, c->val, k->key, k->min, k->max);
	*(u32 *)c->field = (u32)v;
	return 0;
}

static int cmdline_ident_item(struct cmdline_ctx *c, const char *s, int n)
{
	for (int i = 0; i < n; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_';

		if (!ok)
			return cmdline_error(c,
					     "bad value '%.*s' for '%s' (expected names of "
					     "A-Z a-z 0-9 _, comma-separated)",
					     c->vlen, c->val, c->key->key);
	}
	return 0;
}

/*
 * Calls item() on each comma-separated item of the value. An empty item,
 * including the one after a trailing comma, is an error.
 */
typedef int cmdline_item_fn(struct cmdline_ctx *c, const char *s, int n);

static int cmdline_list(struct cmdline_ctx *c, cmdline_item_fn *item)
{
	const char *p = c->val, *end = c->val + c->vlen, *q;
	int err;

	for (;; p = q + 1) {
		for (q = p; q < end && *q != ','; q++)
			;
		if (q == p)
			return cmdline_error(c, "empty item in '%.*s'", c->wlen, c->word);
		err = item(c, p, q - p);
		if (err || q == end)
			return err;
	}
}

static int cmdline_ident(struct cmdline_ctx *c)
{
	int err;

	if ((u32)c->vlen > c->key->max)
		return cmdline_error(c, "bad value '%.*s' for '%s' (at most %u characters)", c->vlen,
				     c->val, c->key->key, c->key->max);
	err = cmdline_list(c, cmdline_ident_item);
	if (err)
		return err;
	memcpy(c->field, c->val, c->vlen);
	((char *)c->field)[c->vlen] = '\0';
	return 0;
}

static int cmdline_cpu_item(struct cmdline_ctx *c, const char *s, int n)
{
	struct opt_cpus *cpus = c->field;
	u64 v;

	if (parse_u64(s, n, &v) || v < c->key->min || v > c->key->max)
		return cmdline_error(c, "bad cpu count '%.*s' in '%.*s' (expected %u..%u or all)",
				     n, s, c->wlen, c->word, c->key->min, c->key->max);
	if (cpus->n > 0 && v <= cpus->count[cpus->n - 1])
		return cmdline_error(c, "cpu counts must increase: '%.*s' after %u in '%.*s'", n, s,
				     cpus->count[cpus->n - 1], c->wlen, c->word);
	if (cpus->n == OPT_CPUS_MAX)
		return cmdline_error(c, "more than %d cpu counts in '%.*s'", OPT_CPUS_MAX, c->wlen,
				     c->word);
	cpus->count[cpus->n++] = (u32)v;
	return 0;
}

static int cmdline_unknown_name(struct cmdline_ctx *c, const char *s, int n)
{
	const char *const *b;

	cmdline_error(c, "unknown benchmark '%.*s' in '%.*s' (known: ", n, s, c->wlen, c->word);
	for (b = c->bench_names; b && *b; b++)
		cmdline_error_append(c, "%s%s", b == c->bench_names ? "" : ",", *b);
	cmdline_error_append(c, ")");
	return -EINVAL;
}

static int cmdline_name_item(struct cmdline_ctx *c, const char *s, int n)
{
	struct opt_names *names = c->field;
	const char *const *b;
	unsigned i;

	for (b = c->bench_names; b && *b && !cmdline_word_is(s, n, *b); b++)
		;
	if (!b || !*b)
		return cmdline_unknown_name(c, s, n);
	for (i = 0; i < names->n; i++) {
		if (names->name[i] == *b)
			return cmdline_error(c, "benchmark '%s' listed twice in '%.*s'", *b,
					     c->wlen, c->word);
	}
	if (names->n == OPT_BENCH_MAX)
		return cmdline_error(c, "more than %d benchmarks in '%.*s'", OPT_BENCH_MAX, c->wlen,
				     c->word);
	names->name[names->n++] = *b;
	return 0;
}

static int cmdline_value(struct cmdline_ctx *c)
{
	bool all = cmdline_word_is(c->val, c->vlen, "all");

	switch (c->key->type) {
	case OPT_ENUM:
		return cmdline_enum(c);
	case OPT_UINT:
		return cmdline_uint(c);
	case OPT_IDENT:
		return cmdline_ident(c);
	case OPT_CPUS:
		return all ? 0 : cmdline_list(c, cmdline_cpu_item);
	case OPT_NAMES:
		return all ? 0 : cmdline_list(c, cmdline_name_item);
	}
	return -EINVAL;
}

/* Parses one key=value word into opt. */
static int cmdline_word(struct cmdline_ctx *c, struct options *opt)
{
	const char *eq = c->word;
	u64 bit;

	while (eq < c->word + c->wlen && *eq != '=')
		eq++;
	if (eq == c->word || eq == c->word + c->wlen)
		return cmdline_error(c, "word '%.*s' is not key=value", c->wlen, c->word);
	c->key = cmdline_find_key(c->word, eq - c->word);
	if (!c->key)
		return cmdline_error(c, "unknown option '%.*s' in word '%.*s'", (int)(eq - c->word),
				     c->word, c->wlen, c->word);
	bit = 1ull << (c->key - opt_keys);
	if (opt->given & bit)
		return cmdline_error(c, "option '%s' given twice", c->key->key);
	opt->given |= bit;
	c->val = eq + 1;
	c->vlen = c->word + c->wlen - c->val;
	if (c->vlen == 0)
		return cmdline_error(c, "empty value in word '%.*s'", c->wlen, c->word);
	c->field = (char *)opt + c->key->offset;
	return cmdline_value(c);
}

/**
 * options_set_defaults - fill @opt with the value of every key left out
 *
 * mode=bench, every benchmark, cpus=all, iters=0 (each benchmark's own
 * default), format=json, console=ttyS0 (the firmware's SPCR console may
 * replace it while console= is not given), apic=auto, every ktest suite,
 * crash=none, tsc_calibrate=auto, ap_nostart=0 and the defaults in
 * opt_keys[] for the rest; nothing marked as given.
 */
void options_set_defaults(struct options *opt)
{
	size_t i;

	memset(opt, 0, sizeof(*opt));
	for (i = 0; i < ARRAY_SIZE(opt_keys); i++) {
		void *field = (char *)opt + opt_keys[i].offset;

		if (opt_keys[i].type == OPT_ENUM)
			*(int *)field = (int)opt_keys[i].def;
		else if (opt_keys[i].type == OPT_UINT)
			*(u32 *)field = opt_keys[i].def;
	}
}

/**
 * cmdline_parse - parse the kernel command line into options
 * @line:        NUL-terminated key=value words separated by blanks; NULL or
 *               empty means all defaults
 * @bench_names: NULL-terminated names bench= may use; bench.name[] points
 *               at these entries, so they must outlive @opt
 * @opt:         receives the options
 * @err:         receives a one-line message on failure; may be NULL if
 *               @errlen is 0
 * @errlen:      size of @err
 *
 * Stops at the first bad word. Boot CPU, once, any IRQ state.
 * Returns 0 with @opt filled, or -EINVAL with @opt reset to defaults and
 * @err naming the offending word.
 */
int cmdline_parse(const char *line, const char *const *bench_names, struct options *opt, char *err,
		  size_t errlen)
{
	struct cmdline_ctx c = {
		.bench_names = bench_names,
		.err = err,
		.errlen = err ? errlen : 0,
	};
	const char *p = line ? line : "";
	int ret = 0;

	options_set_defaults(opt);
	if (c.errlen)
		err[0] = '\0';
	while (ret == 0) {
		while (cmdline_is_blank(*p))
			p++;
		if (!*p)
			break;
		c.word = p;
		while (*p && !cmdline_is_blank(*p))
			p++;
		c.wlen = p - c.word;
		ret = cmdline_word(&c, opt);
	}
	if (ret)
		options_set_defaults(opt);
	return ret;
}

/**
 * options_given - whether @key appeared on the parsed command line
 *
 * Lets callers tell a default from an explicit choice (console= decides
 * whether a firmware-reported port may be used instead). Returns false for
 * a key the table does not know.
 */
bool options_given(const struct options *opt, const char *key)
{
	const struct opt_key *k = cmdline_find_key(key, strlen(key));

	return k && (opt->given & (1ull << (k - opt_keys)));
}

/**
 * options_word - the command-line word for an enum option's value
 *
 * options_word("format", OPT_FORMAT_LAVA) is "lava". Returns NULL when
 * @key is not an enum key or @value is out of range.
 */
const char *options_word(const char *key, int value)
{
	const struct opt_key *k = cmdline_find_key(key, strlen(key));
	int i;

	if (!k || k->type != OPT_ENUM || value < 0)
		return NULL;
	for (i = 0; k->words[i]; i++) {
		if (i == value)
			return k->words[i];
	}
	return NULL;
}

/**
 * options_bench_selected - whether benchmark @name is to run
 *
 * True when bench= was absent or "all", or listed @name.
 */
bool options_bench_selected(const struct options *opt, const char *name)
{
	unsigned i;

	if (opt->bench.n == 0)
		return true;
	for (i = 0; i < opt->bench.n; i++) {
		if (strcmp(opt->bench.name[i], name) == 0)
			return true;
	}
	return false;
}
