/*
 * Strict parsers for numbers and sizes. Input is a (pointer, length) pair,
 * so callers can parse a slice of a larger string without copying it. The
 * whole slice must be the number: anything else is an error, never a
 * partial result. No state: any context.
 */
#include "lib/parse.h"
#include "errno.h"

#define PARSE_U64_MAX ((u64)-1)

/* The value of hex or decimal digit c, or -1 when it is not one in @base. */
static int parse_digit(char c, unsigned base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/**
 * parse_u64 - parse an unsigned 64-bit number
 * @s:   the text; need not be NUL-terminated
 * @len: number of bytes of @s to parse, all of which must belong to the number
 * @out: receives the value on success, untouched on failure
 *
 * Accepts decimal ("4096") and hex with a 0x or 0X prefix ("0x1000").
 * Rejects an empty slice, a bare "0x", signs, spaces and any other byte,
 * and decimal with a leading zero ("010"), which a reader might take for
 * octal. Invalid text wins over overflow when a slice has both.
 * Returns 0, -EINVAL for text that is not a number, or -ERANGE when the
 * number does not fit in a u64.
 */
int parse_u64(const char *s, size_t len, u64 *out)
{
	unsigned base = 10;
	bool overflow = false;
	u64 v = 0;
	size_t i = 0;
	int d;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len >= 2 && s[0] == '0') {
		return -EINVAL;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		d = parse_digit(s[i], base);
		if (d < 0)
			return -EINVAL;
		if (v > (PARSE_U64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

/* log2 of the multiplier for size suffix c, or -1 when c is not one. */
static int parse_size_shift(char c)
{
	switch (c) {
	case 'K':
	case 'k':
		return 10;
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	case 'T':
	case 't':
		return 40;
	default:
		return -1;
	}
}

/**
 * parse_size - parse a byte count with an optional binary suffix
 * @s, @len, @out: as for parse_u64
 *
 * The number (decimal or 0x hex, as parse_u64) may be followed by one
 * suffix letter, K, M, G or T in either case, meaning 2^10, 2^20, 2^30 or
 * 2^40: "64M" is 67108864. Nothing else may follow ("64MB" is rejected).
 * Returns 0, -EINVAL, or -ERANGE when the bytes do not fit in a u64.
 */
int parse_size(const char *s, size_t len, u64 *out)
{
	int shift = len > 0 ? parse_size_shift(s[len - 1]) : -1;
	u64 v;
	int err;

	if (shift < 0)
		return parse_u64(s, len, out);
	err = parse_u64(s, len - 1, &v);
	if (err)
		return err;
	if (v > PARSE_U64_MAX >> shift)
		return -ERANGE;
	*out = v << shift;
	return 0;
}
