/*
 * Tests for kernel/cmdline.c: each key's good values and defaults, and every
 * class of bad input, checking that the message quotes the offending word.
 * Pure parsing, so the cases run on the host and in the kernel; options of
 * modules only the kernel links are tested in the kernel run. Each case puts
 * the modules' option values back as the boot command line left them.
 */
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/run.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tests/ktest.h"
#include "arch/x86_64/console.h"
#ifndef HOST_BUILD
#include "arch/x86_64/apic.h"
#include "bench/bench.h"
/* Only the kernel links the modules that own these options. */
#define KERNEL_WORDS(s) s
#define IS_HOST false
#define ITERS_MAX BENCH_MAX_RUNS
#else
/* bench=, cpus=, iters=, ktest= and the modes: the kernel's, stood in for. */
#include "tests/host/host_owners.h"
#define KERNEL_WORDS(s) ""
#define IS_HOST true
#define ITERS_MAX HOST_ITERS_MAX
#endif

/* Parses @line into *o; on failure checks that the message holds @fragment. */
static bool cmdline_bad(struct ktest *t, int line, const char *cmdline, const char *fragment)
{
	char err[160];
	struct options o;
	bool ok;

	ok = KEXPECT_EQ(t, cmdline_parse(cmdline, &o, err, sizeof(err)), -EINVAL);
	ok &= KEXPECT(t, strstr(err, fragment) != NULL);
	if (!ok)
		ktest_log(t, "from line %d: '%s' gave \"%s\"", line, cmdline, err);
	return ok;
}

static bool cmdline_good(struct ktest *t, int line, const char *cmdline, struct options *o)
{
	char err[160];

	if (KEXPECT_EQ(t, cmdline_parse(cmdline, o, err, sizeof(err)), 0))
		return true;
	ktest_log(t, "from line %d: '%s' gave \"%s\"", line, cmdline, err);
	return false;
}

#define BAD(t, line, fragment) cmdline_bad(t, __LINE__, line, fragment)
#define GOOD(t, line, o) cmdline_good(t, __LINE__, line, o)

/* A module-owned option's value, or ~0 when it is not built in. */
static u32 val(const char *key)
{
	u32 v = ~0u;

	options_value(key, &v);
	return v;
}

/* The module-owned option @key holds @want; in the kernel it must exist. */
static void expect_val(struct ktest *t, const char *key, u32 want, bool kernel_only)
{
	u32 v;

	if (!options_value(key, &v)) {
		if (kernel_only && IS_HOST)
			return; /* its module is not in the host build */
		KEXPECT(t, false);
		ktest_log(t, "option '%s' is not built in", key);
		return;
	}
	if (!KEXPECT_EQ(t, v, want))
		ktest_log(t, "option '%s'", key);
}

static void expect_defaults(struct ktest *t, const struct options *o)
{
	KEXPECT_STREQ(t, o->mode, "bench");
	KEXPECT_EQ(t, bench_selected.n, 0);
	KEXPECT_EQ(t, bench_cpus.n, 0);
	KEXPECT_EQ(t, bench_iters, 0);
	KEXPECT_EQ(t, o->format, OPT_FORMAT_JSON);
	KEXPECT_STREQ(t, ktest_filter, "");
	KEXPECT_EQ(t, o->crash, OPT_CRASH_NONE);
	KEXPECT_EQ(t, o->given, 0);
	expect_val(t, "console", OPT_CONSOLE_TTYS0, false);
	expect_val(t, "tlb_ceiling", 33, false);
	expect_val(t, "apic", 0, true); /* auto */
	expect_val(t, "timeout_ms", 1000, true);
	expect_val(t, "swap_mb", 512, true);
	expect_val(t, "swapfree_mb", 256, true);
	expect_val(t, "seed", 1, true);
	expect_val(t, "seconds", 60, true);
	expect_val(t, "tsc_calibrate", 0, true); /* auto */
	expect_val(t, "ap_nostart", 0, true);
	expect_val(t, "remote", 0, true); /* all */
	expect_val(t, "apic_fw_off", 0, true);
	expect_val(t, "fwdump", 0, true);
}

static void test_cmdline_defaults(struct ktest *t)
{
	struct options o;

	KASSERT(t, GOOD(t, "", &o));
	options_set_defaults(&o);
	expect_defaults(t, &o);
	KASSERT(t, GOOD(t, "", &o));
	expect_defaults(t, &o);
	KASSERT(t, GOOD(t, "  \t ", &o));
	expect_defaults(t, &o);
	KASSERT_EQ(t, cmdline_parse(NULL, &o, NULL, 0), 0);
	expect_defaults(t, &o);
	KEXPECT(t, !options_given(&o, "console"));
	KEXPECT(t, options_name_listed(&bench_selected, "tlb"));
}

static void test_cmdline_all_keys(struct ktest *t)
{
	struct options o;

	KASSERT(t, GOOD(t,
			"mode=selftest bench=pin,tlb cpus=1,2,4 iters=0x10 format=lava "
			"console=ttyS1 ktest=tlb_naive tlb_ceiling=64"
			KERNEL_WORDS(" apic=x2apic timeout_ms=5000 swap_mb=512 swapfree_mb=128 "
				     "seed=7 tsc_calibrate=hpet ap_nostart=1"),
			&o));
	KEXPECT_STREQ(t, o.mode, "selftest");
	KASSERT_EQ(t, bench_selected.n, 2);
	KEXPECT_STREQ(t, bench_selected.name[0], "pin");
	KEXPECT_STREQ(t, bench_selected.name[1], "tlb");
	KASSERT_EQ(t, bench_cpus.n, 3);
	KEXPECT(t, bench_cpus.value[0] == 1 && bench_cpus.value[1] == 2 &&
		   bench_cpus.value[2] == 4);
	KEXPECT_EQ(t, bench_iters, 16);
	KEXPECT_EQ(t, o.format, OPT_FORMAT_LAVA);
	KEXPECT_STREQ(t, ktest_filter, "tlb_naive");
	expect_val(t, "console", OPT_CONSOLE_TTYS1, false);
	expect_val(t, "tlb_ceiling", 64, false);
	KEXPECT(t, options_given(&o, "console") && options_given(&o, "tlb_ceiling"));
#ifndef HOST_BUILD
	expect_val(t, "apic", OPT_APIC_X2APIC, true);
	expect_val(t, "timeout_ms", 5000, true);
	expect_val(t, "swap_mb", 512, true);
	expect_val(t, "swapfree_mb", 128, true);
	expect_val(t, "seed", 7, true);
	expect_val(t, "tsc_calibrate", 2, true); /* hpet */
	expect_val(t, "ap_nostart", 1, true);
	KEXPECT(t, options_given(&o, "tsc_calibrate") && options_given(&o, "swapfree_mb"));
#endif
	KEXPECT(t, !options_given(&o, "nosuchkey"));
	KEXPECT(t, options_name_listed(&bench_selected, "tlb") &&
		   !options_name_listed(&bench_selected, "swapfree"));
}

static void test_cmdline_blanks_between_words(struct ktest *t)
{
	struct options o;

	KASSERT(t, GOOD(t, "   iters=3  \t format=lava\n", &o));
	KEXPECT_EQ(t, bench_iters, 3);
	KEXPECT_EQ(t, o.format, OPT_FORMAT_LAVA);
	KEXPECT(t, !options_given(&o, "console"));
}

static void test_cmdline_enums(struct ktest *t)
{
	struct options o;

	KEXPECT(t, GOOD(t, "mode=bench", &o) && strcmp(o.mode, "bench") == 0);
	KEXPECT(t, GOOD(t, "mode=selftest", &o) && strcmp(o.mode, "selftest") == 0);
	KEXPECT(t, GOOD(t, "format=json", &o) && o.format == OPT_FORMAT_JSON);
	KEXPECT(t, GOOD(t, "console=ttyS1", &o) && val("console") == OPT_CONSOLE_TTYS1);
	KEXPECT(t, GOOD(t, "console=ttyS0", &o) && val("console") == OPT_CONSOLE_TTYS0);
	KEXPECT(t, options_given(&o, "console"));
	KEXPECT(t, GOOD(t, "crash=pf", &o) && o.crash == OPT_CRASH_PF);
	KEXPECT(t, GOOD(t, "crash=none", &o) && o.crash == OPT_CRASH_NONE);
	KEXPECT(t, GOOD(t, "crash=hang", &o) && o.crash == OPT_CRASH_HANG);
	BAD(t, "format=7", "bad value '7' for 'format' (expected json|lava)");
	BAD(t, "mode=Bench",
	    "bad value 'Bench' for 'mode' (expected bench|selftest" KERNEL_WORDS("|torture") ")");
	BAD(t, "console=ttyS2", "'ttyS2'");
	BAD(t, "format=jsonx", "'jsonx'");
	BAD(t, "format=jso", "'jso'");
	BAD(t, "mode==bench", "'=bench'");
	BAD(t, "crash=segv", "bad value 'segv' for 'crash' (expected none|ud|de|pf|gp|panic|hang)");
	KEXPECT_STREQ(t, options_word("format", OPT_FORMAT_LAVA), "lava");
	/* mode= takes the registered modes' words, in link order, bench the default. */
	KEXPECT_STREQ(t, run_mode_word(0), "bench");
	KEXPECT_STREQ(t, run_mode_word(1), "selftest");
	/* The kernel links tests/torture/'s mode=torture too. */
	KEXPECT(t, IS_HOST ? run_mode_word(2) == NULL : strcmp(run_mode_word(2), "torture") == 0);
	KEXPECT_EQ(t, run_mode_word(3), NULL);
	KEXPECT_STREQ(t, run_mode_word(-1), "bench");
	KEXPECT_EQ(t, options_word("mode", 0), NULL);
	KEXPECT_STREQ(t, options_word("console", OPT_CONSOLE_TTYS1), "ttyS1");
	KEXPECT_EQ(t, options_word("console", OPT_CONSOLE_COUNT), NULL);
	KEXPECT_EQ(t, options_word("console", -1), NULL);
	KEXPECT_EQ(t, options_word("tlb_ceiling", 0), NULL);
#ifndef HOST_BUILD
	KEXPECT(t, GOOD(t, "apic=xapic", &o) && val("apic") == OPT_APIC_XAPIC);
	KEXPECT(t, GOOD(t, "apic=auto", &o) && val("apic") == OPT_APIC_AUTO);
	BAD(t, "apic=x2", "bad value 'x2' for 'apic' (expected auto|xapic|x2apic)");
	KEXPECT_STREQ(t, options_word("apic", OPT_APIC_X2APIC), "x2apic");
	KEXPECT(t, GOOD(t, "tsc_calibrate=pit", &o) && val("tsc_calibrate") == 1);
	KEXPECT(t, GOOD(t, "tsc_calibrate=auto", &o) && val("tsc_calibrate") == 0);
	BAD(t, "tsc_calibrate=acpi",
	    "bad value 'acpi' for 'tsc_calibrate' (expected auto|pit|hpet)");
	KEXPECT(t, GOOD(t, "remote=busy", &o) && val("remote") == OPT_REMOTE_BUSY);
	KEXPECT(t, GOOD(t, "remote=idle", &o) && val("remote") == OPT_REMOTE_IDLE);
	KEXPECT(t, GOOD(t, "remote=all", &o) && val("remote") == OPT_REMOTE_ALL);
	KEXPECT(t, options_given(&o, "remote"));
	BAD(t, "remote=lazy", "bad value 'lazy' for 'remote' (expected all|busy|idle)");
	BAD(t, "remote=Busy", "'Busy'");
#endif
	KEXPECT_EQ(t, options_word("iters", 0), NULL);
	KEXPECT_EQ(t, options_word("bogus", 0), NULL);
}

/* The range-checked number keys, to test each one's limits the same way. */
static const struct {
	const char *key;
	u32 min, max, def;
	const char *partner; /* a word that keeps every value of the range consistent */
} uint_keys[] = {
	{ "iters", 1, ITERS_MAX, 0, "" },
	{ "tlb_ceiling", 1, 512, 33, "" },
#ifndef HOST_BUILD
	{ "timeout_ms", 1, 600000, 1000, "" },
	{ "swap_mb", 1, 16384, 512, " swapfree_mb=1" },
	{ "swapfree_mb", 1, 16384, 256, " swap_mb=16384" },
	{ "seed", 1, 1000000000, 1, "" },
	{ "seconds", 1, 86400, 60, "" },
	{ "torture_controls", 0, 1, 0, "" },
	{ "ap_nostart", 0, MAX_CPUS - 1, 0, "" },
	{ "apic_fw_off", 0, 1, 0, "" },
	{ "fwdump", 0, 1, 0, "" },
#endif
};

static u32 uint_field(const struct options *o, size_t i)
{
	(void)o;
	return val(uint_keys[i].key);
}

static void test_cmdline_number_ranges(struct ktest *t)
{
	char line[64], word[64];
	struct options o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uint_keys); i++) {
		const char *k = uint_keys[i].key, *p = uint_keys[i].partner;

		KEXPECT(t, GOOD(t, "", &o) && uint_field(&o, i) == uint_keys[i].def);
		fmt_snprintf(line, sizeof(line), "%s=%u%s", k, uint_keys[i].min, p);
		KEXPECT(t, GOOD(t, line, &o) && uint_field(&o, i) == uint_keys[i].min);
		fmt_snprintf(line, sizeof(line), "%s=%u%s", k, uint_keys[i].max, p);
		KEXPECT(t, GOOD(t, line, &o) && uint_field(&o, i) == uint_keys[i].max);
		fmt_snprintf(line, sizeof(line), "%s=%#x%s", k, uint_keys[i].max, p);
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

/*
 * Words that contradict each other are a usage error naming both, also when
 * one of them is a default; the same values in the right relation parse.
 */
static void test_cmdline_contradiction(struct ktest *t)
{
	struct options o;

	if (IS_HOST) {
		ktest_skip(t, "swap_mb and swapfree_mb are bench/'s: kernel only");
		return;
	}
	BAD(t, "swap_mb=4 swapfree_mb=8",
	    "'swapfree_mb=8' contradicts 'swap_mb=4': swapfree_mb must not exceed swap_mb");
	BAD(t, "swapfree_mb=8 swap_mb=4", "'swapfree_mb=8' contradicts 'swap_mb=4'");
	BAD(t, "swap_mb=128", "'swapfree_mb=256' (default) contradicts 'swap_mb=128'");
	BAD(t, "swapfree_mb=1024", "'swapfree_mb=1024' contradicts 'swap_mb=512' (default)");
	KEXPECT(t, GOOD(t, "swap_mb=8 swapfree_mb=8", &o) && val("swapfree_mb") == 8 &&
		       val("swap_mb") == 8);
	KEXPECT(t, GOOD(t, "swap_mb=4 swapfree_mb=2", &o) && val("swapfree_mb") == 2);
}

static void test_cmdline_bad_numbers(struct ktest *t)
{
	BAD(t, "iters=18446744073709551616",
	    "value '18446744073709551616' for 'iters' out of range");
	BAD(t, "iters=99999999999", "out of range (expected 1..1000)");
	BAD(t, "iters=1001", "value '1001' for 'iters' out of range (expected 1..1000)");
	BAD(t, "iters=abc", "bad value 'abc' for 'iters'");
	BAD(t, "iters=-1", "bad value '-1' for 'iters'");
	BAD(t, "iters=+1", "'+1'");
	BAD(t, "iters=1k", "'1k'");
	BAD(t, "iters=010", "'010'");
	BAD(t, "iters=0x", "'0x'");
	BAD(t, "tlb_ceiling=1.5", "'1.5'");
	BAD(t, "tlb_ceiling=64M", "'64M'");
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
	if (MAX_CPUS <= OPT_LIST_MAX) {
		ktest_skip(t, "needs MAX_CPUS > 32");
		return;
	}
	KEXPECT(t, GOOD(t, "cpus=all", &o) && bench_cpus.n == 0 && options_given(&o, "cpus"));
	KEXPECT(t, GOOD(t, "cpus=3", &o) && bench_cpus.n == 1 && bench_cpus.value[0] == 3);
	fmt_snprintf(line, sizeof(line), "cpus=1,%d", MAX_CPUS);
	KEXPECT(t, GOOD(t, line, &o) && bench_cpus.n == 2 && bench_cpus.value[1] == MAX_CPUS);
	n = fmt_snprintf(line, sizeof(line), "cpus=1");
	for (i = 2; i <= OPT_LIST_MAX; i++)
		n += fmt_snprintf(line + n, sizeof(line) - n, ",%d", i);
	KEXPECT(t, GOOD(t, line, &o) && bench_cpus.n == OPT_LIST_MAX);
	fmt_snprintf(line + n, sizeof(line) - n, ",%d", OPT_LIST_MAX + 1);
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
#ifdef HOST_BUILD
	const char *const *saved = host_bench_names;
#endif
	char err[128];
	struct options o;

	KEXPECT(t, GOOD(t, "bench=all", &o) && bench_selected.n == 0 && options_given(&o, "bench"));
	KASSERT(t, GOOD(t, "bench=faultlock,tlb,pin,pagemap,swapfree", &o));
	KEXPECT_EQ(t, bench_selected.n, 5);
	KEXPECT_STREQ(t, bench_selected.name[0], "faultlock");
	KEXPECT(t, options_name_listed(&bench_selected, "swapfree") &&
		   !options_name_listed(&bench_selected, "x"));
	BAD(t, "bench=tlx",
	    "unknown benchmark 'tlx' in 'bench=tlx' "
	    "(known: ipi,tlb,tlbmulti,reclaim,migrate,pin,pagemap,faultlock,swapfree)");
	BAD(t, "bench=tlb,tlb", "benchmark 'tlb' listed twice in 'bench=tlb,tlb'");
	BAD(t, "bench=tlb,pin,", "empty item in 'bench=tlb,pin,'");
	BAD(t, "bench=,tlb", "empty item");
	BAD(t, "bench=TLB", "unknown benchmark 'TLB'");
	BAD(t, "bench=all,tlb", "unknown benchmark 'all'");
#ifdef HOST_BUILD
	/* The list is the owner's: another list, another set of names. */
	host_bench_names = few;
	KEXPECT_EQ(t, cmdline_parse("bench=tlx", &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "unknown benchmark 'tlx' in 'bench=tlx' (known: ipi,tlb)");
	host_bench_names = NULL;
	KEXPECT_EQ(t, cmdline_parse("bench=tlb", &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "unknown benchmark 'tlb' in 'bench=tlb' (known: )");
	host_bench_names = saved;
#else
	(void)few;
	(void)err;
#endif
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

#ifdef HOST_BUILD
	const char *const *saved = host_bench_names;

	host_bench_names = many;
#else
	/* The kernel's names list is bench/'s, far shorter than the limit. */
	(void)many;
	ktest_skip(t, "needs 17 benchmark names: the host build tests the limit");
	return;
#endif
	n = fmt_snprintf(line, sizeof(line), "bench=b0");
	for (i = 1; i < OPT_NAMES_MAX; i++)
		n += fmt_snprintf(line + n, sizeof(line) - n, ",b%d", i);
	KEXPECT_EQ(t, cmdline_parse(line, &o, err, sizeof(err)), 0);
	KEXPECT_EQ(t, bench_selected.n, OPT_NAMES_MAX);
	fmt_snprintf(line + n, sizeof(line) - n, ",b16");
	KEXPECT_EQ(t, cmdline_parse(line, &o, err, sizeof(err)), -EINVAL);
	KEXPECT(t, strstr(err, "more than 16 benchmarks in 'bench=b0,b1,") != NULL);
#ifdef HOST_BUILD
	host_bench_names = saved;
#endif
}

static void test_cmdline_ktest_filter(struct ktest *t)
{
	char line[160];
	struct options o;

	KEXPECT(t, GOOD(t, "ktest=format", &o) && strcmp(ktest_filter, "format") == 0);
	KEXPECT(t, GOOD(t, "ktest=Tlb_Batched_2", &o) &&
		   strcmp(ktest_filter, "Tlb_Batched_2") == 0);
	KEXPECT(t, GOOD(t, "ktest=boot,smp,traps", &o) &&
		   strcmp(ktest_filter, "boot,smp,traps") == 0);
	fmt_snprintf(line, sizeof(line), "ktest=%0*d", KTEST_NAMES_MAX, 0);
	KEXPECT(t, GOOD(t, line, &o) && strlen(ktest_filter) == KTEST_NAMES_MAX);
	fmt_snprintf(line, sizeof(line), "ktest=%0*d", KTEST_NAMES_MAX + 1, 0);
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
		   cmdline_parse("iters=5 tlb_ceiling=64 format=lava bogus=1", &o, err,
				 sizeof(err)),
		   -EINVAL);
	expect_defaults(t, &o);
	/* A short buffer still gets a terminated (truncated) message. */
	KEXPECT_STREQ(t, err, "unknown");
	KEXPECT_EQ(t, cmdline_parse("bench=nope", &o, NULL, 0), -EINVAL);
	KEXPECT_EQ(t, cmdline_parse("format=x", &o, err, 1), -EINVAL);
	KEXPECT_STREQ(t, err, "");
}

static const struct ktest_case cmdline_cases[] = {
	KTEST_CASE(test_cmdline_defaults),
	KTEST_CASE(test_cmdline_all_keys),
	KTEST_CASE(test_cmdline_blanks_between_words),
	KTEST_CASE(test_cmdline_enums),
	KTEST_CASE(test_cmdline_number_ranges),
	KTEST_CASE(test_cmdline_bad_numbers),
	KTEST_CASE(test_cmdline_contradiction),
	KTEST_CASE(test_cmdline_syntax_errors),
	KTEST_CASE(test_cmdline_cpu_lists),
	KTEST_CASE(test_cmdline_bench_lists),
	KTEST_CASE(test_cmdline_bench_list_limit),
	KTEST_CASE(test_cmdline_ktest_filter),
	KTEST_CASE(test_cmdline_failure_resets),
};
/* The boot command line's values stay with the modules that own them. */
static int cmdline_init(struct ktest *t)
{
	if (!options_save()) {
		ktest_log(t, "the options' values outgrow options_save()'s state");
		return -ENOSPC;
	}
	return 0;
}

static void cmdline_exit(struct ktest *t)
{
	(void)t;
	options_restore();
}

KTEST_SUITE_EXT(cmdline, cmdline_cases, cmdline_init, cmdline_exit, NULL);
