/*
 * Builds one-line JSON objects (the MMLAB header, BENCH results, the
 * MMLAB-DONE trailer) in a caller-provided buffer. No floating point: numbers
 * are integers or fixed-point decimals. Overflow is sticky and reported by
 * json_end(), never a silently cut object.
 */
#ifndef KERNEL_JSON_H
#define KERNEL_JSON_H

#include "types.h"

struct json {
	char *buf;
	size_t size, len;
	bool need_comma;
	bool overflow;
	unsigned depth;
	bool in_array; /* inside json_array_begin(): values take no key */
};

/* Starts an object in @buf (@size bytes). */
void json_begin(struct json *j, char *buf, size_t size);
/* Closes every open object; returns the length, or -ENOSPC if it did not fit. */
int json_end(struct json *j);

void json_str(struct json *j, const char *key, const char *val); /* NULL -> null */
void json_u64(struct json *j, const char *key, u64 val);
void json_s64(struct json *j, const char *key, s64 val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* @val / 10^@digits as a decimal, e.g. (12345, 3) -> 12.345 */
void json_fixed(struct json *j, const char *key, s64 val, unsigned digits);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
/*
 * An array of numbers under @key: json_array_begin(), then one
 * json_elem_u64() or json_elem_fixed() per value, then json_array_end().
 * Arrays do not nest; json_end() closes one left open.
 */
void json_array_begin(struct json *j, const char *key);
void json_elem_u64(struct json *j, u64 val);
void json_elem_fixed(struct json *j, s64 val, unsigned digits);
void json_array_end(struct json *j);
/* Inside an array, a row of numbers as one value: [[1,2],[3,4]]. Rows do not nest. */
void json_elem_row_begin(struct json *j);
void json_elem_row_end(struct json *j);

#endif
