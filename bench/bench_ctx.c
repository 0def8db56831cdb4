/*
 * A running case's context: failing the case and reading its parameters,
 * from any participating CPU.
 */
#include "bench/bench_ctx.h"
#include "errno.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/string.h"

void bench_fail(struct bench_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (atomic_cmpxchg(&c->error, 0, -EINVAL) != 0)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
}

u64 bench_param(const struct bench_ctx *c, const char *name)
{
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i]; i++)
		if (strcmp(c->b->param_names[i], name) == 0)
			return c->bcase->param[i];
	return 0;
}
