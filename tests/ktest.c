/*
 * The ktest runner: finds the suites KTEST_SUITE placed in the ktest_suites
 * section, runs those the filter selects in name order, and prints KTAP v1
 * (Documentation/dev-tools/ktap.rst) through ktest_emit(), with an
 * MMLAB-LAVA line per case under ktest_set_lava(true) (docs/output.md). Runs
 * on one CPU, one case at a time; no locks, no allocation.
 */
#include "tests/ktest.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "lib/format.h"
#include "lib/math.h"
#include "lib/string.h"
#include <arch/arch.h>

/* Bounds of the ktest_suites section: from the host linker or linker.ld. */
extern const struct ktest_suite __start_ktest_suites[];
extern const struct ktest_suite __stop_ktest_suites[];

/* Suite lines are indented under the top level; case diagnostics sit with them. */
#define KTEST_INDENT "  "

static bool ktest_lava;

static void ktest_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	ktest_emit(s, n);
}

static __printf(1, 2) void ktest_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(ktest_sink, NULL, fmt, ap);
	va_end(ap);
}

/* Run order: by name, then by address so equal names still order strictly. */
static bool ktest_suite_before(const struct ktest_suite *a, const struct ktest_suite *b)
{
	int c = strcmp(a->name, b->name);

	return c < 0 || (c == 0 && a < b);
}

/* One filter item: "tlb" selects suite tlb and its variants tlb_naive, tlb_batched, ... */
static bool ktest_item_matches(const char *name, const char *item, size_t n)
{
	return strncmp(name, item, n) == 0 && (name[n] == '\0' || name[n] == '_');
}

/* @filter is a comma-separated list of items; NULL or "" selects everything. */
static bool ktest_name_matches(const char *name, const char *filter)
{
	const char *p = filter;

	if (!filter || !*filter)
		return true;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n && ktest_item_matches(name, p, n))
			return true;
		p += n + (end ? 1 : 0);
	}
	return false;
}

/* A design-table suite's run names: <suite>_<design>. */
#define KTEST_NAME_MAX 64

static const char *ktest_run_name(char *buf, const struct ktest_suite *s, const struct design *d)
{
	if (!d)
		return s->name;
	fmt_snprintf(buf, KTEST_NAME_MAX, "%s_%s", s->name, d->name);
	return buf;
}

/* Whether the run of @s for design @d (NULL: a plain suite) is selected. */
static bool ktest_run_matches(const struct ktest_suite *s, const struct design *d,
			      const char *filter)
{
	char buf[KTEST_NAME_MAX];

	if (d && d->control)
		return false;
	return ktest_name_matches(s->name, filter) ||
	       (d && ktest_name_matches(ktest_run_name(buf, s, d), filter));
}

/* Whether any run of @s is selected. */
static bool ktest_suite_matches(const struct ktest_suite *s, const char *filter)
{
	if (!s->designs)
		return ktest_run_matches(s, NULL, filter);
	for (const struct design *const *d = s->designs; *d; d++)
		if (ktest_run_matches(s, *d, filter))
			return true;
	return false;
}

/* The selected suite that runs right after @prev (NULL: the first one). */
static const struct ktest_suite *ktest_next_suite(const struct ktest_suite *prev,
						  const char *filter)
{
	const struct ktest_suite *s, *best = NULL;

	for (s = __start_ktest_suites; s < __stop_ktest_suites; s++) {
		if (!ktest_suite_matches(s, filter) || (prev && !ktest_suite_before(prev, s)))
			continue;
		if (!best || ktest_suite_before(s, best))
			best = s;
	}
	return best;
}

/**
 * ktest_check - record the outcome of KEXPECT(cond)
 *
 * On failure marks @t failed and prints a "# file:line:" diagnostic.
 * Called from a running test case. Returns @ok.
 */
bool ktest_check(struct ktest *t, bool ok, const char *file, int line, const char *expr)
{
	if (ok)
		return true;
	t->failed = true;
	ktest_printf(KTEST_INDENT "# %s:%d: expected %s\n", file, line, expr);
	return false;
}

/* Compares as mathematical integers: -1 < 0 < 2^64-1 whatever the types. */
static int ktest_int_cmp(struct ktest_int a, struct ktest_int b)
{
	bool a_neg = a.is_signed && (s64)a.raw < 0;
	bool b_neg = b.is_signed && (s64)b.raw < 0;

	if (a_neg != b_neg)
		return a_neg ? -1 : 1;
	/* Same sign: two's complement orders negatives correctly as u64 too. */
	return a.raw < b.raw ? -1 : a.raw > b.raw;
}

static void ktest_print_int(struct ktest_int v)
{
	if (v.is_signed)
		ktest_printf("%s = %lld (0x%llx)", v.text, (long long)v.raw,
			     (unsigned long long)v.raw);
	else
		ktest_printf("%s = %llu (0x%llx)", v.text, (unsigned long long)v.raw,
			     (unsigned long long)v.raw);
}

/**
 * ktest_check_int - record the outcome of KEXPECT_EQ and the other comparisons
 *
 * On failure marks @t failed and prints both operands in decimal and hex.
 * Called from a running test case. Returns whether "@a @op @b" held.
 */
bool ktest_check_int(struct ktest *t, enum ktest_op op, struct ktest_int a, struct ktest_int b,
		     const char *file, int line)
{
	static const char *const op_text[] = {
		[KTEST_EQ] = "==", [KTEST_NE] = "!=", [KTEST_LT] = "<",
		[KTEST_LE] = "<=", [KTEST_GT] = ">",  [KTEST_GE] = ">=",
	};
	int c = ktest_int_cmp(a, b);
	bool ok;

	switch (op) {
	case KTEST_EQ:
		ok = c == 0;
		break;
	case KTEST_NE:
		ok = c != 0;
		break;
	case KTEST_LT:
		ok = c < 0;
		break;
	case KTEST_LE:
		ok = c <= 0;
		break;
	case KTEST_GT:
		ok = c > 0;
		break;
	default:
		ok = c >= 0;
		break;
	}
	if (ok)
		return true;
	t->failed = true;
	ktest_printf(KTEST_INDENT "# %s:%d: expected %s %s %s, got ", file, line, a.text,
		     op_text[op], b.text);
	ktest_print_int(a);
	ktest_printf(" and ");
	ktest_print_int(b);
	ktest_printf("\n");
	return false;
}

/**
 * ktest_check_str - record the outcome of KEXPECT_STREQ
 *
 * Two NULLs are equal; NULL differs from every string. On failure marks @t
 * failed and prints both strings as JSON literals, so control characters
 * cannot break the KTAP line. Called from a running test case. Returns
 * whether the strings are equal.
 */
bool ktest_check_str(struct ktest *t, const char *a, const char *b, const char *a_text,
		     const char *b_text, const char *file, int line)
{
	if (a == b || (a && b && strcmp(a, b) == 0))
		return true;
	t->failed = true;
	ktest_printf(KTEST_INDENT "# %s:%d: expected %s == %s, got ", file, line, a_text, b_text);
	fmt_json_string(ktest_sink, NULL, a);
	ktest_printf(" and ");
	fmt_json_string(ktest_sink, NULL, b);
	ktest_printf("\n");
	return false;
}

/**
 * ktest_skip - mark the running case as skipped
 * @reason: printed after "# SKIP"; must outlive the case (a string literal)
 *
 * The case should return right after. A case that has already failed is
 * still reported as failed.
 */
void ktest_skip(struct ktest *t, const char *reason)
{
	t->skipped = true;
	t->skip_reason = reason;
}

/**
 * ktest_need_second_cpu - skip the running case unless a second CPU is online
 *
 * Returns true when one is; otherwise marks the case skipped ("needs 2
 * CPUs") and returns false, and the case should return.
 */
bool ktest_need_second_cpu(struct ktest *t)
{
	if (ncpus_online >= 2)
		return true;
	ktest_skip(t, "needs 2 CPUs");
	return false;
}

/**
 * ktest_log - print a "# " diagnostic line for the running case
 *
 * The message should not contain a newline; one is added.
 */
void ktest_log(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	(void)t;
	ktest_printf(KTEST_INDENT "# ");
	va_start(ap, fmt);
	fmt_vformat(ktest_sink, NULL, fmt, ap);
	va_end(ap);
	ktest_printf("\n");
}

/**
 * ktest_set_lava - also print each case's result as an MMLAB-LAVA line
 *
 * For format=lava: "MMLAB-LAVA test_case_id=selftest-SUITE-CASE
 * result=pass|fail|skip measurement=MS units=ms", the case's run time in
 * milliseconds, at column 0 after the case's KTAP line. Call before
 * ktest_run_all().
 */
void ktest_set_lava(bool on)
{
	ktest_lava = on;
}

/* LAVA's word for a case's outcome: a failure counts even in a skipped case. */
static const char *ktest_lava_result(const struct ktest *t)
{
	if (t->failed)
		return "fail";
	return t->skipped ? "skip" : "pass";
}

static void ktest_print_lava(const char *sname, const struct ktest *t, u64 cycles)
{
	u64 hz = arch_tsc_hz();
	u64 us = hz ? mul_div_u64(cycles, 1000000, hz) : 0;
	char ms[32];

	fmt_fixed(ms, sizeof(ms), (s64)us, 3);
	ktest_printf("MMLAB-LAVA test_case_id=selftest-%s-%s result=%s measurement=%s units=ms\n",
		     sname, t->name, ktest_lava_result(t), ms);
}

/* Runs case @k of suite @s (for design @d, or NULL) with its hooks and prints its result line. */
static void ktest_run_case(const struct ktest_suite *s, const struct design *d, const char *sname,
			   unsigned k, struct ktest_totals *sum)
{
	const struct ktest_case *c = &s->cases[k - 1];
	struct ktest t = { .suite = s, .name = c->name, .param = d ? (const void *)d : s->param,
			   .design = d };
	u64 start = arch_tsc_read();
	int err = s->init ? s->init(&t) : 0;

	if (err) {
		ktest_log(&t, "%s: suite init failed: %d (%s)", c->name, err, errno_name(err));
		t.failed = true;
	} else {
		c->fn(&t);
		if (s->exit)
			s->exit(&t);
	}
	if (t.failed) {
		ktest_printf(KTEST_INDENT "not ok %u %s\n", k, c->name);
		sum->failed++;
	} else if (t.skipped) {
		ktest_printf(KTEST_INDENT "ok %u %s # SKIP %s\n", k, c->name,
			     t.skip_reason ? t.skip_reason : "");
		sum->skipped++;
	} else {
		ktest_printf(KTEST_INDENT "ok %u %s\n", k, c->name);
		sum->passed++;
	}
	if (ktest_lava)
		ktest_print_lava(sname, &t, arch_tsc_read() - start);
}

/* Runs suite @s for design @d (NULL: a plain suite), numbered @n at the top level. */
static void ktest_run_suite(const struct ktest_suite *s, const struct design *d, unsigned n,
			    struct ktest_totals *tot)
{
	struct ktest_totals sum = { 0, 0, 0, 0 };
	char buf[KTEST_NAME_MAX];
	const char *name = ktest_run_name(buf, s, d);
	unsigned k;

	ktest_printf(KTEST_INDENT "KTAP version 1\n");
	ktest_printf(KTEST_INDENT "# Subtest: %s\n", name);
	ktest_printf(KTEST_INDENT "1..%u\n", (unsigned)s->ncases);
	for (k = 1; k <= s->ncases; k++)
		ktest_run_case(s, d, name, k, &sum);
	if (sum.failed)
		ktest_printf("not ok %u %s\n", n, name);
	else if (sum.passed == 0)
		ktest_printf("ok %u %s # SKIP %s\n", n, name,
			     s->ncases ? "all cases skipped" : "no test cases");
	else
		ktest_printf("ok %u %s\n", n, name);
	tot->passed += sum.passed;
	tot->failed += sum.failed;
	tot->skipped += sum.skipped;
}

/**
 * ktest_run_all - run the selected suites and print KTAP v1
 * @filter: NULL or "" for every suite; else comma-separated suite names,
 *          each also selecting the suites named name_<anything> (its variants)
 * @tot:    receives the case counts and the number of suites run
 *
 * A filter that selects no suite prints the plan "1..0" and leaves
 * tot->suites at 0 for the caller to report. Runs on the calling CPU,
 * which must be the only one running tests.
 */
/*
 * Runs (or with @tot NULL only counts) the selected runs of @s: one, or one
 * per selected design of its table. Returns how many.
 */
static unsigned ktest_suite_runs(const struct ktest_suite *s, const char *filter,
				 struct ktest_totals *tot)
{
	unsigned n = 0;

	if (!s->designs) {
		if (tot)
			ktest_run_suite(s, NULL, ++tot->suites, tot);
		return 1;
	}
	for (const struct design *const *d = s->designs; *d; d++) {
		if (!ktest_run_matches(s, *d, filter))
			continue;
		if (tot)
			ktest_run_suite(s, *d, ++tot->suites, tot);
		n++;
	}
	return n;
}

void ktest_run_all(const char *filter, struct ktest_totals *tot)
{
	const struct ktest_suite *s;
	unsigned n = 0;

	*tot = (struct ktest_totals){ 0, 0, 0, 0 };
	for (s = ktest_next_suite(NULL, filter); s; s = ktest_next_suite(s, filter))
		n += ktest_suite_runs(s, filter, NULL);
	ktest_printf("KTAP version 1\n1..%u\n", n);
	for (s = ktest_next_suite(NULL, filter); s; s = ktest_next_suite(s, filter))
		ktest_suite_runs(s, filter, tot);
}
