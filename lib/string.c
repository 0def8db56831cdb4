/*
 * The C memory and string functions of lib/string.h, under their standard
 * names because the compiler emits calls to memcpy, memmove, memset and
 * memcmp itself; -ffreestanding keeps gcc from turning their loops back into
 * calls to themselves. Plain C, no locks, any context. Not built for the
 * host, where libc provides them.
 */
#include "lib/string.h"

/* A u64 that may alias any object, for word-at-a-time copies. */
typedef u64 __attribute__((may_alias)) string_word_t;

#define STRING_WORD sizeof(string_word_t)

static bool string_words_ok(const void *a, const void *b)
{
	return (((uintptr_t)a | (uintptr_t)b) & (STRING_WORD - 1)) == 0;
}

/**
 * memcpy - copy @n bytes from @src to @dst; the areas must not overlap
 *
 * Returns @dst.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (string_words_ok(d, s)) {
		for (; n >= STRING_WORD; n -= STRING_WORD) {
			*(string_word_t *)d = *(const string_word_t *)s;
			d += STRING_WORD;
			s += STRING_WORD;
		}
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

/**
 * memmove - copy @n bytes from @src to @dst; the areas may overlap
 *
 * Returns @dst.
 */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlap with dst above src: copy backwards. */
	while (n--)
		d[n] = s[n];
	return dst;
}

/**
 * memset - fill @n bytes at @dst with the byte value of @c
 *
 * Returns @dst.
 */
void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	string_word_t word = (unsigned char)c * 0x0101010101010101ull;

	if (string_words_ok(d, d)) {
		for (; n >= STRING_WORD; n -= STRING_WORD) {
			*(string_word_t *)d = word;
			d += STRING_WORD;
		}
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

/**
 * memcmp - compare @n bytes as unsigned char
 *
 * Returns <0, 0 or >0 as @a sorts before, equal to or after @b.
 */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

/**
 * strlen - length of the NUL-terminated string @s
 */
size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

/**
 * strnlen - length of @s, reading at most @max bytes
 *
 * Returns @max when no NUL is found in the first @max bytes.
 */
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/**
 * strcmp - compare two NUL-terminated strings as unsigned char
 *
 * Returns <0, 0 or >0 as @a sorts before, equal to or after @b.
 */
int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

/**
 * strncmp - strcmp over at most @n bytes
 */
int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y || !*x)
			return *x - *y;
	}
	return 0;
}

/**
 * strchr - first occurrence of (char)@c in @s
 *
 * The terminating NUL counts, so strchr(s, 0) finds the end.
 * Returns a pointer into @s, or NULL.
 */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

/**
 * strrchr - last occurrence of (char)@c in @s, or NULL
 */
char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

/**
 * strstr - first occurrence of @needle in @haystack
 *
 * An empty @needle matches at @haystack. Returns a pointer into
 * @haystack, or NULL.
 */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++) {
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	}
	return n == 0 ? (char *)haystack : NULL;
}
