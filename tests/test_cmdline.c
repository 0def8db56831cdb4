/*
 * Tests for kernel/cmdline.c: each key's good values and defaults, and every
 * class of bad input (syntax, unknown keys, duplicates, ranges, enum words,
 * cpu and bench lists, ktest names), checking that the message quotes the
 * offending word. Pure parsing: the same cases run on the host and in the
 * kernel.
 */
#include "errno.h"
#include "kernel/cmdline.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tests/ktest.h"

static const char *const bench_names[] = { "tlb", "pin", "pagemap", "swapfree", "faultlock", NULL };

/* Parses @line into *o; on failure checks that the message holds @fragment. */
static bool cmdline_bad(struct ktest *t, int line, const char *cmdline, const char *fragment)
{
	char err[160];
	struct options o;
	bool ok;

	ok = KEXPECT_EQ(t, cmdline_parse(cmdline, bench_names, &o, err, sizeof(err)), -EINVAL);
	ok &= KEXPECT(t, strstr(err, fragment) != NULL);
	if (!ok)
		ktest_log(t, "from line %d: '%s' gave \"%s\"", line, cmdline, err);
	return ok;
}

static bool cmdline_good(struct ktest *t, int line, const char *cmdline, struct options *o)
{
	char err[160];

	if (KEXPECT_EQ(t, cmdline_parse(cmdline, bench_names, o, err, sizeof(err)), 0))
		return true;
	ktest_log(t, "from line %d: '%s' gave \"%s\"", line, cmdline, err);
	return false;
}

#define BAD(t, line, fragment) cmdline_bad(t, __LINE__, line, fragment)
#define GOOD(t, line, o) cmdline_good(t, __LINE__, line, o)

static void expect_defaults(struct ktest *t, const struct options *o)
{
	KEXPECT_EQ(t, o->mode, OPT_MODE_BENCH);
	KEXPECT_EQ(t, o->bench.n, 0);
	KEXPECT_EQ(t, o->cpus.n, 0);
	KEXPECT_EQ(t, o->iters, 0);
	KEXPECT_EQ(t, o->format, OPT_FORMAT_JSON);
	KEXPECT_EQ(t, o->console, OPT_CONSOLE_TTYS0);
	KEXPECT_EQ(t, o->apic, OPT_APIC_AUTO);
	KEXPECT_STREQ(t, o->ktest, "");
	KEXPECT_EQ(t, o->timeout_ms, 1000);
	KEXPECT_EQ(t, o->tlb_ceiling, 33);
	KEXPECT_EQ(t, o->swap_mb, 512);
	KEXPECT_EQ(t, o->swapfree_mb, 256);
	KEXPECT_EQ(t, o->crash, OPT_CRASH_NONE);
	KEXPECT_EQ(t, o->tsc_calibrate, OPT_TSC_AUTO);
	KEXPECT_EQ(t, o->ap_nostart, 0);
	KEXPECT_EQ(t, o->given, 0);
}

static void test_cmdline_defaults(struct ktest *t)
{
	struct options o;

	options_set_defaults(&o);
	expect_defaults(t, &o);
	KASSERT(t, GOOD(t, "", &o));
	expect_defaults(t, &o);
	KASSERT(t, GOOD(t, "  \t ", &o));
	expect_defaults(t, &o);
	KASSERT_EQ(t, cmdline_parse(NULL, bench_names, &o, NULL, 0), 0);
	expect_defaults(t, &o);
	KEXPECT(t, !options_given(&o, "console"));
	KEXPECT(t, options_bench_selected(&o, "tlb"));
}

static void test_cmdline_all_keys(struct ktest *t)
{
	struct options o;

	KASSERT(t, GOOD(t,
			"mode=selftest bench=pin,tlb cpus=1,2,4 iters=0x10 format=lava "
			"console=ttyS1 apic=x2apic ktest=tlb_naive timeout_ms=5000 "
			"tlb_ceiling=64 swap_mb=128 swapfree_mb=512 tsc_calibrate=hpet "
			"ap_nostart=1",
			&o));
	KEXPECT_EQ(t, o.mode, OPT_MODE_SELFTEST);
	KASSERT_EQ(t, o.bench.n, 2);
	KEXPECT_STREQ(t, o.bench.name[0], "pin");
	KEXPECT_EQ(t, o.bench.name[1], bench_names[0]);
	KASSERT_EQ(t, o.cpus.n, 3);
	KEXPECT(t, o.cpus.count[0] == 1 && o.cpus.count[1] == 2 && o.cpus.count[2] == 4);
	KEXPECT_EQ(t, o.iters, 16);
	KEXPECT_EQ(t, o.format, OPT_FORMAT_LAVA);
	KEXPECT_EQ(t, o.console, OPT_CONSOLE_TTYS1);
	KEXPECT_EQ(t, o.apic, OPT_APIC_X2APIC);
	KEXPECT_STREQ(t, o.ktest, "tlb_naive");
	KEXPECT_EQ(t, o.timeout_ms, 5000);
	KEXPECT_EQ(t, o.tlb_ceiling, 64);
	KEXPECT_EQ(t, o.swap_mb, 128);
	KEXPECT_EQ(t, o.swapfree_mb, 512);
	KEXPECT_EQ(t, o.tsc_calibrate, OPT_TSC_HPET);
	KEXPECT_EQ(t, o.ap_nostart, 1);
	KEXPECT(t, options_given(&o, "console") && options_given(&o, "swapfree_mb"));
	KEXPECT(t, options_given(&o, "tsc_calibrate") && options_given(&o, "ap_nostart"));
	KEXPECT(t, !options_given(&o, "nosuchkey"));
	KEXPECT(t, options_bench_selected(&o, "tlb") && !options_bench_selected(&o, "swapfree"));
}

static void test_cmdline_blanks_between_words(struct ktest *t)
{
	struct options o;

	KASSERT(t, GOOD(t, "   iters=3  \t format=lava\n", &o));
	KEXPECT_EQ(t, o.iters, 3);
	KEXPECT_EQ(t, o.format, OPT_FORMAT_LAVA);
	KEXPECT(t, !options_given(&o, "console"));
}

static void test_cmdline_enums(struct ktest *t)
{
	struct options o;

	KEXPECT(t, GOOD(t, "mode=bench", &o) && o.mode == OPT_MODE_BENCH);
	KEXPECT(t, GOOD(t, "format=json", &o) && o.format == OPT_FORMAT_JSON);
	KEXPECT(t, GOOD(t, "console=ttyS0", &o) && o.console == OPT_CONSOLE_TTYS0);
	KEXPECT(t, options_given(&o, "console"));
	KEXPECT(t, GOOD(t, "apic=xapic", &o) && o.apic == OPT_APIC_XAPIC);
	KEXPECT(t, GOOD(t, "apic=auto", &o) && o.apic == OPT_APIC_AUTO);
	KEXPECT(t, GOOD(t, "crash=pf", &o) && o.crash == OPT_CRASH_PF);
	KEXPECT(t, GOOD(t, "crash=none", &o) && o.crash == OPT_CRASH_NONE);
	KEXPECT(t, GOOD(t, "crash=hang", &o) && o.crash == OPT_CRASH_HANG);
	KEXPECT(t, GOOD(t, "tsc_calibrate=pit", &o) && o.tsc_calibrate == OPT_TSC_PIT);
	KEXPECT(t, GOOD(t, "tsc_calibrate=auto", &o) && o.tsc_calibrate == OPT_TSC_AUTO);
	BAD(t, "tsc_calibrate=acpi",
	    "bad value 'acpi' for 'tsc_calibrate' (expected auto|pit|hpet)");
	BAD(t, "format=7", "bad value '7' for 'format' (expected json|lava)");
	BAD(t, "mode=Bench", "bad value 'Bench' for 'mode' (expected bench|selftest)");
	BAD(t, "console=ttyS2", "'ttyS2'");
	BAD(t, "apic=x2", "bad value 'x2' for 'apic' (expected auto|xapic|x2apic)");
	BAD(t, "format=jsonx", "'jsonx'");
	BAD(t, "format=jso", "'jso'");
	BAD(t, "mode==bench", "'=bench'");
	BAD(t, "crash=segv", "bad value 'segv' for 'crash' (expected none|ud|de|pf|gp|panic|hang)");
	KEXPECT_STREQ(t, options_word("format", OPT_FORMAT_LAVA), "lava");
	KEXPECT_STREQ(t, options_word("mode", OPT_MODE_SELFTEST), "selftest");
	KEXPECT_STREQ(t, options_word("apic", OPT_APIC_X2APIC), "x2apic");
	KEXPECT_EQ(t, options_word("apic", OPT_APIC_COUNT), NULL);
	KEXPECT_EQ(t, options_word("apic", -1), NULL);
	KEXPECT_EQ(t, options_word("iters", 0), NULL);
	KEXPECT_EQ(t, options_word("bogus", 0), NULL);
}

/* The range-checked number keys, to test each one's limits the same way. */
static const struct {
	const char *key;
	size_t offset;
	u32 min, max, def;
} uint_keys[] = {
	{ "iters", offsetof(struct options, iters), 1, OPT_ITERS_MAX, 0 },
	{ "timeout_ms", offsetof(struct options, timeout_ms), 1, 600000, 1000 },
	{ "tlb_ceiling", offsetof(struct options, tlb_ceiling), 1, 512, 33 },
	{ "swap_mb", offsetof(struct options, swap_mb), 1, 16384, 512 },
	{ "swapfree_mb", offsetof(struct options, swapfree_mb), 1, 16384, 256 },
	{ "ap_nostart", offsetof(struct options, ap_nostart), 0, MAX_CPUS - 1, 0 },
	{ "apic_fw_off", offsetof(struct options, apic_fw_off), 0, 1, 0 },
};

static u32 uint_field(const struct options *o, size_t i)
{
	return *(const u32 *)((const char *)o + uint_keys[i].offset);
}

static void test_cmdline_number_ranges(struct ktest *t)
{
	char line[64], word[64];
	struct options o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uint_keys); i++) {
		const char *k = uint_keys[i].key;

		options_set_defaults(&o);
		KEXPECT_EQ(t, uint_field(&o, i), uint_keys[i].def);
		fmt_snprintf(line, sizeof(line), "%s=%u", k, uint_keys[i].min);
		KEXPECT(t, GOOD(t, line, &o) && uint_field(&o, i) == uint_keys[i].min);
		fmt_snprintf(line, sizeof(line), "%s=%u", k, uint_keys[i].max);
		KEXPECT(t, GOOD(t, line, &o) && uint_field(&o, i) == uint_keys[i].max);
		fmt_snprintf(line, sizeof(line), "%s=%#x", k, uint_keys[i].max);
		KEXPECT(t, GOOD(t, line, &o) && uint_field(&o, i) == uint_keys[i].max);
		fmt_snprintf(line, sizeof(line), "%s=%u", k, uint_keys[i].min - 1);
		fmt_snprintf(word, sizeof(word), "value '%u' for '%s' out of range",
			     uint_keys[i].min - 1, k);
		BAD(t, line, word);
		fmt_snprintf(line, sizeof(line), "%s=%u", k, uint_keys[i].max + 1);
		fmt_snprintf(word, sizeof(word), "value '%u' for '%s' out of range",
			     uint_keys[i].max + 1, k);
		BAD(t, line, word);
	}
}

static void test_cmdline_bad_numbers(struct ktest *t)
{
	BAD(t, "iters=18446744073709551616",
	    "value '18446744073709551616' for 'iters' out of range");
	BAD(t, "iters=99999999999", "out of range (expected 1..10000)");
	BAD(t, "iters=abc", "bad value 'abc' for 'iters'");
	BAD(t, "iters=-1", "bad value '-1' for 'iters'");
	BAD(t, "iters=+1", "'+1'");
	BAD(t, "iters=1k", "'1k'");
	BAD(t, "iters=010", "'010'");
	BAD(t, "iters=0x", "'0x'");
	BAD(t, "timeout_ms=1.5", "'1.5'");
	BAD(t, "swap_mb=64M", "'64M'");
}

static void test_cmdline_syntax_errors(struct ktest *t)
{
	BAD(t, "foo", "word 'foo' is not key=value");
	BAD(t, "iters=5 foo", "word 'foo' is not key=value");
	BAD(t, "=5", "word '=5' is not key=value");
	BAD(t, "bogus=1", "unknown option 'bogus' in word 'bogus=1'");
	BAD(t, "Mode=bench", "unknown option 'Mode'");
	BAD(t, "iters=5 iters=6", "option 'iters' given twice");
	BAD(t, "iters=5 iters=5", "option 'iters' given twice");
	BAD(t, "iters=", "empty value in word 'iters='");
	BAD(t, "bench=", "empty value in word 'bench='");
	BAD(t, "ktest=", "empty value in word 'ktest='");
	BAD(t, "iters=1=2", "'1=2'");
}

static void test_cmdline_cpu_lists(struct ktest *t)
{
	char line[256];
	struct options o;
	int i, n;

	/* The cases below use counts up to 33; a smaller build limit is not worth a variant. */
	if (MAX_CPUS <= OPT_CPUS_MAX) {
		ktest_skip(t, "needs MAX_CPUS > 32");
		return;
	}
	KEXPECT(t, GOOD(t, "cpus=all", &o) && o.cpus.n == 0 && options_given(&o, "cpus"));
	KEXPECT(t, GOOD(t, "cpus=3", &o) && o.cpus.n == 1 && o.cpus.count[0] == 3);
	fmt_snprintf(line, sizeof(line), "cpus=1,%d", MAX_CPUS);
	KEXPECT(t, GOOD(t, line, &o) && o.cpus.n == 2 && o.cpus.count[1] == MAX_CPUS);
	n = fmt_snprintf(line, sizeof(line), "cpus=1");
	for (i = 2; i <= OPT_CPUS_MAX; i++)
		n += fmt_snprintf(line + n, sizeof(line) - n, ",%d", i);
	KEXPECT(t, GOOD(t, line, &o) && o.cpus.n == OPT_CPUS_MAX);
	fmt_snprintf(line + n, sizeof(line) - n, ",%d", OPT_CPUS_MAX + 1);
	BAD(t, line, "more than 32 cpu counts");
	BAD(t, "cpus=0", "bad cpu count '0' in 'cpus=0'");
	BAD(t, "cpus=4,2", "cpu counts must increase: '2' after 4 in 'cpus=4,2'");
	BAD(t, "cpus=2,2", "'2' after 2");
	BAD(t, "cpus=1,2,", "empty item in 'cpus=1,2,'");
	BAD(t, "cpus=,1", "empty item in 'cpus=,1'");
	BAD(t, "cpus=1,,2", "empty item");
	BAD(t, "cpus=all,2", "bad cpu count 'all'");
	BAD(t, "cpus=x", "bad cpu count 'x'");
	BAD(t, "cpus=1,99999999999999999999", "'99999999999999999999'");
	fmt_snprintf(line, sizeof(line), "cpus=%d", MAX_CPUS + 1);
	BAD(t, line, "bad cpu count");
}

static void test_cmdline_bench_lists(struct ktest *t)
{
	static const char *const few[] = { "ipi", "tlb", NULL };
	char err[128];
	struct options o;

	KEXPECT(t, GOOD(t, "bench=all", &o) && o.bench.n == 0 && options_given(&o, "bench"));
	KASSERT(t, GOOD(t, "bench=faultlock,tlb,pin,pagemap,swapfree", &o));
	KEXPECT_EQ(t, o.bench.n, 5);
	KEXPECT_STREQ(t, o.bench.name[0], "faultlock");
	KEXPECT(t, options_bench_selected(&o, "swapfree") && !options_bench_selected(&o, "x"));
	BAD(t, "bench=tlx",
	    "unknown benchmark 'tlx' in 'bench=tlx' (known: tlb,pin,pagemap,swapfree,faultlock)");
	BAD(t, "bench=tlb,tlb", "benchmark 'tlb' listed twice in 'bench=tlb,tlb'");
	BAD(t, "bench=tlb,pin,", "empty item in 'bench=tlb,pin,'");
	BAD(t, "bench=,tlb", "empty item");
	BAD(t, "bench=TLB", "unknown benchmark 'TLB'");
	BAD(t, "bench=all,tlb", "unknown benchmark 'all'");
	KEXPECT_EQ(t, cmdline_parse("bench=tlx", few, &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "unknown benchmark 'tlx' in 'bench=tlx' (known: ipi,tlb)");
	KEXPECT_EQ(t, cmdline_parse("bench=tlb", NULL, &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "unknown benchmark 'tlb' in 'bench=tlb' (known: )");
}

static void test_cmdline_bench_list_limit(struct ktest *t)
{
	static const char *const many[] = {
		"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8",
		"b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", NULL,
	};
	char line[128], err[128];
	struct options o;
	int i, n;

	n = fmt_snprintf(line, sizeof(line), "bench=b0");
	for (i = 1; i < OPT_BENCH_MAX; i++)
		n += fmt_snprintf(line + n, sizeof(line) - n, ",b%d", i);
	KEXPECT_EQ(t, cmdline_parse(line, many, &o, err, sizeof(err)), 0);
	KEXPECT_EQ(t, o.bench.n, OPT_BENCH_MAX);
	fmt_snprintf(line + n, sizeof(line) - n, ",b16");
	KEXPECT_EQ(t, cmdline_parse(line, many, &o, err, sizeof(err)), -EINVAL);
	KEXPECT(t, strstr(err, "more than 16 benchmarks in 'bench=b0,b1,") != NULL);
}

static void test_cmdline_ktest_filter(struct ktest *t)
{
	char line[160];
	struct options o;

	KEXPECT(t, GOOD(t, "ktest=format", &o) && strcmp(o.ktest, "format") == 0);
	KEXPECT(t, GOOD(t, "ktest=Tlb_Batched_2", &o) && strcmp(o.ktest, "Tlb_Batched_2") == 0);
	KEXPECT(t, GOOD(t, "ktest=boot,smp,traps", &o) && strcmp(o.ktest, "boot,smp,traps") == 0);
	fmt_snprintf(line, sizeof(line), "ktest=%0*d", OPT_KTEST_MAX, 0);
	KEXPECT(t, GOOD(t, line, &o) && strlen(o.ktest) == OPT_KTEST_MAX);
	fmt_snprintf(line, sizeof(line), "ktest=%0*d", OPT_KTEST_MAX + 1, 0);
	BAD(t, line, "for 'ktest' (at most 95 characters)");
	BAD(t, "ktest=a-b", "bad value 'a-b' for 'ktest'");
	BAD(t, "ktest=a.b", "'a.b'");
	BAD(t, "ktest=a,,b", "empty item in 'ktest=a,,b'");
	BAD(t, "ktest=a,", "empty item in 'ktest=a,'");
}

static void test_cmdline_failure_resets(struct ktest *t)
{
	char err[8];
	struct options o;

	KEXPECT_EQ(t,
		   cmdline_parse("iters=5 format=lava bogus=1", bench_names, &o, err, sizeof(err)),
		   -EINVAL);
	expect_defaults(t, &o);
	/* A short buffer still gets a terminated (truncated) message. */
	KEXPECT_STREQ(t, err, "unknown");
	KEXPECT_EQ(t, cmdline_parse("bench=nope", bench_names, &o, NULL, 0), -EINVAL);
	KEXPECT_EQ(t, cmdline_parse("format=x", bench_names, &o, err, 1), -EINVAL);
	KEXPECT_STREQ(t, err, "");
}

static const struct ktest_case cmdline_cases[] = {
	KTEST_CASE(test_cmdline_defaults),
	KTEST_CASE(test_cmdline_all_keys),
	KTEST_CASE(test_cmdline_blanks_between_words),
	KTEST_CASE(test_cmdline_enums),
	KTEST_CASE(test_cmdline_number_ranges),
	KTEST_CASE(test_cmdline_bad_numbers),
	KTEST_CASE(test_cmdline_syntax_errors),
	KTEST_CASE(test_cmdline_cpu_lists),
	KTEST_CASE(test_cmdline_bench_lists),
	KTEST_CASE(test_cmdline_bench_list_limit),
	KTEST_CASE(test_cmdline_ktest_filter),
	KTEST_CASE(test_cmdline_failure_resets),
};
KTEST_SUITE(cmdline, cmdline_cases);
