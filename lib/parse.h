/*
 * Strict number parsing for the command line and other untrusted text:
 * whole input or nothing, no signs, no whitespace, overflow reported.
 * Contracts are at the definitions in lib/parse.c.
 */
#ifndef MMLAB_LIB_PARSE_H
#define MMLAB_LIB_PARSE_H

#include "types.h"

/* Decimal or 0x hex; 0, -EINVAL or -ERANGE. */
int parse_u64(const char *s, size_t len, u64 *out);

/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
int parse_size(const char *s, size_t len, u64 *out);

#endif
