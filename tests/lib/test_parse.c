/*
 * Tests for lib/parse.c (strict u64 and size parsing) and lib/errno.c.
 * Pure functions: the same cases run on the host and in the kernel.
 */
#include "errno.h"
#include "lib/parse.h"
#include "lib/string.h"
#include "tests/ktest.h"

/* Parses the NUL-terminated s; out is left at a marker value on failure. */
static int parse_str(const char *s, u64 *out)
{
	*out = 0xdeadbeef;
	return parse_u64(s, strlen(s), out);
}

static int size_str(const char *s, u64 *out)
{
	*out = 0xdeadbeef;
	return parse_size(s, strlen(s), out);
}

static void test_parse_decimal(struct ktest *t)
{
	u64 v;

	KEXPECT_EQ(t, parse_str("0", &v), 0);
	KEXPECT_EQ(t, v, 0);
	KEXPECT_EQ(t, parse_str("7", &v), 0);
	KEXPECT_EQ(t, v, 7);
	KEXPECT_EQ(t, parse_str("1000000", &v), 0);
	KEXPECT_EQ(t, v, 1000000);
	KEXPECT_EQ(t, parse_str("18446744073709551615", &v), 0);
	KEXPECT_EQ(t, v, 0xffffffffffffffffull);
}

static void test_parse_hex(struct ktest *t)
{
	u64 v;

	KEXPECT_EQ(t, parse_str("0x0", &v), 0);
	KEXPECT_EQ(t, v, 0);
	KEXPECT_EQ(t, parse_str("0x1F", &v), 0);
	KEXPECT_EQ(t, v, 31);
	KEXPECT_EQ(t, parse_str("0XaBc", &v), 0);
	KEXPECT_EQ(t, v, 0xabc);
	KEXPECT_EQ(t, parse_str("0x0010", &v), 0);
	KEXPECT_EQ(t, v, 16);
	KEXPECT_EQ(t, parse_str("0xffffffffffffffff", &v), 0);
	KEXPECT_EQ(t, v, 0xffffffffffffffffull);
}

static void test_parse_rejects_junk(struct ktest *t)
{
	static const char *const bad[] = {
		"", "x", "-1", "+1", " 1", "1 ", "1x", "12a", "0x", "0xg", "0x-1", "010",
		"00", "1.5", "1e3", "0b1", "x10", "ab", "1,2", "0x 1",
	};
	size_t i;
	u64 v;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!KEXPECT_EQ(t, parse_str(bad[i], &v), -EINVAL))
			ktest_log(t, "input '%s'", bad[i]);
		KEXPECT_EQ(t, v, 0xdeadbeef);
	}
}

static void test_parse_overflow(struct ktest *t)
{
	u64 v;

	KEXPECT_EQ(t, parse_str("18446744073709551616", &v), -ERANGE);
	KEXPECT_EQ(t, v, 0xdeadbeef);
	KEXPECT_EQ(t, parse_str("99999999999999999999999", &v), -ERANGE);
	KEXPECT_EQ(t, parse_str("0x10000000000000000", &v), -ERANGE);
	/* Junk wins over overflow: the text is not a number at all. */
	KEXPECT_EQ(t, parse_str("99999999999999999999999x", &v), -EINVAL);
}

static void test_parse_uses_len_only(struct ktest *t)
{
	static const char nul_inside[] = { '1', '2', '\0', '3' };
	const char s[] = "1234,5678";
	u64 v = 0;

	KEXPECT_EQ(t, parse_u64(s, 4, &v), 0);
	KEXPECT_EQ(t, v, 1234);
	KEXPECT_EQ(t, parse_u64(s + 5, 4, &v), 0);
	KEXPECT_EQ(t, v, 5678);
	KEXPECT_EQ(t, parse_u64(s, 5, &v), -EINVAL);
	KEXPECT_EQ(t, parse_u64(s, 0, &v), -EINVAL);
	/* A NUL inside the slice is a byte like any other: rejected. */
	KEXPECT_EQ(t, parse_u64(nul_inside, 4, &v), -EINVAL);
}

static void test_parse_size_suffixes(struct ktest *t)
{
	u64 v;

	KEXPECT_EQ(t, size_str("4096", &v), 0);
	KEXPECT_EQ(t, v, 4096);
	KEXPECT_EQ(t, size_str("4K", &v), 0);
	KEXPECT_EQ(t, v, 4096);
	KEXPECT_EQ(t, size_str("64m", &v), 0);
	KEXPECT_EQ(t, v, 64ull << 20);
	KEXPECT_EQ(t, size_str("2G", &v), 0);
	KEXPECT_EQ(t, v, 2ull << 30);
	KEXPECT_EQ(t, size_str("1t", &v), 0);
	KEXPECT_EQ(t, v, 1ull << 40);
	KEXPECT_EQ(t, size_str("0x10M", &v), 0);
	KEXPECT_EQ(t, v, 16ull << 20);
	KEXPECT_EQ(t, size_str("0K", &v), 0);
	KEXPECT_EQ(t, v, 0);
	KEXPECT_EQ(t, size_str("16777215T", &v), 0);
	KEXPECT_EQ(t, v, 16777215ull << 40);
}

static void test_parse_size_rejects(struct ktest *t)
{
	static const char *const bad[] = {
		"", "K", "M", "64MB", "64 M", "-1K", "1KK", "1P", "64KiB", "0x",
	};
	size_t i;
	u64 v;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!KEXPECT_EQ(t, size_str(bad[i], &v), -EINVAL))
			ktest_log(t, "input '%s'", bad[i]);
		KEXPECT_EQ(t, v, 0xdeadbeef);
	}
	KEXPECT_EQ(t, size_str("16777216T", &v), -ERANGE);
	KEXPECT_EQ(t, size_str("18446744073709551615K", &v), -ERANGE);
	KEXPECT_EQ(t, size_str("18446744073709551616", &v), -ERANGE);
	KEXPECT_EQ(t, v, 0xdeadbeef);
}

static const struct ktest_case parse_cases[] = {
	KTEST_CASE(test_parse_decimal),
	KTEST_CASE(test_parse_hex),
	KTEST_CASE(test_parse_rejects_junk),
	KTEST_CASE(test_parse_overflow),
	KTEST_CASE(test_parse_uses_len_only),
	KTEST_CASE(test_parse_size_suffixes),
	KTEST_CASE(test_parse_size_rejects),
};
KTEST_SUITE(parse, parse_cases);

static void test_errno_names(struct ktest *t)
{
	KEXPECT_STREQ(t, errno_name(-EINVAL), "EINVAL");
	KEXPECT_STREQ(t, errno_name(EINVAL), "EINVAL");
	KEXPECT_STREQ(t, errno_name(-ENOMEM), "ENOMEM");
	KEXPECT_STREQ(t, errno_name(-ERANGE), "ERANGE");
	KEXPECT_STREQ(t, errno_name(-ETIMEDOUT), "ETIMEDOUT");
	KEXPECT_STREQ(t, errno_name(-EPERM), "EPERM");
	KEXPECT_STREQ(t, errno_name(0), "0");
}

static void test_errno_unknown(struct ktest *t)
{
	KEXPECT_STREQ(t, errno_name(-3), "EUNKNOWN");
	KEXPECT_STREQ(t, errno_name(-9999), "EUNKNOWN");
	KEXPECT_STREQ(t, errno_name(-2147483647 - 1), "EUNKNOWN");
}

static const struct ktest_case errno_cases[] = {
	KTEST_CASE(test_errno_names),
	KTEST_CASE(test_errno_unknown),
};
KTEST_SUITE(errno, errno_cases);
