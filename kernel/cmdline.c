/*
 * Strict command-line parsing: key=value words, each key looked up in the
 * cmdline_opts linker set, whose entry says how to parse the value and where
 * to store it (struct options below, or the owning module's OPTION_*). An
 * unknown key, a bad, empty or repeated value or a malformed list fails the
 * whole parse, quoting the word: nothing is silently ignored.
 * Boot CPU, before SMP bring-up; no locks, no allocation.
 */
#include "kernel/cmdline.h"
#include "kernel/run.h"
#include "errno.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "lib/string.h"

/*
 * Bounds of the linker sets (kernel/cmdline.h): from the host linker or
 * linker.ld. Weak, because a host program may link no relation at all: the
 * host linker then defines neither bound and both are NULL (an empty set).
 */
extern const struct opt_key __start_cmdline_opts[], __stop_cmdline_opts[];
extern const struct opt_constraint __start_cmdline_constraints[] __attribute__((weak));
extern const struct opt_constraint __stop_cmdline_constraints[] __attribute__((weak));

#define OPT_MAX_KEYS 64 /* one bit each in options.given */

/* One word being parsed, with what error messages need to quote. */
struct cmdline_ctx {
	const struct opt_key *key;
	const char *word, *val; /* the whole key=value word, and its value */
	int wlen, vlen;		/* int for "%.*s"; a boot command line is short */
	void *field;
	char *err;
	size_t errlen;
};

static const char *const opt_format_words[] = {
	[OPT_FORMAT_JSON] = "json",
	[OPT_FORMAT_LAVA] = "lava",
	[OPT_FORMAT_COUNT] = NULL,
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

#define OPT_AT(f) .offset = offsetof(struct options, f)

/* The kernel's own options, stored in struct options. */
OPTION_DEFINE(mode, .type = OPT_WORD, OPT_AT(mode), .word_at = run_mode_word);
OPTION_DEFINE(format, .type = OPT_ENUM, OPT_AT(format), .words = opt_format_words,
	      .def = OPT_FORMAT_JSON);
OPTION_DEFINE(crash, .type = OPT_ENUM, OPT_AT(crash), .words = opt_crash_words,
	      .def = OPT_CRASH_NONE);

/* Enum fields are read and written as int through the table. */
BUILD_ASSERT(sizeof(enum opt_format) == sizeof(int) && sizeof(enum opt_crash) == sizeof(int));

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
	const struct opt_key *k;

	for (k = __start_cmdline_opts; k < __stop_cmdline_opts; k++) {
		if (cmdline_word_is(s, n, k->key))
			return k;
	}
	return NULL;
}

/* Where @k's value lives: its module's variable, or its field of @opt. */
static void *cmdline_field(const struct opt_key *k, const struct options *opt)
{
	return k->value ? k->value : (char *)opt + k->offset;
}

/* Bytes of @k's value: what a reset clears and options_save() keeps. */
static size_t cmdline_value_size(const struct opt_key *k)
{
	switch (k->type) {
	case OPT_UINT_LIST:
		return sizeof(struct opt_uint_list);
	case OPT_NAMES:
		return sizeof(struct opt_names);
	case OPT_IDENT:
		return k->max + 1;
	case OPT_WORD:
		return sizeof(const char *);
	default:
		return sizeof(u32);
	}
}

/* Writes @k's default into @field (lists, names and idents start empty). */
static void cmdline_set_default(const struct opt_key *k, void *field)
{
	memset(field, 0, cmdline_value_size(k));
	if (k->type == OPT_ENUM)
		*(int *)field = (int)k->def;
	else if (k->type == OPT_UINT)
		*(u32 *)field = k->def;
	else if (k->type == OPT_WORD)
		*(const char **)field = k->word_at(-1);
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

static int cmdline_word_of(struct cmdline_ctx *c)
{
	const char *w;
	int i;

	for (i = 0; (w = c->key->word_at(i)); i++) {
		if (cmdline_word_is(c->val, c->vlen, w)) {
			*(const char **)c->field = w;
			return 0;
		}
	}
	cmdline_error(c, "bad value '%.*s' for '%s' (expected ", c->vlen, c->val, c->key->key);
	for (i = 0; (w = c->key->word_at(i)); i++)
		cmdline_error_append(c, "%s%s", i ? "|" : "", w);
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
		return cmdline_error(c, "bad value '%.*s' for '%s' (at most %u characters)",
				     c->vlen, c->val, c->key->key, c->key->max);
	err = cmdline_list(c, cmdline_ident_item);
	if (err)
		return err;
	memcpy(c->field, c->val, c->vlen);
	((char *)c->field)[c->vlen] = '\0';
	return 0;
}

static int cmdline_list_item(struct cmdline_ctx *c, const char *s, int n)
{
	struct opt_uint_list *l = c->field;
	const char *noun = c->key->noun;
	u64 v;

	if (parse_u64(s, n, &v) || v < c->key->min || v > c->key->max)
		return cmdline_error(c, "bad %s '%.*s' in '%.*s' (expected %u..%u or all)", noun, n,
				     s, c->wlen, c->word, c->key->min, c->key->max);
	if (l->n > 0 && v <= l->value[l->n - 1])
		return cmdline_error(c, "%ss must increase: '%.*s' after %u in '%.*s'", noun, n, s,
				     l->value[l->n - 1], c->wlen, c->word);
	if (l->n == OPT_LIST_MAX)
		return cmdline_error(c, "more than %d %ss in '%.*s'", OPT_LIST_MAX, noun, c->wlen,
				     c->word);
	l->value[l->n++] = (u32)v;
	return 0;
}

static int cmdline_unknown_name(struct cmdline_ctx *c, const char *const *known, const char *s,
				int n)
{
	const char *const *b;

	cmdline_error(c, "unknown %s '%.*s' in '%.*s' (known: ", c->key->noun, n, s, c->wlen,
		      c->word);
	for (b = known; b && *b; b++)
		cmdline_error_append(c, "%s%s", b == known ? "" : ",", *b);
	cmdline_error_append(c, ")");
	return -EINVAL;
}

static int cmdline_name_item(struct cmdline_ctx *c, const char *s, int n)
{
	struct opt_names *names = c->field;
	const char *const *known = c->key->names(), *const *b;
	const char *noun = c->key->noun;
	unsigned i;

	for (b = known; b && *b && !cmdline_word_is(s, n, *b); b++)
		;
	if (!b || !*b)
		return cmdline_unknown_name(c, known, s, n);
	for (i = 0; i < names->n; i++) {
		if (names->name[i] == *b)
			return cmdline_error(c, "%s '%s' listed twice in '%.*s'", noun, *b,
					     c->wlen, c->word);
	}
	if (names->n == OPT_NAMES_MAX)
		return cmdline_error(c, "more than %d %ss in '%.*s'", OPT_NAMES_MAX, noun, c->wlen,
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
	case OPT_WORD:
		return cmdline_word_of(c);
	case OPT_UINT_LIST:
		return all ? 0 : cmdline_list(c, cmdline_list_item);
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
	if ((size_t)(c->key - __start_cmdline_opts) >= OPT_MAX_KEYS)
		return cmdline_error(c, "option '%s': more than %d options registered", c->key->key,
				     OPT_MAX_KEYS);
	bit = 1ull << (c->key - __start_cmdline_opts);
	if (opt->given & bit)
		return cmdline_error(c, "option '%s' given twice", c->key->key);
	opt->given |= bit;
	c->val = eq + 1;
	c->vlen = c->word + c->wlen - c->val;
	if (c->vlen == 0)
		return cmdline_error(c, "empty value in word '%.*s'", c->wlen, c->word);
	c->field = cmdline_field(c->key, opt);
	return cmdline_value(c);
}

static u32 cmdline_uint_of(const struct options *opt, const struct opt_key *k)
{
	return *(const u32 *)cmdline_field(k, opt);
}

/*
 * Checks the cmdline_constraints set on a parsed line; -EINVAL with both
 * words in the message. A relation naming an option not built in has no
 * consumer either: it is reported the same way, never skipped.
 */
static int cmdline_check_constraints(struct cmdline_ctx *c, const struct options *opt)
{
	const struct opt_constraint *oc;

	for (oc = __start_cmdline_constraints; oc < __stop_cmdline_constraints; oc++) {
		const struct opt_key *a = cmdline_find_key(oc->lesser, strlen(oc->lesser));
		const struct opt_key *b = cmdline_find_key(oc->greater, strlen(oc->greater));
		u32 va, vb;

		if (!a || !b)
			return cmdline_error(c, "relation '%s' <= '%s': option not built in",
					     oc->lesser, oc->greater);
		va = cmdline_uint_of(opt, a);
		vb = cmdline_uint_of(opt, b);
		if (va <= vb)
			continue;
		return cmdline_error(c, "'%s=%u'%s contradicts '%s=%u'%s: %s must not exceed %s (%s)",
				     a->key, va, options_given(opt, a->key) ? "" : " (default)",
				     b->key, vb, options_given(opt, b->key) ? "" : " (default)",
				     a->key, b->key, oc->why);
	}
	return 0;
}

/**
 * options_set_defaults - fill @opt with the default of each of its fields
 *
 * mode= the default run mode (NULL when none is built in), format=json,
 * crash=none; nothing marked as given. Modules' own options are left
 * alone: cmdline_parse() resets them.
 */
void options_set_defaults(struct options *opt)
{
	const struct opt_key *k;

	memset(opt, 0, sizeof(*opt));
	for (k = __start_cmdline_opts; k < __stop_cmdline_opts; k++) {
		if (!k->value)
			cmdline_set_default(k, cmdline_field(k, opt));
	}
}

/* Every module-owned option back to its default. */
static void cmdline_reset_modules(void)
{
	const struct opt_key *k;

	for (k = __start_cmdline_opts; k < __stop_cmdline_opts; k++) {
		if (k->value)
			cmdline_set_default(k, k->value);
	}
}

/**
 * cmdline_parse - parse the kernel command line into options
 * @line:   NUL-terminated key=value words separated by blanks; NULL or
 *          empty means all defaults
 * @opt:    receives the kernel's own options
 * @err:    receives a one-line message on failure; may be NULL if @errlen
 *          is 0
 * @errlen: size of @err
 *
 * Stops at the first bad word; then checks the relations between words
 * (the cmdline_constraints set), so a line whose words contradict fails too.
 * Every module-owned option is reset to its default first, then set from
 * the line (and reset again on failure). Boot CPU, once, any IRQ state.
 * Returns 0 with @opt filled, or -EINVAL with @opt reset to defaults and
 * @err naming the offending word.
 */
int cmdline_parse(const char *line, struct options *opt, char *err, size_t errlen)
{
	struct cmdline_ctx c = {
		.err = err,
		.errlen = err ? errlen : 0,
	};
	const char *p = line ? line : "";
	int ret = 0;

	options_set_defaults(opt);
	cmdline_reset_modules();
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
	if (ret == 0)
		ret = cmdline_check_constraints(&c, opt);
	if (ret) {
		options_set_defaults(opt);
		cmdline_reset_modules();
	}
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

	return k && (opt->given & (1ull << (k - __start_cmdline_opts)));
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
 * options_name_listed - whether an OPTION_NAMES value selects @name
 *
 * True when the option was absent or "all", or listed @name.
 */
bool options_name_listed(const struct opt_names *names, const char *name)
{
	unsigned i;

	if (names->n == 0)
		return true;
	for (i = 0; i < names->n; i++) {
		if (strcmp(names->name[i], name) == 0)
			return true;
	}
	return false;
}

/**
 * options_value - the current value of the number or enum option @key
 *
 * Reads where the option lives (a module's variable; struct options
 * fields are the caller's, so they are not found here). Returns false,
 * leaving @value alone, when no module-owned number or enum option @key is
 * built in. Any CPU; for tests and reports.
 */
bool options_value(const char *key, u32 *value)
{
	const struct opt_key *k = cmdline_find_key(key, strlen(key));

	if (!k || !k->value || (k->type != OPT_UINT && k->type != OPT_ENUM))
		return false;
	*value = *(const u32 *)k->value;
	return true;
}

#define OPT_SAVE_BYTES 2048 /* every module-owned value, packed */
static u8 options_saved[OPT_SAVE_BYTES];

/*
 * Copies every module-owned value to (@save) or from the saved state.
 * Returns false when they do not all fit (nothing past the first that does
 * not is copied, either way): options_save() reports it to its caller.
 */
static bool options_copy(bool save)
{
	const struct opt_key *k;
	size_t at = 0, n;

	for (k = __start_cmdline_opts; k < __stop_cmdline_opts; k++) {
		if (!k->value)
			continue;
		n = cmdline_value_size(k);
		if (at + n > sizeof(options_saved))
			return false;
		if (save)
			memcpy(options_saved + at, k->value, n);
		else
			memcpy(k->value, options_saved + at, n);
		at += n;
	}
	return true;
}

/**
 * options_save - remember every module-owned option's value
 *
 * With options_restore(), lets a test of the parser run inside a kernel
 * whose modules keep the values the boot command line gave them. Boot CPU,
 * nothing else parsing; one saved state at a time. Returns false when the
 * values outgrow the saved state (OPT_SAVE_BYTES): then they are not all kept.
 */
bool options_save(void)
{
	return options_copy(true);
}

/**
 * options_restore - put back the values options_save() remembered
 */
void options_restore(void)
{
	(void)options_copy(false);
}
