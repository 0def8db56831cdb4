/*
 * One-line JSON writer over a fixed buffer; see kernel/json.h. Not shared
 * between CPUs: each caller owns its struct json.
 */
#include "kernel/json.h"
#include "errno.h"
#include "lib/format.h"

static void json_sink(void *ctx, const char *s, size_t n)
{
	struct json *j = ctx;

	if (j->overflow || n >= j->size - j->len) {
		j->overflow = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		j->buf[j->len++] = s[i];
	j->buf[j->len] = '\0';
}

static void json_raw(struct json *j, const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	json_sink(j, s, n);
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma)
		json_raw(j, ",");
	fmt_json_string(json_sink, j, key);
	json_raw(j, ":");
	j->need_comma = true;
}

void json_begin(struct json *j, char *buf, size_t size)
{
	*j = (struct json){ .buf = buf, .size = size };
	buf[0] = '\0';
	json_raw(j, "{");
	j->depth = 1;
}

int json_end(struct json *j)
{
	json_array_end(j);
	while (j->depth) {
		json_raw(j, "}");
		j->depth--;
	}
	return j->overflow ? -ENOSPC : (int)j->len;
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	if (val)
		fmt_json_string(json_sink, j, val);
	else
		json_raw(j, "null");
}

void json_u64(struct json *j, const char *key, u64 val)
{
	char num[24];

	json_key(j, key);
	fmt_snprintf(num, sizeof(num), "%lu", (unsigned long)val);
	json_raw(j, num);
}

void json_s64(struct json *j, const char *key, s64 val)
{
	char num[24];

	json_key(j, key);
	fmt_snprintf(num, sizeof(num), "%ld", (long)val);
	json_raw(j, num);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	json_raw(j, val ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_raw(j, "null");
}

void json_fixed(struct json *j, const char *key, s64 val, unsigned digits)
{
	char num[32];

	json_key(j, key);
	fmt_fixed(num, sizeof(num), val, digits);
	json_raw(j, num);
}

void json_object_begin(struct json *j, const char *key)
{
	json_key(j, key);
	json_raw(j, "{");
	j->need_comma = false;
	j->depth++;
}

void json_object_end(struct json *j)
{
	if (j->depth > 1) {
		json_raw(j, "}");
		j->depth--;
		j->need_comma = true;
	}
}

void json_array_begin(struct json *j, const char *key)
{
	json_key(j, key);
	json_raw(j, "[");
	j->need_comma = false;
	j->in_array = true;
}

/* A comma before every value but the first. */
static void json_elem_sep(struct json *j)
{
	if (j->need_comma)
		json_raw(j, ",");
	j->need_comma = true;
}

void json_elem_u64(struct json *j, u64 val)
{
	char num[24];

	json_elem_sep(j);
	fmt_snprintf(num, sizeof(num), "%lu", (unsigned long)val);
	json_raw(j, num);
}

void json_elem_fixed(struct json *j, s64 val, unsigned digits)
{
	char num[32];

	json_elem_sep(j);
	fmt_fixed(num, sizeof(num), val, digits);
	json_raw(j, num);
}

void json_elem_row_begin(struct json *j)
{
	json_elem_sep(j);
	json_raw(j, "[");
	j->need_comma = false;
}

void json_elem_row_end(struct json *j)
{
	json_raw(j, "]");
	j->need_comma = true;
}

void json_array_end(struct json *j)
{
	if (!j->in_array)
		return;
	json_raw(j, "]");
	j->in_array = false;
	j->need_comma = true;
}
