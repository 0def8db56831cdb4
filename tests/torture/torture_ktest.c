/*
 * tests/mm_emul.c's checks (the ktest helpers it calls) for the torture,
 * which runs no ktest suite: a check that fails is a torture failure.
 * Only what mm_emul.c uses: equality of integers and the log line.
 */
#include <stdarg.h>

#include "lib/format.h"
#include "tests/ktest.h"
#include "tests/torture/torture.h"

bool ktest_check_int(struct ktest *t, enum ktest_op op, struct ktest_int a, struct ktest_int b,
		     const char *file, int line)
{
	(void)t;
	if (op == KTEST_EQ && a.raw == b.raw)
		return true;
	if (op != KTEST_EQ)
		torture_fail("%s:%d: unexpected check kind %d", file, line, op);
	else
		torture_fail("%s:%d: %s == 0x%lx, expected %s", file, line, a.text,
			     (unsigned long)a.raw, b.text);
	return false;
}

void ktest_log(struct ktest *t, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	torture_env_line(buf);
}
