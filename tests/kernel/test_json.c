/*
 * The one-line JSON writer (kernel/json.c) used for the header, BENCH
 * results and the trailer. Host and kernel.
 */
#include "errno.h"
#include "kernel/json.h"
#include "tests/ktest.h"

static void test_json_object(struct ktest *t)
{
	char buf[256];
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "name", "a\"b");
	json_u64(&j, "n", 18446744073709551615ull);
	json_s64(&j, "neg", -5);
	json_bool(&j, "ok", true);
	json_null(&j, "none");
	json_str(&j, "nil", NULL);
	json_fixed(&j, "f", -1234, 3);
	json_object_begin(&j, "counters");
	json_u64(&j, "a", 1);
	json_u64(&j, "b", 2);
	json_object_end(&j);
	json_u64(&j, "after", 3);
	KEXPECT_GT(t, json_end(&j), 0);
	KEXPECT_STREQ(t, buf,
		      "{\"name\":\"a\\\"b\",\"n\":18446744073709551615,\"neg\":-5,\"ok\":true,"
		      "\"none\":null,\"nil\":null,\"f\":-1.234,\"counters\":{\"a\":1,\"b\":2},"
		      "\"after\":3}");
}

/* Arrays of samples: values without keys, empty arrays, one left open is closed. */
static void test_json_array(struct ktest *t)
{
	char buf[128];
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_array_begin(&j, "samples");
	json_elem_fixed(&j, 1500, 3);
	json_elem_fixed(&j, 2, 3);
	json_array_end(&j);
	json_array_begin(&j, "none");
	json_array_end(&j);
	json_u64(&j, "n", 2);
	json_array_begin(&j, "seq");
	json_elem_u64(&j, 0);
	json_elem_u64(&j, 3);
	KEXPECT_GT(t, json_end(&j), 0);
	KEXPECT_STREQ(t, buf, "{\"samples\":[1.500,0.002],\"none\":[],\"n\":2,\"seq\":[0,3]}");
}

static void test_json_empty_nested(struct ktest *t)
{
	char buf[64];
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_object_begin(&j, "params");
	json_object_end(&j);
	json_object_begin(&j, "open");
	KEXPECT_GT(t, json_end(&j), 0);
	KEXPECT_STREQ(t, buf, "{\"params\":{},\"open\":{}}");
}

static void test_json_overflow(struct ktest *t)
{
	char buf[16];
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "key", "a value that does not fit");
	json_u64(&j, "k", 1);
	KEXPECT_EQ(t, json_end(&j), -ENOSPC);
	KEXPECT_LT(t, j.len, sizeof(buf));
}

static const struct ktest_case json_cases[] = {
	KTEST_CASE(test_json_object),
	KTEST_CASE(test_json_empty_nested),
	KTEST_CASE(test_json_array),
	KTEST_CASE(test_json_overflow),
};
KTEST_SUITE(json, json_cases);
