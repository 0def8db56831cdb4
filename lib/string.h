/*
 * The C string and memory functions mmlab uses. The kernel gets them from
 * lib/string.c under their standard names (gcc and clang may emit calls to
 * memcpy, memmove, memset and memcmp on their own); host builds take them
 * from libc instead. Both take strlcpy from here.
 */
#ifndef MMLAB_LIB_STRING_H
#define MMLAB_LIB_STRING_H

#include "types.h"

#ifdef HOST_BUILD

#include <string.h>

#else /* kernel */

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

#endif /* HOST_BUILD */

/**
 * strlcpy - copy @src into @dst of @size bytes, always NUL-terminating
 *
 * Copies at most @size - 1 bytes; writes nothing when @size is 0.
 * Returns strlen(@src), so a return value >= @size means truncation.
 * Renamed, so that it cannot clash with libc's (glibc has one from 2.38).
 */
static inline size_t mmlab_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy mmlab_strlcpy

#endif
