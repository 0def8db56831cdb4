/*
 * Tests for lib/format.c: every conversion, flag, width, precision and
 * length modifier against literal expectations (host and kernel), plus
 * truncation, the streaming sink, JSON strings and fixed-point output.
 * On the host each printf-compatible case is also checked against libc's
 * vsnprintf, and a sweep compares thousands of spec combinations with it.
 */
#include <stdarg.h>
#ifdef HOST_BUILD
#include <stdio.h>
#endif

#include "lib/format.h"
#include "lib/string.h"
#include "tests/ktest.h"

#define FMT_TEST_BUF 320

/*
 * Type limits from the compiler's predefined macros: the kernel is built
 * with -nostdinc, where gcc's <limits.h> cannot find the libc one it wraps.
 */
#define T_INT_MAX __INT_MAX__
#define T_INT_MIN (-__INT_MAX__ - 1)
#define T_UINT_MAX (__INT_MAX__ * 2u + 1u)
#define T_LONG_MIN (-__LONG_MAX__ - 1l)
#define T_ULONG_MAX (__LONG_MAX__ * 2ul + 1ul)
#define T_LLONG_MAX __LONG_LONG_MAX__
#define T_LLONG_MIN (-__LONG_LONG_MAX__ - 1ll)
#define T_ULLONG_MAX (__LONG_LONG_MAX__ * 2ull + 1ull)

static bool check_va(struct ktest *t, int line, bool libc, const char *expect, const char *fmt,
		     va_list ap)
{
	char buf[FMT_TEST_BUF];
	va_list aq;
	bool ok;
	int n;

	va_copy(aq, ap);
	n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	ok = KEXPECT_STREQ(t, buf, expect);
	ok &= KEXPECT_EQ(t, n, strlen(expect));
#ifdef HOST_BUILD
	if (libc) {
		char ref[FMT_TEST_BUF];
		int m = vsnprintf(ref, sizeof(ref), fmt, aq);

		ok &= KEXPECT_STREQ(t, buf, ref);
		ok &= KEXPECT_EQ(t, n, m);
	}
#else
	(void)libc;
#endif
	va_end(aq);
	if (!ok)
		ktest_log(t, "from line %d, format \"%s\"", line, fmt);
	return ok;
}

/* Checks fmt_vsnprintf's text and length; libc: also compare with vsnprintf on the host. */
static __printf(5, 6) void check_fmt(struct ktest *t, int line, bool libc, const char *expect,
				     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_va(t, line, libc, expect, fmt, ap);
	va_end(ap);
}

/*
 * The same without compile-time format checking, for specs the compiler
 * rightly warns about ("%-05d": '0' ignored) but that must still work.
 */
static void check_unchecked(struct ktest *t, int line, bool libc, const char *expect,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_va(t, line, libc, expect, fmt, ap);
	va_end(ap);
}

/* fmt_snprintf without compile-time format checking. */
static int snprintf_unchecked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* CHECK: must match libc too; CHECK_OWN: our behaviour where C leaves it open. */
#define CHECK(t, expect, ...) check_fmt(t, __LINE__, true, expect, __VA_ARGS__)
#define CHECK_OWN(t, expect, ...) check_fmt(t, __LINE__, false, expect, __VA_ARGS__)
#define CHECK_RAW(t, expect, ...) check_unchecked(t, __LINE__, true, expect, __VA_ARGS__)
#define CHECK_RAW_OWN(t, expect, ...) check_unchecked(t, __LINE__, false, expect, __VA_ARGS__)

static void test_format_integers(struct ktest *t)
{
	CHECK(t, "0", "%d", 0);
	CHECK(t, "42 -42", "%d %i", 42, -42);
	CHECK(t, "2147483647", "%d", T_INT_MAX);
	CHECK(t, "-2147483648", "%d", T_INT_MIN);
	CHECK(t, "0 4294967295", "%u %u", 0u, T_UINT_MAX);
	CHECK(t, "deadbeef DEADBEEF", "%x %X", 0xdeadbeefu, 0xdeadbeefu);
	CHECK(t, "0 10 37777777777", "%o %o %o", 0u, 8u, T_UINT_MAX);
	CHECK(t, "ffffffff", "%x", -1);
	CHECK(t, "a1b-2c", "a%db%dc", 1, -2);
	CHECK(t, "no conversions", "no conversions");
	CHECK(t, "", "%s", "");
}

static void test_format_flags(struct ktest *t)
{
	CHECK(t, "42   |", "%-5d|", 42);
	CHECK(t, "00042 -0042", "%05d %05d", 42, -42);
	CHECK(t, "+42 -42 +0", "%+d %+d %+d", 42, -42, 0);
	CHECK(t, " 42 -42", "% d % d", 42, -42);
	CHECK(t, "0xff 0XFF 0", "%#x %#X %#x", 255u, 255u, 0u);
	CHECK(t, "010 0 07", "%#o %#o %#o", 8u, 0u, 7u);
	CHECK(t, "0x0000ff", "%#08x", 255u);
	CHECK(t, "  0xff", "%#6x", 255u);
	CHECK(t, "0xff  |", "%-#6x|", 255u);
	CHECK(t, "+0042", "%+05d", 42);
	CHECK(t, " 0042", "% 05d", 42);
	CHECK_RAW(t, "42", "%+u", 42u);
	CHECK_RAW(t, "42   |", "%-05d|", 42);
	CHECK_RAW(t, "+42", "%+ d", 42);
	CHECK_RAW(t, "+42", "% +d", 42);
	CHECK_RAW(t, "  042", "%05.3d", 42);
	CHECK_RAW(t, "42", "%--d", 42);
}

static void test_format_width_precision(struct ktest *t)
{
	CHECK(t, "   42", "%5d", 42);
	CHECK(t, "42", "%1d", 42);
	CHECK(t, "00042", "%.5d", 42);
	CHECK(t, "  -00042", "%8.5d", -42);
	CHECK(t, "-00042  |", "%-8.5d|", -42);
	CHECK(t, "|", "%.0d|", 0);
	CHECK(t, "     |", "%5.0d|", 0);
	CHECK(t, "+", "%+.0d", 0);
	CHECK(t, "1", "%.0d", 1);
	CHECK(t, "00a", "%.3x", 10u);
	CHECK(t, "0x00a", "%#.3x", 10u);
	CHECK(t, "0", "%#.0o", 0u);
	CHECK(t, "|", "%.d|", 0);
	CHECK(t, "                                      42", "%40d", 42);
	CHECK(t, "0000000000000000000000000000000000000042", "%040d", 42);
	CHECK(t, "   42", "%*d", 5, 42);
	CHECK(t, "42   |", "%*d|", -5, 42);
	CHECK(t, "007", "%.*d", 3, 7);
	CHECK(t, "7", "%.*d", -1, 7);
	CHECK_RAW(t, "00007", "%05.*d", -1, 7);
	CHECK(t, "   007", "%*.*d", 6, 3, 7);
	CHECK(t, "007   |", "%*.*d|", -6, 3, 7);
}

static void test_format_length_modifiers(struct ktest *t)
{
	CHECK(t, "-5 250", "%hhd %hhu", (signed char)-5, (unsigned char)250);
	CHECK(t, "-30000 65535 ffff", "%hd %hu %hx", (short)-30000, (unsigned short)65535,
	      (unsigned short)65535);
	CHECK(t, "-9223372036854775808", "%ld", T_LONG_MIN);
	CHECK(t, "18446744073709551615", "%lu", T_ULONG_MAX);
	CHECK(t, "-9223372036854775808", "%lld", T_LLONG_MIN);
	CHECK(t, "18446744073709551615 ffffffffffffffff", "%llu %llx", T_ULLONG_MAX, T_ULLONG_MAX);
	CHECK(t, "1777777777777777777777", "%llo", T_ULLONG_MAX);
	CHECK(t, "18446744073709551615 ffffffffffffffff", "%zu %zx", (size_t)-1, (size_t)-1);
	CHECK(t, "-3 -3", "%td %jd", (ptrdiff_t)-3, (intmax_t)-3);
	CHECK(t, "-9223372036854775808", "%jd", (intmax_t)INT64_MIN);
	CHECK(t, "18446744073709551615 FFFFFFFFFFFFFFFF", "%ju %jX", UINTMAX_MAX, UINTMAX_MAX);
	CHECK(t, "-1", "%zd", (long)-1);
	CHECK(t, " -00000000000000000042", "%22.20lld", -42LL);
	/* hh and h truncate an int argument as C says. */
	CHECK_RAW(t, "-56 44", "%hhd %hhu", 200, 300);
	CHECK_RAW(t, "4464 -1", "%hd %hd", 70000, 65535);
}

static void test_format_chars_strings(struct ktest *t)
{
	static const char abc[3] = { 'a', 'b', 'c' }; /* no NUL: precision must bound the read */

	CHECK(t, "x", "%c", 'x');
	CHECK(t, "  x|x  |", "%3c|%-3c|", 'x', 'x');
	CHECK(t, "hello", "%s", "hello");
	CHECK(t, "   ab|ab   |", "%5s|%-5s|", "ab", "ab");
	CHECK(t, "ab", "%.2s", "abc");
	CHECK(t, "", "%.0s", "abc");
	CHECK(t, "ab", "%.*s", 2, "abc");
	CHECK(t, "abc", "%.*s", -1, "abc");
	CHECK(t, "  abc", "%5.3s", abc);
	CHECK(t, "hello", "%.10s", "hello");
	CHECK(t, "%", "%%");
	CHECK(t, "100% sure", "100%% %s", "sure");
	CHECK(t, "%5", "%%%d", 5);
}

static const char *test_null_string(void)
{
	return NULL;
}

/* Cases C leaves undefined, where mmlab defines what is printed. */
static void test_format_own_rules(struct ktest *t)
{
	char buf[8];

	CHECK_RAW_OWN(t, "(null)", "%s", test_null_string());
	CHECK_RAW_OWN(t, "(nu", "%.3s", test_null_string());
	CHECK_OWN(t, "0x0000000000001234", "%p", (void *)0x1234);
	CHECK_OWN(t, "0x0000000000000000", "%p", NULL);
	CHECK_OWN(t, "0xffffffff80000000", "%p", (void *)0xffffffff80000000ull);
	CHECK_OWN(t, "  0x0000000000000001|", "%20p|", (void *)1);
	CHECK_OWN(t, "0x0000000000000001  |", "%-20p|", (void *)1);
	CHECK_RAW_OWN(t, "   ab", "%05s", "ab");
	CHECK_RAW_OWN(t, "%y %5y", "%y %5y");
	CHECK_RAW_OWN(t, "%n", "%n");
	CHECK_RAW_OWN(t, "abc%", "abc%");
	CHECK_RAW_OWN(t, "1%", "%d%", 1);
	/* Widths are clamped to 65536 rather than overflowing an int. */
	KEXPECT_EQ(t, snprintf_unchecked(buf, sizeof(buf), "%*d", T_INT_MIN, 1), 65536);
	KEXPECT_EQ(t, snprintf_unchecked(buf, sizeof(buf), "%99999999999d", 1), 65536);
	/* A NUL from %c is output like any byte and counted. */
	KEXPECT_EQ(t, fmt_snprintf(buf, sizeof(buf), "a%cb", 0), 3);
	KEXPECT(t, buf[0] == 'a' && buf[1] == '\0' && buf[2] == 'b' && buf[3] == '\0');
}

static void test_format_truncation(struct ktest *t)
{
	char buf[16];

	memset(buf, 'X', sizeof(buf));
	KEXPECT_EQ(t, fmt_snprintf(buf, 5, "%s", "hello world"), 11);
	KEXPECT_STREQ(t, buf, "hell");
	KEXPECT_EQ(t, buf[5], 'X');
	KEXPECT_EQ(t, fmt_snprintf(buf, 6, "hello"), 5);
	KEXPECT_STREQ(t, buf, "hello");
	KEXPECT_EQ(t, fmt_snprintf(buf, 5, "hello"), 5);
	KEXPECT_STREQ(t, buf, "hell");
	KEXPECT_EQ(t, fmt_snprintf(buf, 1, "%d", 12345), 5);
	KEXPECT_STREQ(t, buf, "");
	buf[0] = 'X';
	KEXPECT_EQ(t, fmt_snprintf(buf, 0, "%d", 12345), 5);
	KEXPECT_EQ(t, buf[0], 'X');
	KEXPECT_EQ(t, fmt_snprintf(NULL, 0, "%s=%d", "key", 42), 6);
	KEXPECT_EQ(t, fmt_snprintf(buf, 8, "%1000d", 7), 1000);
	KEXPECT_STREQ(t, buf, "       ");
	KEXPECT_EQ(t, fmt_snprintf(buf, 4, "%-10d|", 7), 11);
	KEXPECT_STREQ(t, buf, "7  ");
}

struct stream_ctx {
	struct ktest *t;
	char out[64];
	size_t len;
	unsigned calls;
};

static void stream_sink(void *ctx, const char *s, size_t n)
{
	struct stream_ctx *c = ctx;

	KEXPECT_GT(c->t, n, 0);
	KEXPECT_LE(c->t, c->len + n, sizeof(c->out) - 1);
	if (c->len + n < sizeof(c->out)) {
		memcpy(c->out + c->len, s, n);
		c->len += n;
		c->out[c->len] = '\0';
	}
	c->calls++;
}

static void test_format_stream(struct ktest *t)
{
	struct stream_ctx c = { .t = t };

	KEXPECT_EQ(t, fmt_format(stream_sink, &c, "a=%d b=%s c=%% d=%5x", 1, "two", 0xabu), 21);
	KEXPECT_STREQ(t, c.out, "a=1 b=two c=% d=   ab");
	KEXPECT_EQ(t, c.len, 21);
	KEXPECT_GT(t, c.calls, 1);
	c.len = 0;
	c.out[0] = '\0';
	c.calls = 0;
	KEXPECT_EQ(t, fmt_format(stream_sink, &c, "%s", ""), 0);
	KEXPECT_EQ(t, c.calls, 0);
	KEXPECT_EQ(t, fmt_format(stream_sink, &c, "%40d", 1), 40);
	KEXPECT_EQ(t, c.len, 40);
}

static void json_check(struct ktest *t, const char *in, const char *expect)
{
	struct stream_ctx c = { .t = t };

	KEXPECT_EQ(t, fmt_json_string(stream_sink, &c, in), strlen(expect));
	if (!KEXPECT_STREQ(t, c.out, expect))
		ktest_log(t, "input \"%s\"", in ? in : "(NULL)");
}

static void test_format_json_string(struct ktest *t)
{
	json_check(t, "abc", "\"abc\"");
	json_check(t, "", "\"\"");
	json_check(t, NULL, "null");
	json_check(t, "a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	json_check(t, "\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"");
	json_check(t, "\x01x\x1f", "\"\\u0001x\\u001f\"");
	json_check(t, "\x7f", "\"\\u007f\"");
	json_check(t, "caf\xc3\xa9", "\"caf\\u00c3\\u00a9\"");
	json_check(t, "ttyS0 mode=selftest", "\"ttyS0 mode=selftest\"");
}

static void fixed_check(struct ktest *t, s64 v, unsigned scale, const char *expect)
{
	char buf[48];

	KEXPECT_EQ(t, fmt_fixed(buf, sizeof(buf), v, scale), strlen(expect));
	if (!KEXPECT_STREQ(t, buf, expect))
		ktest_log(t, "value %lld scale %u", (long long)v, scale);
}

static void test_format_fixed(struct ktest *t)
{
	char buf[4];

	fixed_check(t, 12345, 3, "12.345");
	fixed_check(t, -5, 2, "-0.05");
	fixed_check(t, 0, 3, "0.000");
	fixed_check(t, 0, 0, "0");
	fixed_check(t, 7, 0, "7");
	fixed_check(t, -7, 0, "-7");
	fixed_check(t, 100, 2, "1.00");
	fixed_check(t, -100, 2, "-1.00");
	fixed_check(t, 5, 1, "0.5");
	fixed_check(t, -12345, 3, "-12.345");
	fixed_check(t, INT64_MIN, 0, "-9223372036854775808");
	fixed_check(t, INT64_MIN, 3, "-9223372036854775.808");
	fixed_check(t, INT64_MAX, 18, "9.223372036854775807");
	fixed_check(t, INT64_MAX, 19, "0.9223372036854775807");
	fixed_check(t, 5, 20, "0.00000000000000000005");
	fixed_check(t, -1, 20, "-0.00000000000000000001");
	KEXPECT_EQ(t, fmt_fixed(buf, sizeof(buf), 12345, 3), 6);
	KEXPECT_STREQ(t, buf, "12.");
}

#ifdef HOST_BUILD
/* Formats one spec both ways; returns false (after logging) on a mismatch. */
static bool sweep_one(struct ktest *t, const char *fmt, ...)
{
	char ours[FMT_TEST_BUF], ref[FMT_TEST_BUF];
	va_list ap, aq;
	int n, m;

	va_start(ap, fmt);
	va_copy(aq, ap);
	n = fmt_vsnprintf(ours, sizeof(ours), fmt, ap);
	m = vsnprintf(ref, sizeof(ref), fmt, aq);
	va_end(aq);
	va_end(ap);
	if (n == m && strcmp(ours, ref) == 0)
		return true;
	ktest_log(t, "format \"%s\": got \"%s\" (%d), libc \"%s\" (%d)", fmt, ours, n, ref, m);
	t->failed = true;
	return false;
}

/* Builds "[%<flags><width>.<prec><len><conv>]"; width or prec -1 leaves it out. */
static void sweep_spec(char *spec, size_t size, unsigned flagset, int width, int prec,
		       const char *len, char conv)
{
	static const char flag_chars[] = "-0+ #";
	char flags[8], wbuf[12] = "", pbuf[12] = "";
	int i, n = 0;

	for (i = 0; flag_chars[i]; i++) {
		if (flagset & (1u << i))
			flags[n++] = flag_chars[i];
	}
	flags[n] = '\0';
	if (width >= 0)
		snprintf(wbuf, sizeof(wbuf), "%d", width);
	if (prec >= 0)
		snprintf(pbuf, sizeof(pbuf), ".%d", prec);
	snprintf(spec, size, "[%%%s%s%s%s%c]", flags, wbuf, pbuf, len, conv);
}

/* Steps the odometer idx[] (digit i counts up to lim[i]); false after the last. */
static bool sweep_next(unsigned *idx, const unsigned *lim, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (++idx[i] < lim[i])
			return true;
		idx[i] = 0;
	}
	return false;
}

enum { SW_FLAGS, SW_WIDTH, SW_PREC, SW_CONV, SW_LEN, SW_DIGITS };

static const int sweep_widths[] = { -1, 0, 1, 5, 25 };
static const int sweep_precs[] = { -1, 0, 1, 4, 22 };
static const char sweep_convs[] = "diuxXo";
/* The first three take an int argument, the rest a 64-bit one (LP64 host). */
static const char *const sweep_lens[] = { "", "hh", "h", "l", "ll", "z", "t", "j" };
static const long long sweep_vals[] = {
	0, 1, -1, 42, -42, 255, T_INT_MIN, T_INT_MAX, T_LLONG_MIN, T_LLONG_MAX, 0x123456789abcdefll,
};

/* Runs one spec of the integer sweep over every value; returns the mismatches. */
static unsigned sweep_int_spec(struct ktest *t, const unsigned *idx)
{
	char conv = sweep_convs[idx[SW_CONV]], spec[32];
	unsigned v, bad = 0;

	/* '#' (flag bit 4) is undefined for d, i and u. */
	if ((idx[SW_FLAGS] & 16) && strchr("diu", conv))
		return 0;
	sweep_spec(spec, sizeof(spec), idx[SW_FLAGS], sweep_widths[idx[SW_WIDTH]],
		   sweep_precs[idx[SW_PREC]], sweep_lens[idx[SW_LEN]], conv);
	for (v = 0; v < ARRAY_SIZE(sweep_vals); v++) {
		if (idx[SW_LEN] < 3)
			bad += !sweep_one(t, spec, (int)sweep_vals[v]);
		else
			bad += !sweep_one(t, spec, sweep_vals[v]);
	}
	return bad;
}
#endif

/* Every flag subset x width x precision x conversion x length x value, against libc. */
static void test_format_sweep_vs_libc(struct ktest *t)
{
#ifdef HOST_BUILD
	static const unsigned lim[SW_DIGITS] = {
		[SW_FLAGS] = 32,
		[SW_WIDTH] = ARRAY_SIZE(sweep_widths),
		[SW_PREC] = ARRAY_SIZE(sweep_precs),
		[SW_CONV] = sizeof(sweep_convs) - 1,
		[SW_LEN] = ARRAY_SIZE(sweep_lens),
	};
	unsigned idx[SW_DIGITS] = { 0 }, bad = 0, specs = 0;

	do {
		bad += sweep_int_spec(t, idx);
		specs++;
	} while (sweep_next(idx, lim, SW_DIGITS) && bad < 10);
	KEXPECT_EQ(t, bad, 0);
	KEXPECT_EQ(t, specs, 32 * 5 * 5 * 6 * 8);
#else
	ktest_skip(t, "needs the host's libc");
#endif
}

/* Widths and precisions for %s and %c with and without '-', against libc. */
static void test_format_sweep_strings_vs_libc(struct ktest *t)
{
#ifdef HOST_BUILD
	static const char *const strs[] = { "", "a", "abc", "hello, world" };
	static const unsigned lim[3] = { 2, ARRAY_SIZE(sweep_widths), ARRAY_SIZE(sweep_precs) };
	unsigned idx[3] = { 0 }, s, bad = 0;
	char spec[32];

	/* Only '-' is defined for %s and %c, so the flag digit stops at 1. */
	do {
		int w = sweep_widths[idx[1]];

		sweep_spec(spec, sizeof(spec), idx[0], w, sweep_precs[idx[2]], "", 's');
		for (s = 0; s < ARRAY_SIZE(strs); s++)
			bad += !sweep_one(t, spec, strs[s]);
		sweep_spec(spec, sizeof(spec), idx[0], w, -1, "", 'c');
		bad += !sweep_one(t, spec, 'q');
	} while (sweep_next(idx, lim, 3));
	KEXPECT_EQ(t, bad, 0);
#else
	ktest_skip(t, "needs the host's libc");
#endif
}

static const struct ktest_case format_cases[] = {
	KTEST_CASE(test_format_integers),
	KTEST_CASE(test_format_flags),
	KTEST_CASE(test_format_width_precision),
	KTEST_CASE(test_format_length_modifiers),
	KTEST_CASE(test_format_chars_strings),
	KTEST_CASE(test_format_own_rules),
	KTEST_CASE(test_format_truncation),
	KTEST_CASE(test_format_stream),
	KTEST_CASE(test_format_json_string),
	KTEST_CASE(test_format_fixed),
	KTEST_CASE(test_format_sweep_vs_libc),
	KTEST_CASE(test_format_sweep_strings_vs_libc),
};
KTEST_SUITE(format, format_cases);
