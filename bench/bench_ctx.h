/*
 * What a running case's code may do with its context (bench/bench_ctx.c):
 * fail the case, read a parameter. The harness's own files call it too, so
 * it sits below them all and calls none of them.
 */
#ifndef BENCH_BENCH_CTX_H
#define BENCH_BENCH_CTX_H

#include "bench/bench_types.h"

/* Fails the case from any participating CPU; the first message wins. */
void bench_fail(struct bench_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of parameter @name of the running case (0 if the bench has no such parameter). */
u64 bench_param(const struct bench_ctx *c, const char *name);

#endif
