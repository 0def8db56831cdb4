/*
 * Freestanding printf-style formatting: one engine (fmt_vformat) that hands
 * its output to a sink chunk by chunk, with snprintf-style wrappers over it,
 * a JSON string writer and a fixed-point decimal printer. No floating point,
 * no allocation, no locks: safe on any CPU and in any context, provided the
 * sink is. Contracts are at the definitions in lib/format.c.
 */
#ifndef MMLAB_LIB_FORMAT_H
#define MMLAB_LIB_FORMAT_H

#include <stdarg.h>

#include "compiler.h"
#include "types.h"

/* Receives n bytes of output (not NUL-terminated); n is never 0. */
typedef void fmt_sink_t(void *ctx, const char *s, size_t n);

/* The engine and its wrappers: C printf semantics, see lib/format.c. */
int fmt_vformat(fmt_sink_t *sink, void *ctx, const char *fmt, va_list ap);
int fmt_format(fmt_sink_t *sink, void *ctx, const char *fmt, ...) __printf(3, 4);
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* A quoted, escaped JSON string literal, or null for NULL. */
int fmt_json_string(fmt_sink_t *sink, void *ctx, const char *s);

/* value / 10^scale_digits as a decimal, e.g. (12345, 3) -> "12.345". */
int fmt_fixed(char *buf, size_t size, s64 value, unsigned scale_digits);

#endif
